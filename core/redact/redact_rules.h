// The rules of `tracehound redact`: what text is sensitive and how it is
// replaced. Read from YAML (configs/redact.yaml ships the defaults; docs/redact.md
// documents every kind and option); applied in file order to every string of a
// trace by StringRedactor.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/graph/status.h"
#include "core/redact/entropy.h"
#include "core/redact/text_patterns.h"

namespace re2 {
class RE2;
}

namespace th::redact {

enum class RuleKind {
  kPrivateKey,   // PEM private key blocks
  kJwt,          // JSON Web Tokens
  kTokenPrefix,  // known token prefixes: ghp_, glpat-, xoxb-, AKIA, sk-, hf_, ...
  kEmail,
  kIpv4,
  kIpv6,
  kHostname,  // FQDNs with a known TLD, listed names, names learned from the traces
  kHomeUser,  // the user segment of /home/<u>/, /Users/<u>/, C:\Users\<u>\ .
  kPath,      // absolute paths' directories outside public trees
  kEntropy,   // high-entropy base64 / hex tokens
  kRegex,     // a user pattern (RE2 syntax)
  kField,     // the values of named keys (JSON object keys, XStat names)
};
std::string_view RuleKindName(RuleKind kind);

// What a field rule does with the values of its keys.
enum class FieldAction { kPseudonymize, kDrop };

struct Rule {
  std::string id;  // kebab-case, unique, stable (the report's key)
  RuleKind kind = RuleKind::kRegex;
  std::string cls;  // pseudonym class: "user" makes "user-3f9a2c1b"

  std::vector<TokenPattern> tokens;       // kTokenPrefix
  HostPatterns hosts;                     // kHostname (known: listed + learned)
  HomePatterns home;                      // kHomeUser
  PathPatterns paths;                     // kPath
  EntropyPatterns entropy;                // kEntropy
  std::shared_ptr<const re2::RE2> regex;  // kRegex
  int regex_group = 0;                    // kRegex: the group replaced (0: the whole match)
  std::vector<std::string> keys;          // kField
  FieldAction action = FieldAction::kPseudonymize;
  bool learn_hosts = false;  // kField: its values are host names to find everywhere
  // kField: values that are only numbers, True/False/None and the brackets
  // and commas of lists of them ("[14, 14]", "1e-05") are kept (IsPlainValue).
  bool keep_numeric = false;

  // The shortest base64-ish run a match can be (prefilter), 0 when unknown.
  size_t min_run = 0;
};

struct RuleSet {
  std::string name;  // where the rules came from ("redact.yaml"), for the report
  int pseudonym_digits = 8;
  // JSON keys whose values are copied untouched, with everything inside.
  std::unordered_set<std::string> keep_keys;
  std::vector<Rule> rules;
  std::vector<std::string> disabled;  // ids of rules with enabled: false
  // kField rules by key.
  std::unordered_map<std::string, int> field_rules;

  // Adds host names found in the inputs (XSpace hostnames, learned fields)
  // to every kHostname rule.
  void AddKnownHosts(const std::vector<std::string>& hosts);
  // The kField rule that applies to the values of `key`, or -1.
  int FieldRuleFor(std::string_view key) const;
};

// Reads rules from YAML text; errors name `name`:line:column.
StatusOr<RuleSet> ParseRules(const std::string& text, const std::string& name);
StatusOr<RuleSet> LoadRules(const std::string& path);

// Whether `s` holds only numbers, True / False / None, and the brackets,
// parentheses, commas and blanks of lists of them (a shape, a stride, a
// scalar), which carry no user data; "" is not plain.
bool IsPlainValue(std::string_view s);

// Appends the spans rule `r` replaces in s (none for kField: those replace
// whole values, decided by the caller).
void FindRuleSpans(const Rule& r, std::string_view s, std::vector<Span>* out);

}  // namespace th::redact
