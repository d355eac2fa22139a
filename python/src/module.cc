// _tracehound: the C++ side of the `tracehound` Python package. The package
// (python/tracehound/) turns what it hands out into pandas frames.
#include "python/src/bindings.h"

PYBIND11_MODULE(_tracehound, m) {
  m.doc() = "tracehound's event graph, pipelines and diff (use the tracehound package)";
  th::python::BindTraceSet(m);
  th::python::BindReport(m);
  th::python::BindDiff(m);
}
