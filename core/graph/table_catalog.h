// The table catalog: every table of a trace under a stable name, with typed,
// unit-carrying columns. The event graph's tables (core_tables.h), the
// host's facts (kernel classes, graph capture) and plugins' published tables
// are all described by one TableSchema; the plugin host hands plugins the
// tables they declared from a trace's TraceTables, without copying columns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace th {

// Element type of a column; the values are those of plugin_api.h's
// th_value_type (the plugin host checks they agree).
enum class ColumnType : uint8_t {
  kBool = 0,
  kI64 = 1,
  kF64 = 2,
  kString = 3,  // const char* / std::string
  kU32 = 4,
  kU16 = 5,
  kU8 = 6,
  kI32 = 7,
  kF32 = 8,
  kI8 = 9,
  kI16 = 10,
  kStringId = 11,  // uint32 id into the trace's string pool
};

std::string_view ColumnTypeName(ColumnType t);  // "i64", "string_id", ...
size_t ColumnTypeSize(ColumnType t);            // bytes per value (pointer size for kString)

struct ColumnSchema {
  std::string name;
  ColumnType type = ColumnType::kI64;
  std::string unit;  // "ns", "bytes", "%", "" for counts, ids and text
  std::string doc;
};

struct TableSchema {
  std::string name;
  std::string doc;
  std::vector<ColumnSchema> columns;
  std::string view;  // the report panel that draws it; "" = the generic listing

  const ColumnSchema* Find(std::string_view column) const;
};

// One table of one trace: its schema and a pointer to each column's values
// (schema order), all `rows` long.
struct CatalogTable {
  const TableSchema* schema = nullptr;
  uint64_t rows = 0;
  std::vector<const void*> columns;
};

// A column's values as registered: where they are and how wide one is (checked
// against the schema's type).
struct ColumnRef {
  template <typename T>
  ColumnRef(const T* values) : data(values), element_size(sizeof(T)) {}  // NOLINT: implicit
  const void* data;
  size_t element_size;
};

// The catalog of one trace. Columns point into the trace (zero copy) or into
// storage this object keeps (Keep).
class TraceTables {
 public:
  // Registers a table. `columns` holds one per schema column, in schema
  // order; it is an error (std::logic_error) to give another count, a value
  // of another width than the schema's type, or to register a name twice.
  void Add(const TableSchema& schema, uint64_t rows, const std::vector<ColumnRef>& columns);
  const CatalogTable* Find(std::string_view name) const;
  const std::vector<CatalogTable>& tables() const { return tables_; }

  // Keeps `values` alive as long as this catalog; returns their address.
  template <typename T>
  const T* Keep(std::vector<T> values) {
    auto owned = std::make_shared<std::vector<T>>(std::move(values));
    const T* data = owned->data();
    kept_.push_back(std::move(owned));
    return data;
  }

 private:
  std::vector<CatalogTable> tables_;
  std::vector<std::shared_ptr<void>> kept_;
};

}  // namespace th
