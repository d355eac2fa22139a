#include "python/src/column_arrays.h"

#include <pybind11/numpy.h>

#include <variant>

namespace th::python {

namespace py = pybind11;

namespace {

template <typename T>
py::array View(const void* data, uint64_t rows, py::handle owner) {
  if (rows == 0 || data == nullptr) return py::array_t<T>(0);
  py::array_t<T> a({static_cast<py::ssize_t>(rows)}, {static_cast<py::ssize_t>(sizeof(T))},
                   static_cast<const T*>(data), owner);
  // Read-only: the graph is shared by every frame made from it.
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

py::list Strings(const char* const* values, uint64_t rows) {
  py::list out;
  for (uint64_t i = 0; i < rows; ++i) out.append(Text(values[i] ? values[i] : ""));
  return out;
}

py::object ColumnArray(ColumnType type, const void* data, uint64_t rows, py::handle owner) {
  switch (type) {
    case ColumnType::kBool:
      return View<bool>(data, rows, owner);
    case ColumnType::kI64:
      return View<int64_t>(data, rows, owner);
    case ColumnType::kF64:
      return View<double>(data, rows, owner);
    case ColumnType::kString:
      return Strings(static_cast<const char* const*>(data), rows);
    case ColumnType::kU32:
    case ColumnType::kStringId:
      return View<uint32_t>(data, rows, owner);
    case ColumnType::kU16:
      return View<uint16_t>(data, rows, owner);
    case ColumnType::kU8:
      return View<uint8_t>(data, rows, owner);
    case ColumnType::kI32:
      return View<int32_t>(data, rows, owner);
    case ColumnType::kF32:
      return View<float>(data, rows, owner);
    case ColumnType::kI8:
      return View<int8_t>(data, rows, owner);
    case ColumnType::kI16:
      return View<int16_t>(data, rows, owner);
  }
  return py::none();
}

}  // namespace

py::str Text(std::string_view s) {
  PyObject* o =
      PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

py::dict CatalogArrays(const CatalogTable& table, py::handle owner) {
  py::dict out;
  for (size_t c = 0; c < table.schema->columns.size(); ++c) {
    const ColumnSchema& col = table.schema->columns[c];
    out[Text(col.name)] = ColumnArray(col.type, table.columns[c], table.rows, owner);
  }
  return out;
}

py::list SchemaColumns(const TableSchema& schema) {
  py::list out;
  for (const ColumnSchema& c : schema.columns)
    out.append(
        py::make_tuple(Text(c.name), Text(ColumnTypeName(c.type)), Text(c.unit), Text(c.doc)));
  return out;
}

py::dict DerivedArrays(const DerivedTable& table, py::handle owner) {
  py::dict out;
  for (const DerivedColumn& c : table.columns) {
    py::object values = std::visit(
        [&](const auto& v) -> py::object {
          using V = typename std::decay_t<decltype(v)>::value_type;
          if constexpr (std::is_same_v<V, std::string_view>) {
            py::list l;
            for (std::string_view s : v) l.append(Text(s));
            return l;
          } else {
            return View<V>(v.data(), v.size(), owner);
          }
        },
        c.values);
    out[Text(c.name)] = values;
  }
  return out;
}

py::list PoolStrings(const StringPool& pool) {
  py::list out(pool.size());
  for (size_t i = 0; i < pool.size(); ++i) out[i] = Text(pool.Get(static_cast<StringId>(i)));
  return out;
}

}  // namespace th::python
