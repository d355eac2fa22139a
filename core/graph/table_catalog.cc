#include "core/graph/table_catalog.h"

#include <stdexcept>

namespace th {

std::string_view ColumnTypeName(ColumnType t) {
  switch (t) {
    case ColumnType::kBool:
      return "bool";
    case ColumnType::kI64:
      return "i64";
    case ColumnType::kF64:
      return "f64";
    case ColumnType::kString:
      return "string";
    case ColumnType::kU32:
      return "u32";
    case ColumnType::kU16:
      return "u16";
    case ColumnType::kU8:
      return "u8";
    case ColumnType::kI32:
      return "i32";
    case ColumnType::kF32:
      return "f32";
    case ColumnType::kI8:
      return "i8";
    case ColumnType::kI16:
      return "i16";
    case ColumnType::kStringId:
      return "string_id";
  }
  return "?";
}

size_t ColumnTypeSize(ColumnType t) {
  switch (t) {
    case ColumnType::kBool:
    case ColumnType::kU8:
    case ColumnType::kI8:
      return 1;
    case ColumnType::kU16:
    case ColumnType::kI16:
      return 2;
    case ColumnType::kU32:
    case ColumnType::kI32:
    case ColumnType::kF32:
    case ColumnType::kStringId:
      return 4;
    case ColumnType::kI64:
    case ColumnType::kF64:
      return 8;
    case ColumnType::kString:
      return sizeof(const char*);
  }
  return 0;
}

const ColumnSchema* TableSchema::Find(std::string_view column) const {
  for (const ColumnSchema& c : columns)
    if (c.name == column) return &c;
  return nullptr;
}

void TraceTables::Add(const TableSchema& schema, uint64_t rows,
                      const std::vector<ColumnRef>& columns) {
  if (columns.size() != schema.columns.size()) {
    throw std::logic_error("table " + schema.name + ": " + std::to_string(columns.size()) +
                           " columns given, its schema has " +
                           std::to_string(schema.columns.size()));
  }
  if (Find(schema.name)) throw std::logic_error("table " + schema.name + " registered twice");
  CatalogTable table{&schema, rows, {}};
  for (size_t c = 0; c < columns.size(); ++c) {
    const ColumnSchema& col = schema.columns[c];
    if (columns[c].element_size != ColumnTypeSize(col.type)) {
      throw std::logic_error("table " + schema.name + " column " + col.name + ": values of " +
                             std::to_string(columns[c].element_size) + " bytes, its type " +
                             std::string(ColumnTypeName(col.type)) + " has " +
                             std::to_string(ColumnTypeSize(col.type)));
    }
    table.columns.push_back(columns[c].data);
  }
  tables_.push_back(std::move(table));
}

const CatalogTable* TraceTables::Find(std::string_view name) const {
  for (const CatalogTable& t : tables_)
    if (t.schema->name == name) return &t;
  return nullptr;
}

}  // namespace th
