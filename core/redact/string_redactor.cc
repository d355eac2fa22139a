#include "core/redact/string_redactor.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/graph/text_escape.h"

namespace th::redact {

namespace {

struct Features {
  uint32_t slash = 0, backslash = 0, at = 0, dot = 0, colon = 0, dash = 0;
  bool digit = false;
  size_t max_run = 0;  // longest run of [A-Za-z0-9+/_-]
  size_t max_hex = 0;  // longest run of hex digits
};

Features Scan(std::string_view s) {
  Features f;
  size_t run = 0, hex = 0;
  for (char c : s) {
    bool alnum = IsAsciiAlnum(c);
    switch (c) {
      case '/':
        ++f.slash;
        break;
      case '\\':
        ++f.backslash;
        break;
      case '@':
        ++f.at;
        break;
      case '.':
        ++f.dot;
        break;
      case ':':
        ++f.colon;
        break;
      case '-':
        ++f.dash;
        break;
      default:
        if (IsAsciiDigit(c)) f.digit = true;
    }
    if (alnum || c == '+' || c == '/' || c == '_' || c == '-') {
      if (++run > f.max_run) f.max_run = run;
    } else {
      run = 0;
    }
    if (IsHexDigit(c)) {
      if (++hex > f.max_hex) f.max_hex = hex;
    } else {
      hex = 0;
    }
  }
  return f;
}

bool Possible(const Rule& r, const Features& f, size_t size, size_t min_known_host) {
  switch (r.kind) {
    case RuleKind::kPrivateKey:
      return f.dash >= 10;
    case RuleKind::kJwt:
      return f.dot >= 2 && f.max_run >= 10;
    case RuleKind::kTokenPrefix:
      return f.max_run >= r.min_run;
    case RuleKind::kEmail:
      return f.at && f.dot;
    case RuleKind::kIpv4:
      return f.dot >= 3 && f.digit;
    case RuleKind::kIpv6:
      return f.colon >= 2 && f.digit;
    case RuleKind::kHostname:
      return (f.dot && !r.hosts.tlds.empty()) || (!r.hosts.known.empty() && size >= min_known_host);
    case RuleKind::kHomeUser:
    case RuleKind::kPath:
      return f.slash || f.backslash;
    case RuleKind::kEntropy:
      return (r.entropy.alphabet == EntropyAlphabet::kHex ? f.max_hex : f.max_run) >=
             r.entropy.min_length;
    case RuleKind::kRegex:
      return true;
    case RuleKind::kField:
      return false;
  }
  return true;
}

}  // namespace

void RedactionCounts::Merge(const RedactionCounts& o) {
  if (rules.size() < o.rules.size()) rules.resize(o.rules.size());
  for (size_t i = 0; i < o.rules.size(); ++i) {
    rules[i].matches += o.rules[i].matches;
    rules[i].distinct.insert(o.rules[i].distinct.begin(), o.rules[i].distinct.end());
  }
  strings += o.strings;
  strings_changed += o.strings_changed;
  collisions += o.collisions;
  for (const auto& [token, digest] : o.tokens) {
    auto [it, inserted] = tokens.emplace(token, digest);
    if (!inserted && !(it->second == digest)) ++collisions;
  }
}

StringRedactor::StringRedactor(const RuleSet& rules, const Pseudonymizer& pseudonyms)
    : rules_(rules), pseudonyms_(pseudonyms), memo_(rules.rules.size() + 1) {
  counts_.rules.resize(rules.rules.size());
  for (const Rule& r : rules.rules) {
    if (r.kind == RuleKind::kRegex) has_regex_ = true;
    if (r.kind == RuleKind::kHostname)
      for (const std::string& h : r.hosts.known)
        min_known_host_ = std::min(min_known_host_, h.size());
  }
}

bool StringRedactor::MightMatch(std::string_view s) const {
  if (has_regex_) return true;
  Features f = Scan(s);
  for (const Rule& r : rules_.rules)
    if (Possible(r, f, s.size(), min_known_host_)) return true;
  return false;
}

std::string StringRedactor::Pseudonym(size_t rule, std::string_view original) {
  Digest d;
  std::string token = pseudonyms_.Token(rules_.rules[rule].cls, original, &d);
  counts_.rules[rule].distinct.insert(d);
  auto [it, inserted] = counts_.tokens.emplace(token, d);
  if (!inserted && !(it->second == d)) {
    ++counts_.collisions;
    it->second = d;
  }
  return token;
}

StringRedactor::Entry StringRedactor::Compute(std::string_view s, int field_rule) {
  Entry e;
  std::string cur(s);
  if (field_rule >= 0) {
    const Rule& r = rules_.rules[static_cast<size_t>(field_rule)];
    if (!s.empty() && !IsPseudonym(s) && !(r.keep_numeric && IsPlainValue(s))) {
      if (r.action == FieldAction::kDrop) {
        counts_.rules[static_cast<size_t>(field_rule)].distinct.insert(
            pseudonyms_.DigestOf(r.cls, s));
        cur.clear();
      } else {
        cur = Pseudonym(static_cast<size_t>(field_rule), s);
      }
      e.hits.push_back({static_cast<uint32_t>(field_rule), 1});
      e.changed = true;
      e.text = std::move(cur);
      return e;
    }
  }
  Features f = Scan(cur);
  for (size_t i = 0; i < rules_.rules.size(); ++i) {
    const Rule& r = rules_.rules[i];
    if (r.kind == RuleKind::kField || !Possible(r, f, cur.size(), min_known_host_)) continue;
    spans_.clear();
    FindRuleSpans(r, cur, &spans_);
    if (spans_.empty()) continue;
    std::string next;
    next.reserve(cur.size());
    size_t at = 0;
    for (const Span& sp : spans_) {
      next.append(cur, at, sp.begin - at);
      next += Pseudonym(i, std::string_view(cur).substr(sp.begin, sp.end - sp.begin));
      at = sp.end;
    }
    next.append(cur, at, std::string::npos);
    e.hits.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(spans_.size())});
    cur = std::move(next);
    f = Scan(cur);
  }
  e.changed = !e.hits.empty() && cur != s;
  if (e.changed) e.text = std::move(cur);
  if (!e.changed) e.hits.clear();
  return e;
}

size_t StringRedactor::Hash::operator()(std::string_view s) const {
  return static_cast<size_t>(XXH3_64bits(s.data(), s.size()));
}

bool StringRedactor::Apply(std::string_view s, int field_rule, std::string* out, bool count) {
  Entry* e = Lookup(s, field_rule, count);
  if (!e) return false;
  *out = e->text;
  return true;
}

bool StringRedactor::ApplyJson(std::string_view s, int field_rule, std::string_view* json,
                               bool count) {
  Entry* e = Lookup(s, field_rule, count);
  if (!e) return false;
  if (e->json.empty()) AppendJsonString(&e->json, e->text);
  *json = e->json;
  return true;
}

StringRedactor::Entry* StringRedactor::Lookup(std::string_view s, int field_rule, bool count) {
  if (count) ++counts_.strings;
  if (field_rule < 0 && !MightMatch(s)) return nullptr;
  Memo& memo = memo_[static_cast<size_t>(field_rule + 1)];
  auto it = memo.find(s);
  if (it == memo.end()) {
    // Bounded memory: a trace of unique strings clears the memo now and then.
    constexpr size_t kMemoBytes = size_t{64} << 20;
    if (memo_bytes_ > kMemoBytes) {
      for (Memo& m : memo_) m.clear();
      memo_bytes_ = 0;
    }
    Entry e = Compute(s, field_rule);
    memo_bytes_ += s.size() + e.text.size() + 64;
    it = memo.emplace(std::string(s), std::move(e)).first;
  }
  Entry& e = it->second;
  if (!e.changed) return nullptr;
  if (count) {
    ++counts_.strings_changed;
    for (const Hit& h : e.hits) counts_.rules[h.rule].matches += h.matches;
  }
  return &e;
}

void StringRedactor::CountDrop(int field_rule, std::string_view raw) {
  const Rule& r = rules_.rules[static_cast<size_t>(field_rule)];
  counts_.rules[static_cast<size_t>(field_rule)].distinct.insert(pseudonyms_.DigestOf(r.cls, raw));
  counts_.rules[static_cast<size_t>(field_rule)].matches += 1;
  ++counts_.strings_changed;
}

}  // namespace th::redact
