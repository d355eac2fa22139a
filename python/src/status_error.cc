#include "python/src/status_error.h"

#include <pybind11/pybind11.h>

#include "python/src/column_arrays.h"

namespace th::python {

namespace py = pybind11;

void ThrowStatus(const Status& status) {
  PyObject* type = PyExc_RuntimeError;
  switch (status.code()) {
    case StatusCode::kInvalidInput:
    case StatusCode::kOtherFormat:
      type = PyExc_ValueError;
      break;
    case StatusCode::kNotFound:
      type = PyExc_FileNotFoundError;
      break;
    case StatusCode::kIoError:
      type = PyExc_OSError;
      break;
    case StatusCode::kUnsupported:
      type = PyExc_NotImplementedError;
      break;
    default:
      break;
  }
  PyErr_SetObject(type, Text(status.message()).ptr());
  throw py::error_already_set();
}

}  // namespace th::python
