// The parts of the _tracehound extension module, each registered by one
// function (module.cc calls them in this order).
#pragma once

#include <pybind11/pybind11.h>

namespace th::python {

void BindTraceSet(pybind11::module_& m);  // load(), the _TraceSet class
void BindReport(pybind11::module_& m);    // run(), the _Report class
void BindDiff(pybind11::module_& m);      // diff(), the _Diff class

}  // namespace th::python
