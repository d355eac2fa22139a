// The kernel class table: which GPU activities are communication (COMM),
// computation (COMP) or memory traffic (MEM), decided from their names by
// ordered rules, each saying where it comes from (docs/kernel-classes.md).
//
// Two rule sets live in one table:
// - tracehound: what every analysis uses. A pipeline's `kernel_classes:`
//   rules come first (so they extend or override), then the built-ins. A name
//   no rule matches takes its kind's class: kernel COMP, memcpy/memset MEM.
// - hta: HTA 0.6.1's kernel types, kept apart so that figures documented as
//   "HTA's definition" stay comparable with HTA; a pipeline does not change it.
// First matching rule of a set wins.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace th {

// Values equal TH_CLASS_* of plugin_api.h.
enum class KernelClass : uint8_t { kNone = 0, kComm = 1, kComp = 2, kMem = 3, kOther = 4 };
enum class RuleSet : uint8_t { kTracehound = 0, kHta = 1 };

// "COMM", "COMP", "MEM", "OTHER" ("" for kNone).
std::string_view KernelClassName(KernelClass c);
std::string_view RuleSetName(RuleSet s);  // "tracehound", "hta"

// A name pattern: `*` matches any run of characters (none included), every
// other character itself; the whole name must match ("nccl*" is a prefix,
// "*nccl*" a substring). Linear in practice, O(|pattern| x |name|) at worst.
bool GlobMatch(std::string_view pattern, std::string_view name, bool ignore_case);

struct KernelClassRule {
  RuleSet set = RuleSet::kTracehound;
  std::string match;  // glob
  bool ignore_case = false;
  KernelClass klass = KernelClass::kComp;
  std::string source;  // where the rule comes from: a library, a tool, or a pipeline FILE:LINE

  bool Matches(std::string_view name) const { return GlobMatch(match, name, ignore_case); }
};

// The rules shipped with tracehound, both sets, in match order.
const std::vector<KernelClassRule>& BuiltinKernelClassRules();

class KernelClassTable {
 public:
  // The built-in rules only.
  static const KernelClassTable& Builtin();
  // `pipeline_rules` (set tracehound) before the built-ins.
  static KernelClassTable WithPipelineRules(std::vector<KernelClassRule> pipeline_rules);

  // Every rule, the pipeline's first; indices are stable for the table's life.
  const std::vector<KernelClassRule>& rules() const { return rules_; }
  size_t pipeline_rule_count() const { return pipeline_rules_; }
  // Index of the first rule of `set` matching `name`, or kNoRule.
  uint32_t FirstMatch(RuleSet set, std::string_view name) const;

  static constexpr uint32_t kNoRule = 0xFFFFFFFFu;

 private:
  std::vector<KernelClassRule> rules_;
  size_t pipeline_rules_ = 0;
};

}  // namespace th
