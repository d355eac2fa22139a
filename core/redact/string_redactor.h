// StringRedactor: applies a RuleSet to one string at a time and counts what
// it replaced. One per thread (not thread-safe); counts are merged at the end.
//
// Each rule, in file order, finds spans in the current text and replaces each
// by the pseudonym of the span's text; later rules see earlier replacements.
// A field rule (the value of a named key) replaces the whole value first.
// Results are memoised per distinct string (traces repeat their strings), so
// a string costs one hash lookup after its first occurrence.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/redact/pseudonymizer.h"
#include "core/redact/redact_rules.h"

namespace th::redact {

struct RuleCount {
  int64_t matches = 0;                              // replacements made (each occurrence counts)
  std::unordered_set<Digest, DigestHash> distinct;  // distinct originals, by keyed digest
};

struct RedactionCounts {
  std::vector<RuleCount> rules;  // by rule index in the RuleSet
  int64_t strings = 0;           // strings looked at
  int64_t strings_changed = 0;   // strings some rule changed
  // Tokens given to two different originals (the same class and hex prefix):
  // they would merge two names. More digits (pseudonym_digits) make it rarer.
  std::unordered_map<std::string, Digest> tokens;
  int64_t collisions = 0;

  void Merge(const RedactionCounts& other);
};

class StringRedactor {
 public:
  StringRedactor(const RuleSet& rules, const Pseudonymizer& pseudonyms);

  // Applies the rules to `s` (decoded text). `field_rule`: the kField rule for
  // the key this value belongs to, or -1. Returns true when s changed, the new
  // text in *out. count=false: the same answer without counting (a first pass
  // that only measures sizes).
  bool Apply(std::string_view s, int field_rule, std::string* out, bool count = true);
  // The same, the new text as a JSON string literal (quotes included),
  // encoded once per distinct string.
  bool ApplyJson(std::string_view s, int field_rule, std::string_view* json, bool count = true);
  // A value dropped by a field rule that is not a string (object, array,
  // number): counted by a digest of its raw text.
  void CountDrop(int field_rule, std::string_view raw);

  const RuleSet& rules() const { return rules_; }
  RedactionCounts& counts() { return counts_; }
  const Pseudonymizer& pseudonyms() const { return pseudonyms_; }

 private:
  struct Hit {
    uint32_t rule;
    uint32_t matches;
  };
  struct Entry {
    bool changed = false;
    std::string text;
    std::string json;  // text as a JSON literal, made on first use
    std::vector<Hit> hits;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const;
  };
  struct Eq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  using Memo = std::unordered_map<std::string, Entry, Hash, Eq>;

  // Could any rule match s? (a one-pass look at its characters)
  bool MightMatch(std::string_view s) const;
  // The memo entry of s when some rule changes it (counted), else nullptr.
  Entry* Lookup(std::string_view s, int field_rule, bool count);
  bool RulePossible(const Rule& r, std::string_view s) const;
  Entry Compute(std::string_view s, int field_rule);
  std::string Pseudonym(size_t rule, std::string_view original);

  const RuleSet& rules_;
  const Pseudonymizer& pseudonyms_;
  RedactionCounts counts_;
  std::vector<Memo> memo_;  // [field rule + 1]
  size_t memo_bytes_ = 0;
  std::vector<Span> spans_;
  size_t min_known_host_ = SIZE_MAX;
  bool has_regex_ = false;
};

}  // namespace th::redact
