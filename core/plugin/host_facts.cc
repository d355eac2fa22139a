#include "core/plugin/host_facts.h"

#include <utility>

namespace th {

static_assert(static_cast<int>(KernelClass::kComm) == TH_CLASS_COMM);
static_assert(static_cast<int>(KernelClass::kOther) == TH_CLASS_OTHER);
static_assert(static_cast<int>(RuleSet::kHta) == TH_RULES_HTA);
static_assert(KernelClassTable::kNoRule == TH_NO_RULE);

HostFacts::HostFacts(const TraceSet& set, KernelClassTable table) : table_(std::move(table)) {
  for (const auto& t : set.traces) {
    names_.push_back(ClassifyNames(t->graph, table_));
    captures_.push_back(DetectGraphCapture(t->graph));
  }
  for (const KernelClassRule& r : table_.rules()) {
    th_class_rule c{};
    c.struct_size = sizeof c;
    c.rule_set = static_cast<uint32_t>(r.set);
    c.klass = static_cast<uint32_t>(r.klass);
    c.ignore_case = r.ignore_case ? 1 : 0;
    c.match = r.match.c_str();
    c.source = r.source.c_str();
    c_rules_.push_back(c);
  }
}

}  // namespace th
