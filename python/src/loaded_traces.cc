#include "python/src/loaded_traces.h"

#include "core/graph/core_tables.h"
#include "core/graph/kernel_class_table.h"

namespace th::python {

StatusOr<std::shared_ptr<LoadedTraces>> LoadedTraces::Load(std::vector<std::string> inputs,
                                                           const LoadOptions& options) {
  auto set = LoadTraceSet(inputs, options);
  if (!set.ok()) return set.status();
  std::shared_ptr<LoadedTraces> loaded(new LoadedTraces());
  loaded->set_ = std::move(*set);
  loaded->inputs_ = std::move(inputs);
  loaded->graph_tables_.resize(loaded->set_.traces.size());
  return loaded;
}

const TraceTables& LoadedTraces::GraphTables(size_t i) {
  if (!graph_tables_[i]) {
    auto tables = std::make_unique<TraceTables>();
    AddGraphTables(*set_.traces[i], tables.get());
    graph_tables_[i] = std::move(tables);
  }
  return *graph_tables_[i];
}

const HostFacts& LoadedTraces::Facts() {
  if (!facts_) facts_ = std::make_unique<HostFacts>(set_, KernelClassTable::Builtin());
  return *facts_;
}

const CatalogTable* LoadedTraces::Find(size_t i, std::string_view name) {
  if (i >= size()) return nullptr;
  if (const CatalogTable* t = GraphTables(i).Find(name)) return t;
  if (!CoreTableSchema(name)) return nullptr;  // no core table: the facts have none either
  return Facts().tables(i).Find(name);
}

std::vector<std::string> LoadedTraces::TableNames() {
  std::vector<std::string> names;
  for (const TableSchema& s : CoreTableSchemas()) names.push_back(s.name);
  return names;
}

}  // namespace th::python
