// Columns as numpy arrays that view the memory they live in (no copy): each
// array's base is `owner`, the Python object that keeps that memory alive.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/string_pool.h"
#include "core/graph/table_catalog.h"

namespace th::python {

// {column name: array} for every column of `table`, in schema order.
// Numbers are views of the column (string ids as uint32 views: the string
// pool's indices); kString columns, which hold pointers, are lists of str.
pybind11::dict CatalogArrays(const CatalogTable& table, pybind11::handle owner);

// [(name, type, unit, doc)] of `schema`'s columns (type as ColumnTypeName).
pybind11::list SchemaColumns(const TableSchema& schema);

// A derived table: int64 and float64 columns as views, string columns as
// lists of str.
pybind11::dict DerivedArrays(const DerivedTable& table, pybind11::handle owner);

// The pool's strings, id order (invalid UTF-8 decoded with surrogateescape,
// so distinct byte strings stay distinct).
pybind11::list PoolStrings(const StringPool& pool);

// A C++ string as str (surrogateescape, as PoolStrings).
pybind11::str Text(std::string_view s);

}  // namespace th::python
