#include "core/redact/redact_rules.h"

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "core/graph/text_escape.h"

namespace th::redact {

namespace {

// ---------------------------------------------------------------------------
// Reading YAML with marks: every error names file:line:column.

class Reader {
 public:
  explicit Reader(std::string name) : name_(std::move(name)) {}

  Status Error(const YAML::Mark& m, const std::string& what) const {
    return InvalidInput(name_ + ":" + std::to_string(std::max(m.line, 0) + 1) + ":" +
                        std::to_string(std::max(m.column, 0) + 1) + ": " + what);
  }
  // Bounds the work on a hostile file (aliases are shared, not copied, by
  // yaml-cpp; walking them is what costs).
  Status Visit(const YAML::Node& n) {
    if (++nodes_ > kMaxNodes)
      return Error(n.Mark(), "the rules expand to more than " + std::to_string(kMaxNodes) +
                                 " values (an alias bomb?)");
    return Ok();
  }

  Status String(const YAML::Node& n, const std::string& what, std::string* out) {
    TH_RETURN_IF_ERROR(Visit(n));
    if (!n.IsScalar()) return Error(n.Mark(), what + " must be a string");
    *out = n.Scalar();
    return Ok();
  }
  Status Bool(const YAML::Node& n, const std::string& what, bool* out) {
    std::string s;
    TH_RETURN_IF_ERROR(String(n, what, &s));
    if (s == "true" || s == "yes" || s == "on") {
      *out = true;
    } else if (s == "false" || s == "no" || s == "off") {
      *out = false;
    } else {
      return Error(n.Mark(), what + " must be true or false, not '" + PrintableBytes(s) + "'");
    }
    return Ok();
  }
  Status Number(const YAML::Node& n, const std::string& what, double lo, double hi, double* out) {
    std::string s;
    TH_RETURN_IF_ERROR(String(n, what, &s));
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != 0 || !std::isfinite(v))
      return Error(n.Mark(), what + " must be a number, not '" + PrintableBytes(s) + "'");
    if (v < lo || v > hi) {
      std::ostringstream range;
      range << what << " must be between " << lo << " and " << hi;
      return Error(n.Mark(), range.str());
    }
    *out = v;
    return Ok();
  }
  Status Integer(const YAML::Node& n, const std::string& what, int64_t lo, int64_t hi,
                 int64_t* out) {
    double v;
    TH_RETURN_IF_ERROR(Number(n, what, static_cast<double>(lo), static_cast<double>(hi), &v));
    if (v != std::floor(v)) return Error(n.Mark(), what + " must be a whole number");
    *out = static_cast<int64_t>(v);
    return Ok();
  }
  Status StringList(const YAML::Node& n, const std::string& what, std::vector<std::string>* out) {
    TH_RETURN_IF_ERROR(Visit(n));
    if (!n.IsSequence()) return Error(n.Mark(), what + " must be a list of strings");
    for (const YAML::Node& item : n) {
      std::string s;
      TH_RETURN_IF_ERROR(String(item, what + " entry", &s));
      out->push_back(std::move(s));
    }
    return Ok();
  }
  // The entries of a map in file order; duplicate keys are an error.
  Status Entries(const YAML::Node& n, const std::string& what,
                 std::vector<std::pair<std::string, YAML::Node>>* out) {
    TH_RETURN_IF_ERROR(Visit(n));
    if (!n.IsMap()) return Error(n.Mark(), what + " must be a mapping");
    std::set<std::string> seen;
    for (const auto& kv : n) {
      if (!kv.first.IsScalar()) return Error(kv.first.Mark(), "a key must be a plain string");
      std::string key = kv.first.Scalar();
      if (!seen.insert(key).second)
        return Error(kv.first.Mark(), "duplicate key '" + PrintableBytes(key) + "'");
      out->emplace_back(std::move(key), kv.second);
    }
    return Ok();
  }
  Status Unknown(const YAML::Node& key_node, const std::string& key,
                 const std::vector<std::string>& valid, const std::string& where) {
    std::string list;
    for (const std::string& v : valid) list += (list.empty() ? "" : ", ") + v;
    return Error(key_node.Mark(), "unknown key '" + PrintableBytes(key) + "' in " + where +
                                      " (valid: " + list + ")");
  }

 private:
  static constexpr int64_t kMaxNodes = 100000;
  std::string name_;
  int64_t nodes_ = 0;
};

struct KindInfo {
  std::string_view name;
  RuleKind kind;
  std::string_view default_class;
  std::vector<std::string> options;  // besides id, kind, class, enabled
};

const std::vector<KindInfo>& Kinds() {
  static const std::vector<KindInfo> kinds = {
      {"private_key", RuleKind::kPrivateKey, "secret", {}},
      {"jwt", RuleKind::kJwt, "secret", {}},
      {"token_prefix", RuleKind::kTokenPrefix, "secret", {"tokens"}},
      {"email", RuleKind::kEmail, "email", {}},
      {"ipv4", RuleKind::kIpv4, "ip", {}},
      {"ipv6", RuleKind::kIpv6, "ip", {}},
      {"hostname", RuleKind::kHostname, "host", {"tlds", "file_suffixes", "hosts"}},
      {"home_user", RuleKind::kHomeUser, "user", {"prefixes", "keep_users"}},
      {"path", RuleKind::kPath, "path", {"public_markers", "public_prefixes", "keep_basename"}},
      {"entropy",
       RuleKind::kEntropy,
       "secret",
       {"alphabet", "min_length", "margin_bits", "max_word_fraction"}},
      {"regex", RuleKind::kRegex, "text", {"pattern"}},
      {"field", RuleKind::kField, "text", {"keys", "action", "learn_hosts", "keep_numeric"}},
  };
  return kinds;
}

bool IsKebab(std::string_view s) {
  if (s.empty() || !IsAsciiLower(s.front()) || s.back() == '-') return false;
  for (char c : s)
    if (!IsAsciiLower(c) && !IsAsciiDigit(c) && c != '-') return false;
  return s.find("--") == std::string_view::npos;
}

bool IsClassName(std::string_view s) {
  if (s.empty() || s.size() > 16 || !IsAsciiLower(s.front())) return false;
  for (char c : s)
    if (!IsAsciiLower(c) && !IsAsciiDigit(c)) return false;
  return true;
}

std::string Lower(std::string s) {
  for (char& c : s) c = AsciiLower(c);
  return s;
}

Status ParseTokens(Reader& r, const YAML::Node& n, Rule* rule) {
  TH_RETURN_IF_ERROR(r.Visit(n));
  if (!n.IsSequence() || n.size() == 0)
    return r.Error(n.Mark(), "tokens must be a non-empty list of {prefix, chars, min, max}");
  for (const YAML::Node& item : n) {
    std::vector<std::pair<std::string, YAML::Node>> entries;
    TH_RETURN_IF_ERROR(r.Entries(item, "a token", &entries));
    TokenPattern p;
    std::string chars = "A-Za-z0-9";
    int64_t min = 16, max = 0;
    for (auto& [key, value] : entries) {
      if (key == "prefix") {
        TH_RETURN_IF_ERROR(r.String(value, "prefix", &p.prefix));
        if (p.prefix.empty()) return r.Error(value.Mark(), "prefix must not be empty");
      } else if (key == "chars") {
        TH_RETURN_IF_ERROR(r.String(value, "chars", &chars));
      } else if (key == "min") {
        TH_RETURN_IF_ERROR(r.Integer(value, "min", 1, 4096, &min));
      } else if (key == "max") {
        TH_RETURN_IF_ERROR(r.Integer(value, "max", 0, 1 << 20, &max));
      } else {
        return r.Unknown(item, key, {"prefix", "chars", "min", "max"}, "a token");
      }
    }
    if (p.prefix.empty()) return r.Error(item.Mark(), "a token needs a prefix");
    auto set = CharSet::Parse(chars);
    if (!set)
      return r.Error(item.Mark(), "chars '" + PrintableBytes(chars) + "' is not a range spec");
    if (max && max < min) return r.Error(item.Mark(), "max is smaller than min");
    p.body = *set;
    p.min_body = static_cast<size_t>(min);
    p.max_body = static_cast<size_t>(max);
    rule->tokens.push_back(std::move(p));
  }
  return Ok();
}

Status ParseRule(Reader& r, const YAML::Node& n, RuleSet* set) {
  std::vector<std::pair<std::string, YAML::Node>> entries;
  TH_RETURN_IF_ERROR(r.Entries(n, "a rule", &entries));
  Rule rule;
  const KindInfo* info = nullptr;
  bool enabled = true, has_id = false;
  for (auto& [key, value] : entries) {
    if (key == "kind") {
      std::string kind;
      TH_RETURN_IF_ERROR(r.String(value, "kind", &kind));
      for (const KindInfo& k : Kinds())
        if (k.name == kind) info = &k;
      if (!info) {
        std::string valid;
        for (const KindInfo& k : Kinds())
          valid += (valid.empty() ? "" : ", ") + std::string(k.name);
        return r.Error(value.Mark(),
                       "unknown rule kind '" + PrintableBytes(kind) + "' (valid: " + valid + ")");
      }
    } else if (key == "id") {
      TH_RETURN_IF_ERROR(r.String(value, "id", &rule.id));
      if (!IsKebab(rule.id))
        return r.Error(value.Mark(),
                       "id '" + PrintableBytes(rule.id) + "' must be kebab-case (a-z, 0-9, '-')");
      has_id = true;
    }
  }
  if (!has_id) return r.Error(n.Mark(), "a rule needs an id");
  if (!info) return r.Error(n.Mark(), "rule '" + rule.id + "' needs a kind");
  for (const Rule& other : set->rules)
    if (other.id == rule.id) return r.Error(n.Mark(), "two rules have the id '" + rule.id + "'");
  rule.kind = info->kind;
  rule.cls = std::string(info->default_class);
  // Defaults of each kind's options (docs/redact.md).
  rule.paths.keep_basename = true;
  const std::string where = "rule '" + rule.id + "' (kind " + std::string(info->name) + ")";
  std::vector<std::string> valid = {"id", "kind", "class", "enabled"};
  valid.insert(valid.end(), info->options.begin(), info->options.end());
  for (auto& [key, value] : entries) {
    if (key == "id" || key == "kind") continue;
    if (std::find(valid.begin(), valid.end(), key) == valid.end()) {
      for (const auto& kv : n)
        if (kv.first.IsScalar() && kv.first.Scalar() == key)
          return r.Unknown(kv.first, key, valid, where);
    }
    if (key == "class") {
      TH_RETURN_IF_ERROR(r.String(value, "class", &rule.cls));
      if (!IsClassName(rule.cls))
        return r.Error(value.Mark(), "class '" + PrintableBytes(rule.cls) +
                                         "' must be lower-case letters and digits (at most 16)");
    } else if (key == "enabled") {
      TH_RETURN_IF_ERROR(r.Bool(value, "enabled", &enabled));
    } else if (key == "tokens") {
      TH_RETURN_IF_ERROR(ParseTokens(r, value, &rule));
    } else if (key == "tlds" || key == "file_suffixes" || key == "hosts") {
      std::vector<std::string> list;
      TH_RETURN_IF_ERROR(r.StringList(value, key, &list));
      for (std::string& s : list) {
        s = Lower(s);
        if (key == "tlds") rule.hosts.tlds.insert(s);
        if (key == "file_suffixes") rule.hosts.file_suffixes.insert(s);
        if (key == "hosts" && !s.empty()) rule.hosts.known.push_back(s);
      }
    } else if (key == "prefixes") {
      TH_RETURN_IF_ERROR(r.StringList(value, key, &rule.home.prefixes));
      for (const std::string& p : rule.home.prefixes)
        if (p.size() < 2 || (p.back() != '/' && p.back() != '\\'))
          return r.Error(value.Mark(), "a prefix must end with its separator ('/' or '\\')");
    } else if (key == "keep_users") {
      std::vector<std::string> list;
      TH_RETURN_IF_ERROR(r.StringList(value, key, &list));
      rule.home.keep.insert(list.begin(), list.end());
    } else if (key == "public_markers") {
      TH_RETURN_IF_ERROR(r.StringList(value, key, &rule.paths.public_markers));
    } else if (key == "public_prefixes") {
      TH_RETURN_IF_ERROR(r.StringList(value, key, &rule.paths.public_prefixes));
    } else if (key == "keep_basename") {
      TH_RETURN_IF_ERROR(r.Bool(value, key, &rule.paths.keep_basename));
    } else if (key == "alphabet") {
      std::string a;
      TH_RETURN_IF_ERROR(r.String(value, key, &a));
      if (a == "base64") {
        rule.entropy.alphabet = EntropyAlphabet::kBase64;
      } else if (a == "hex") {
        rule.entropy.alphabet = EntropyAlphabet::kHex;
      } else {
        return r.Error(value.Mark(), "alphabet must be base64 or hex");
      }
    } else if (key == "min_length") {
      int64_t v;
      TH_RETURN_IF_ERROR(r.Integer(value, key, 8, 4096, &v));
      rule.entropy.min_length = static_cast<size_t>(v);
    } else if (key == "margin_bits") {
      TH_RETURN_IF_ERROR(r.Number(value, key, 0, 8, &rule.entropy.margin_bits));
    } else if (key == "max_word_fraction") {
      TH_RETURN_IF_ERROR(r.Number(value, key, 0, 1, &rule.entropy.max_word_fraction));
    } else if (key == "pattern") {
      std::string pattern;
      TH_RETURN_IF_ERROR(r.String(value, key, &pattern));
      RE2::Options o;
      o.set_log_errors(false);
      o.set_max_mem(64 << 20);
      auto re = std::make_shared<RE2>(pattern, o);
      if (!re->ok())
        return r.Error(value.Mark(),
                       "pattern does not compile (RE2 syntax): " + PrintableBytes(re->error()));
      auto named = re->NamedCapturingGroups();
      auto it = named.find("value");
      rule.regex_group = it == named.end() ? 0 : it->second;
      rule.regex = std::move(re);
    } else if (key == "keys") {
      TH_RETURN_IF_ERROR(r.StringList(value, key, &rule.keys));
    } else if (key == "action") {
      std::string a;
      TH_RETURN_IF_ERROR(r.String(value, key, &a));
      if (a == "pseudonymize" || a == "pseudonymise") {
        rule.action = FieldAction::kPseudonymize;
      } else if (a == "drop") {
        rule.action = FieldAction::kDrop;
      } else {
        return r.Error(value.Mark(), "action must be pseudonymize or drop");
      }
    } else if (key == "learn_hosts") {
      TH_RETURN_IF_ERROR(r.Bool(value, key, &rule.learn_hosts));
    } else if (key == "keep_numeric") {
      TH_RETURN_IF_ERROR(r.Bool(value, key, &rule.keep_numeric));
    }
  }
  switch (rule.kind) {
    case RuleKind::kTokenPrefix:
      if (rule.tokens.empty()) return r.Error(n.Mark(), where + " needs tokens");
      rule.min_run = SIZE_MAX;
      for (const TokenPattern& p : rule.tokens)
        rule.min_run = std::min(rule.min_run, p.prefix.size() + p.min_body);
      break;
    case RuleKind::kHostname:
      if (rule.hosts.tlds.empty() && rule.hosts.known.empty())
        return r.Error(n.Mark(), where + " needs tlds or hosts");
      break;
    case RuleKind::kHomeUser:
      if (rule.home.prefixes.empty()) return r.Error(n.Mark(), where + " needs prefixes");
      break;
    case RuleKind::kRegex:
      if (!rule.regex) return r.Error(n.Mark(), where + " needs a pattern");
      break;
    case RuleKind::kField:
      if (rule.keys.empty()) return r.Error(n.Mark(), where + " needs keys");
      if (rule.learn_hosts && rule.action == FieldAction::kDrop)
        return r.Error(n.Mark(), where + ": learn_hosts needs action pseudonymize");
      break;
    case RuleKind::kEntropy:
      rule.min_run = rule.entropy.min_length;
      break;
    default:
      break;
  }
  if (!enabled) {
    set->disabled.push_back(rule.id);
    return Ok();
  }
  if (rule.kind == RuleKind::kField) {
    for (const std::string& key : rule.keys) {
      if (set->field_rules.count(key))
        return r.Error(n.Mark(), "key '" + PrintableBytes(key) + "' is in two field rules");
      set->field_rules[key] = static_cast<int>(set->rules.size());
    }
  }
  set->rules.push_back(std::move(rule));
  return Ok();
}

}  // namespace

std::string_view RuleKindName(RuleKind kind) {
  for (const KindInfo& k : Kinds())
    if (k.kind == kind) return k.name;
  return "?";
}

void RuleSet::AddKnownHosts(const std::vector<std::string>& hosts) {
  for (Rule& r : rules) {
    if (r.kind != RuleKind::kHostname) continue;
    for (const std::string& h : hosts) {
      std::string l = Lower(h);
      if (l.empty() || IsPseudonym(l)) continue;
      if (std::find(r.hosts.known.begin(), r.hosts.known.end(), l) == r.hosts.known.end())
        r.hosts.known.push_back(std::move(l));
    }
    // Longer names first: "a.b.example.com" before "example.com".
    std::stable_sort(
        r.hosts.known.begin(), r.hosts.known.end(),
        [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  }
}

bool IsPlainValue(std::string_view s) {
  bool any = false;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '[' || c == ']' || c == '(' || c == ')' || c == ',' || c == ' ') {
      ++i;
      continue;
    }
    size_t j = i;  // a token: a number or a word
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' ||
                            s[j] == '-' || s[j] == '+'))
      ++j;
    if (j == i) return false;
    const std::string token(s.substr(i, j - i));
    if (token != "True" && token != "False" && token != "None") {
      char* end = nullptr;
      std::strtod(token.c_str(), &end);
      if (end != token.c_str() + token.size() ||
          !std::isdigit(static_cast<unsigned char>(token[token[0] == '-' || token[0] == '+'])))
        return false;
    }
    any = true;
    i = j;
  }
  return any;
}

int RuleSet::FieldRuleFor(std::string_view key) const {
  if (field_rules.empty()) return -1;
  auto it = field_rules.find(std::string(key));
  return it == field_rules.end() ? -1 : it->second;
}

StatusOr<RuleSet> ParseRules(const std::string& text, const std::string& name) {
  Reader r(name);
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return r.Error(e.mark, "invalid YAML: " + PrintableBytes(e.msg));
  }
  RuleSet set;
  set.name = name;
  try {
    std::vector<std::pair<std::string, YAML::Node>> entries;
    TH_RETURN_IF_ERROR(r.Entries(doc, "the rules file", &entries));
    bool has_rules = false, has_version = false;
    for (auto& [key, value] : entries) {
      if (key == "version") {
        int64_t v;
        TH_RETURN_IF_ERROR(r.Integer(value, "version", 1, 1, &v));
        has_version = true;
      } else if (key == "pseudonym_digits") {
        int64_t v;
        TH_RETURN_IF_ERROR(r.Integer(value, "pseudonym_digits", 8, 64, &v));
        set.pseudonym_digits = static_cast<int>(v);
      } else if (key == "keep_keys") {
        std::vector<std::string> list;
        TH_RETURN_IF_ERROR(r.StringList(value, key, &list));
        set.keep_keys.insert(list.begin(), list.end());
      } else if (key == "rules") {
        has_rules = true;
        TH_RETURN_IF_ERROR(r.Visit(value));
        if (!value.IsSequence()) return r.Error(value.Mark(), "rules must be a list");
        for (const YAML::Node& rule : value) TH_RETURN_IF_ERROR(ParseRule(r, rule, &set));
      } else {
        for (const auto& kv : doc)
          if (kv.first.IsScalar() && kv.first.Scalar() == key)
            return r.Unknown(kv.first, key, {"version", "pseudonym_digits", "keep_keys", "rules"},
                             "the rules file");
      }
    }
    if (!has_version) return r.Error(doc.Mark(), "the rules file needs 'version: 1'");
    if (!has_rules) return r.Error(doc.Mark(), "the rules file needs a 'rules' list");
    for (const std::string& key : set.keep_keys)
      if (set.field_rules.count(key))
        return r.Error(doc.Mark(),
                       "key '" + PrintableBytes(key) + "' is both kept and in a field rule");
  } catch (const YAML::Exception& e) {
    return r.Error(e.mark, "invalid rules: " + PrintableBytes(e.msg));
  }
  return set;
}

StatusOr<RuleSet> LoadRules(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot read the rules file");
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > (4 << 20)) return InvalidInput(path + ": rules file larger than 4 MiB");
  return ParseRules(text.str(), path);
}

void FindRuleSpans(const Rule& r, std::string_view s, std::vector<Span>* out) {
  switch (r.kind) {
    case RuleKind::kPrivateKey:
      FindPrivateKeyBlocks(s, out);
      return;
    case RuleKind::kJwt:
      FindJwts(s, out);
      return;
    case RuleKind::kTokenPrefix:
      FindPrefixedTokens(s, r.tokens, out);
      return;
    case RuleKind::kEmail:
      FindEmails(s, out);
      return;
    case RuleKind::kIpv4:
      FindIpv4(s, out);
      return;
    case RuleKind::kIpv6:
      FindIpv6(s, out);
      return;
    case RuleKind::kHostname:
      FindHostnames(s, r.hosts, out);
      return;
    case RuleKind::kHomeUser:
      FindHomeUsers(s, r.home, out);
      return;
    case RuleKind::kPath:
      FindPrivatePaths(s, r.paths, out);
      return;
    case RuleKind::kEntropy:
      FindHighEntropy(s, r.entropy, out);
      return;
    case RuleKind::kRegex: {
      const RE2& re = *r.regex;
      const int groups = r.regex_group + 1;
      std::vector<re2::StringPiece> m(static_cast<size_t>(groups));
      size_t pos = 0;
      const size_t first = out->size();
      while (pos <= s.size()) {
        if (!re.Match(re2::StringPiece(s.data(), s.size()), pos, s.size(), RE2::UNANCHORED,
                      m.data(), groups))
          break;
        const re2::StringPiece& whole = m[0];
        const re2::StringPiece& g = m[static_cast<size_t>(r.regex_group)];
        size_t end = static_cast<size_t>(whole.data() - s.data()) + whole.size();
        if (g.data() && !g.empty()) {
          size_t b = static_cast<size_t>(g.data() - s.data());
          std::string_view text(g.data(), g.size());
          if (!IsPseudonym(text)) out->push_back({b, b + g.size()});
        }
        pos = end > pos ? end : pos + 1;
      }
      std::vector<Span> found(out->begin() + static_cast<std::ptrdiff_t>(first), out->end());
      out->resize(first);
      MergeSpans(&found);
      out->insert(out->end(), found.begin(), found.end());
      return;
    }
    case RuleKind::kField:
      return;
  }
}

}  // namespace th::redact
