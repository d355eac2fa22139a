// What analysis reports: findings, metrics and derived tables (filled by the
// plugin host from what plugins hand over, read by the report writers).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/graph/finding_severity.h"
#include "core/graph/text_column.h"

namespace th {

enum class NumberKind : uint8_t { kMeasured, kRead, kInferred };
std::string_view NumberKindName(NumberKind k);

struct ReportScope {
  int64_t rank = -1, device = -1, stream = -1, step_first = -1, step_last = -1;
};

struct Evidence {
  std::string name;
  double value = 0;
  std::string unit;
  NumberKind kind = NumberKind::kMeasured;
};

struct Finding {
  std::string plugin;
  FindingSeverity severity = FindingSeverity::kP2;
  std::string title, what, suggestion;
  double confidence = 1;
  ReportScope scope;
  std::vector<Evidence> evidence;
  // What the plugin states beyond its evidence (th::sdk::Finding::Saving,
  // TimeLost, Group, At).
  std::optional<double> saving_ns;                   // inferred: what the suggested change saves
  std::optional<double> time_lost_ns;                // what the cause costs over the capture
  std::string group;                                 // one cause in reports; "" = by title
  std::optional<std::pair<int64_t, int64_t>> range;  // ns on the scope rank's clock
};

struct Metric {
  std::string plugin, name, unit;
  double value = 0;
  NumberKind kind = NumberKind::kMeasured;
  ReportScope scope;
};

struct DerivedColumn {
  std::string name, unit;
  std::variant<std::vector<int64_t>, std::vector<double>, TextColumn> values;
  size_t size() const {
    return std::visit([](const auto& v) { return v.size(); }, values);
  }
};

struct DerivedTable {
  std::string name, plugin;
  std::string view;  // the report panel that draws it (its schema's view); "" = generic listing
  std::vector<DerivedColumn> columns;
  size_t rows = 0;
  const DerivedColumn* Find(std::string_view column) const {
    for (const auto& c : columns)
      if (c.name == column) return &c;
    return nullptr;
  }
};

struct Check {
  std::string plugin, name, detail;
  bool passed = true;
};

// What a plugin says that is not a finding: what it saw, what it could not
// assess ("rank 3 has no allocator events: OOM risk not assessed").
struct Note {
  std::string plugin, text;
  bool warning = false;
};

// A trace a plugin left out, and why (e.g. a trace of CUDA graph capture for
// an analysis that needs executed kernels).
struct Skip {
  std::string plugin;
  int64_t rank = -1;
  std::string reason;
};

// Everything a pipeline run collects, in the order plugins reported it.
struct PluginResults {
  std::vector<Finding> findings;
  std::vector<Note> notes;
  std::vector<Skip> skips;
  std::vector<Check> checks;
  std::vector<Metric> metrics;
  std::map<std::string, DerivedTable> tables;
};

}  // namespace th
