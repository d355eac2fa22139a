#include "core/plugin/host_facts.h"

#include <tbb/parallel_invoke.h>
#include <tracehound/plugin_api.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "core/graph/core_tables.h"

namespace th {
namespace {

// The launched events, ascending, each with the source of its launch edge (the
// last edge when several).
HostFacts::Launches LaunchedEvents(const EventGraph& g) {
  const EdgeTable& e = g.edges;
  std::vector<std::pair<uint32_t, uint32_t>> pairs;  // (dst, edge)
  for (size_t k = 0; k < e.size(); ++k)
    if (e.kind[k] == EdgeKind::kLaunch) pairs.push_back({e.dst[k], static_cast<uint32_t>(k)});
  std::sort(pairs.begin(), pairs.end());
  HostFacts::Launches out;
  for (size_t k = 0; k < pairs.size(); ++k) {
    if (k + 1 < pairs.size() && pairs[k + 1].first == pairs[k].first) continue;  // a later edge
    out.event.push_back(pairs[k].first);
    out.launch.push_back(e.src[pairs[k].second]);
  }
  return out;
}

// The rows of the kernels, memcpy and memset, ascending: one pass over the
// kind column.
std::vector<uint32_t> GpuActivityEvents(const EventGraph& g) {
  std::vector<uint32_t> out;
  const EventKind* kind = g.events.kind.data();
  const size_t n = g.events.size();
  for (size_t i = 0; i < n; ++i)
    if (IsGpuActivity(kind[i])) out.push_back(static_cast<uint32_t>(i));
  return out;
}

}  // namespace

static_assert(static_cast<int>(KernelClass::kComm) == TH_CLASS_COMM);
static_assert(static_cast<int>(KernelClass::kOther) == TH_CLASS_OTHER);
static_assert(static_cast<int>(RuleSet::kHta) == TH_RULES_HTA);
static_assert(KernelClassTable::kNoRule == TH_NO_RULE);

HostFacts::HostFacts(const TraceSet& set, KernelClassTable table) : table_(std::move(table)) {
  for (const auto& t : set.traces) {
    // Four independent passes over the trace, side by side.
    NameClasses names;
    GraphCapture capture;
    Launches launches;
    std::vector<uint32_t> gpu_activity;
    tbb::parallel_invoke([&] { names = ClassifyNames(t->graph, table_); },
                         [&] { capture = DetectGraphCapture(t->graph); },
                         [&] { launches = LaunchedEvents(t->graph); },
                         [&] { gpu_activity = GpuActivityEvents(t->graph); });
    names_.push_back(std::move(names));
    launches_.push_back(std::move(launches));
    gpu_activity_.push_back(std::move(gpu_activity));
    const GraphCapture& c = captures_.emplace_back(capture);
    CaptureRow row;
    row.dominates = c.dominates() ? 1 : 0;
    row.hip = c.hip ? 1 : 0;
    row.begin_calls = c.begin_calls;
    row.end_calls = c.end_calls;
    row.instantiations = c.instantiations;
    row.graph_launches = c.graph_launches;
    row.captured_launches = c.captured_launches;
    row.executed_launches = c.executed_launches;
    row.kernels = c.kernels;
    row.first_ts = c.first_ts;
    row.last_end = c.last_end;
    capture_rows_.push_back(row);
  }
  for (const KernelClassRule& r : table_.rules()) {
    rule_set_.push_back(static_cast<uint32_t>(r.set));
    rule_class_.push_back(static_cast<uint32_t>(r.klass));
    rule_ignore_case_.push_back(r.ignore_case ? 1 : 0);
    rule_match_.push_back(r.match.c_str());
    rule_source_.push_back(r.source.c_str());
  }
  for (size_t i = 0; i < set.traces.size(); ++i) {
    TraceTables& catalog = tables_.emplace_back();
    AddGraphTables(*set.traces[i], &catalog);
    AddTables(i, &catalog);
  }
}

void HostFacts::AddTables(size_t trace, TraceTables* tables) const {
  auto schema = [](std::string_view name) -> const TableSchema& {
    const TableSchema* s = CoreTableSchema(name);
    if (!s) throw std::logic_error("no core table " + std::string(name));
    return *s;
  };
  const NameClasses& n = names_[trace];
  tables->Add(schema("name_classes"), n.rule.size(), {n.rule.data(), n.hta_rule.data()});
  tables->Add(schema("class_rules"), rule_set_.size(),
              {rule_set_.data(), rule_class_.data(), rule_ignore_case_.data(), rule_match_.data(),
               rule_source_.data()});
  const CaptureRow& c = capture_rows_[trace];
  tables->Add(
      schema("graph_capture"), 1,
      {&c.dominates, &c.hip, &c.begin_calls, &c.end_calls, &c.instantiations, &c.graph_launches,
       &c.captured_launches, &c.executed_launches, &c.kernels, &c.first_ts, &c.last_end});
  const Launches& l = launches_[trace];
  tables->Add(schema("event_launches"), l.event.size(), {l.event.data(), l.launch.data()});
  const std::vector<uint32_t>& gpu = gpu_activity_[trace];
  tables->Add(schema("gpu_activity"), gpu.size(), {gpu.data()});
}

}  // namespace th
