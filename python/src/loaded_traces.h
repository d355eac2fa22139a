// LoadedTraces: a TraceSet read for Python, shared by every frame, array and
// report made from it (each numpy array's base holds it, so the event graph
// lives as long as any view of it).
//
// The catalog of each trace is built on first use: the event graph's own
// tables (AddGraphTables, nothing copied but the small track, step and
// device tables) first; the host's facts (kernel classes, graph capture,
// event_launches: HostFacts) only when one of their tables is asked for.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/status.h"
#include "core/graph/table_catalog.h"
#include "core/graph/trace.h"
#include "core/import/trace_loader.h"
#include "core/plugin/host_facts.h"

namespace th::python {

class LoadedTraces {
 public:
  // Reads `inputs` (files, folders, globs, archives) as LoadTraceSet does.
  static StatusOr<std::shared_ptr<LoadedTraces>> Load(std::vector<std::string> inputs,
                                                      const LoadOptions& options);

  LoadedTraces(const LoadedTraces&) = delete;
  LoadedTraces& operator=(const LoadedTraces&) = delete;

  const TraceSet& set() const { return set_; }
  const std::vector<std::string>& inputs() const { return inputs_; }
  size_t size() const { return set_.traces.size(); }
  const Trace& trace(size_t i) const { return *set_.traces[i]; }

  // Table `name` of trace `i`'s catalog; nullptr when the catalog has none.
  const CatalogTable* Find(size_t i, std::string_view name);
  // Every table name a catalog has, in catalog order.
  static std::vector<std::string> TableNames();

 private:
  LoadedTraces() = default;
  const TraceTables& GraphTables(size_t i);
  const HostFacts& Facts();

  TraceSet set_;
  std::vector<std::string> inputs_;
  std::vector<std::unique_ptr<TraceTables>> graph_tables_;  // per trace, built on first use
  std::unique_ptr<HostFacts> facts_;                        // points into set_: declared after it
};

}  // namespace th::python
