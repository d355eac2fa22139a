#include "core/graph/name_classes.h"

namespace th {

KernelClass DefaultKernelClass(RuleSet set, EventKind kind) {
  if (!IsClassifiedKind(kind)) return KernelClass::kNone;
  if (set == RuleSet::kHta) return KernelClass::kComp;
  switch (kind) {
    case EventKind::kKernel:
      return KernelClass::kComp;
    case EventKind::kMemcpy:
    case EventKind::kMemset:
      return KernelClass::kMem;
    default:
      return KernelClass::kOther;
  }
}

NameClasses ClassifyNames(const EventGraph& graph, const KernelClassTable& table) {
  const size_t strings = graph.strings.size();
  NameClasses out;
  out.rule.assign(strings, KernelClassTable::kNoRule);
  out.hta_rule.assign(strings, KernelClassTable::kNoRule);
  std::vector<bool> seen(strings, false);
  const EventColumns& e = graph.events;
  // The kind first: the name is read of GPU events only.
  for (size_t i = 0; i < e.size(); ++i) {
    if (!IsClassifiedKind(e.kind[i])) continue;
    const StringId name = e.name[i];
    if (name >= strings || seen[name]) continue;
    seen[name] = true;
    const std::string_view text = graph.strings.Get(name);
    out.rule[name] = table.FirstMatch(RuleSet::kTracehound, text);
    out.hta_rule[name] = table.FirstMatch(RuleSet::kHta, text);
  }
  return out;
}

KernelClass ClassOfEvent(const EventGraph& graph, const KernelClassTable& table,
                         const NameClasses& names, RuleSet set, EventId e) {
  const EventKind kind = graph.events.kind[e];
  if (!IsClassifiedKind(kind)) return KernelClass::kNone;
  const StringId name = graph.events.name[e];
  const std::vector<uint32_t>& rules = set == RuleSet::kHta ? names.hta_rule : names.rule;
  const uint32_t r = name < rules.size() ? rules[name] : KernelClassTable::kNoRule;
  return r != KernelClassTable::kNoRule ? table.rules()[r].klass : DefaultKernelClass(set, kind);
}

}  // namespace th
