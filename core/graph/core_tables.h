// The catalog's core tables: what every trace offers before any plugin runs.
// The event graph's tables are registered here; the host's facts
// (name_classes, class_rules, graph_capture) are declared here and filled by
// core/plugin/host_facts.
#pragma once

#include <string_view>
#include <vector>

#include "core/graph/table_catalog.h"
#include "core/graph/trace.h"

namespace th {

// Every core table's schema, in catalog order (docs/architecture.md lists them).
const std::vector<TableSchema>& CoreTableSchemas();
// The schema of core table `name`; nullptr when it is none.
const TableSchema* CoreTableSchema(std::string_view name);

// Registers the event graph's tables of `trace` in `tables` (zero copy, except
// the small tables the graph keeps as structs: tracks, profiler_steps, devices).
void AddGraphTables(const Trace& trace, TraceTables* tables);

}  // namespace th
