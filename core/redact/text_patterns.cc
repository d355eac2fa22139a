#include "core/redact/text_patterns.h"

#include <arpa/inet.h>

#include <algorithm>

namespace th::redact {

namespace {

// Appends `span` unless it is a pseudonym already.
void Add(std::string_view s, Span span, std::vector<Span>* out) {
  if (span.end <= span.begin) return;
  if (IsPseudonym(s.substr(span.begin, span.end - span.begin))) return;
  out->push_back(span);
}

constexpr CharSet Base64UrlChars() {
  CharSet c;
  for (char x = 'a'; x <= 'z'; ++x) c.Add(static_cast<uint8_t>(x));
  for (char x = 'A'; x <= 'Z'; ++x) c.Add(static_cast<uint8_t>(x));
  for (char x = '0'; x <= '9'; ++x) c.Add(static_cast<uint8_t>(x));
  c.Add('-');
  c.Add('_');
  return c;
}

// Characters that end a path (or a home directory's user segment). A space
// is handled by the callers.
bool IsPathDelimiter(char c) {
  switch (c) {
    case '"':
    case '\'':
    case '`':
    case '(':
    case ')':
    case '<':
    case '>':
    case '|':
    case ';':
    case ',':
    case ':':
    case '*':
    case '?':
    case '=':
    case '[':
    case ']':
    case '{':
    case '}':
      return true;
    default:
      return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  }
}
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// What may stand before a path's first separator.
bool CanPrecedePath(char c) {
  switch (c) {
    case '"':
    case '\'':
    case '`':
    case '(':
    case '[':
    case '{':
    case '<':
    case '=':
    case ',':
    case ';':
    case ':':
    case '|':
    case '$':  // XProf's Python tracer: "$/path/file.py:12 fn"
      return true;
    default:
      return IsSpace(c);
  }
}

// End of a path-like word starting at `from`: path characters; a space is
// included when a separator `sep` follows before the next space or delimiter
// and the word after the space does not start a new path.
size_t PathEnd(std::string_view s, size_t from, char sep) {
  size_t i = from;
  const size_t n = s.size();
  while (i < n) {
    char c = s[i];
    if (IsPathDelimiter(c)) break;
    if (c == ' ') {
      size_t j = i + 1;
      if (j >= n || s[j] == sep || s[j] == ' ') break;
      bool sep_follows = false;
      for (size_t k = j; k < n && s[k] != ' ' && !IsPathDelimiter(s[k]) && !IsSpace(s[k]); ++k) {
        if (s[k] == sep) {
          sep_follows = true;
          break;
        }
      }
      if (!sep_follows) break;
      i = j;
      continue;
    }
    if (IsSpace(c)) break;
    ++i;
  }
  return i;
}

bool IsHostChar(char c) { return IsAsciiAlnum(c) || c == '-' || c == '.'; }

bool IsLabel(std::string_view l) {
  if (l.empty() || l.size() > 63 || l.front() == '-' || l.back() == '-') return false;
  for (char c : l)
    if (!IsAsciiAlnum(c) && c != '-') return false;
  return true;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

}  // namespace

bool IsPseudonym(std::string_view s) {
  size_t dash = s.find('-');
  if (dash == std::string_view::npos || dash == 0) return false;
  if (!IsAsciiLower(s[0])) return false;
  for (size_t i = 1; i < dash; ++i)
    if (!IsAsciiLower(s[i]) && !IsAsciiDigit(s[i])) return false;
  size_t digits = s.size() - dash - 1;
  if (digits < 8 || digits > 64) return false;
  for (size_t i = dash + 1; i < s.size(); ++i)
    if (!IsAsciiDigit(s[i]) && !(s[i] >= 'a' && s[i] <= 'f')) return false;
  return true;
}

void FindPrivateKeyBlocks(std::string_view s, std::vector<Span>* out) {
  constexpr std::string_view kBegin = "-----BEGIN ";
  constexpr std::string_view kEnd = "-----END ";
  constexpr std::string_view kDashes = "-----";
  constexpr std::string_view kKey = "PRIVATE KEY";
  size_t from = 0;
  while (true) {
    size_t b = s.find(kBegin, from);
    if (b == std::string_view::npos) return;
    size_t label_end = s.find(kDashes, b + kBegin.size());
    if (label_end == std::string_view::npos) return;
    std::string_view label = s.substr(b + kBegin.size(), label_end - b - kBegin.size());
    if (label.size() < kKey.size() || label.substr(label.size() - kKey.size()) != kKey ||
        label.find('\n') != std::string_view::npos) {
      from = b + 1;
      continue;
    }
    size_t e = s.find(kEnd, label_end + kDashes.size());
    size_t stop = s.size();
    if (e != std::string_view::npos) {
      size_t close = s.find(kDashes, e + kEnd.size());
      if (close != std::string_view::npos) stop = close + kDashes.size();
    }
    Add(s, {b, stop}, out);
    from = stop;
  }
}

void FindJwts(std::string_view s, std::vector<Span>* out) {
  static constexpr CharSet kB64 = Base64UrlChars();
  size_t from = 0;
  while (true) {
    size_t b = s.find("eyJ", from);
    if (b == std::string_view::npos) return;
    from = b + 1;
    if (b > 0 && (kB64.Has(s[b - 1]) || s[b - 1] == '.')) continue;
    size_t i = b;
    size_t part_len[3] = {0, 0, 0};
    int part = 0;
    for (; i < s.size(); ++i) {
      if (kB64.Has(s[i])) {
        ++part_len[part];
      } else if (s[i] == '.' && part < 2) {
        ++part;
      } else {
        break;
      }
    }
    if (part < 2 || part_len[0] < 10 || part_len[1] < 10) continue;
    Add(s, {b, i}, out);
    from = i;
  }
}

void FindPrefixedTokens(std::string_view s, const std::vector<TokenPattern>& patterns,
                        std::vector<Span>* out) {
  const size_t first = out->size();
  for (const TokenPattern& p : patterns) {
    if (p.prefix.empty()) continue;
    size_t from = 0;
    while (true) {
      size_t b = s.find(p.prefix, from);
      if (b == std::string_view::npos) break;
      from = b + 1;
      if (b > 0 && IsAsciiAlnum(s[b - 1])) continue;
      size_t i = b + p.prefix.size();
      while (i < s.size() && p.body.Has(s[i])) ++i;
      size_t body = i - b - p.prefix.size();
      if (body < p.min_body || (p.max_body && body > p.max_body)) continue;
      Add(s, {b, i}, out);
      from = i;
    }
  }
  // Patterns may overlap ("sk-" and "sk-proj-"): keep the first, longest.
  std::vector<Span> found(out->begin() + static_cast<std::ptrdiff_t>(first), out->end());
  out->resize(first);
  MergeSpans(&found);
  out->insert(out->end(), found.begin(), found.end());
}

void FindEmails(std::string_view s, std::vector<Span>* out) {
  auto local_char = [](char c) {
    return IsAsciiAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
  };
  size_t from = 0;
  while (true) {
    size_t at = s.find('@', from);
    if (at == std::string_view::npos) return;
    from = at + 1;
    size_t b = at;
    while (b > 0 && local_char(s[b - 1])) --b;
    while (b < at && s[b] == '.') ++b;
    if (b == at) continue;
    // A user part already replaced ("secret-3f9a2c1b@host", after
    // url-credentials): the domain is left to the host name rule.
    if (IsPseudonym(s.substr(b, at - b))) continue;
    size_t e = at + 1;
    while (e < s.size() && IsHostChar(s[e])) ++e;
    while (e > at + 1 && (s[e - 1] == '.' || s[e - 1] == '-')) --e;
    std::string_view domain = s.substr(at + 1, e - at - 1);
    size_t last_dot = domain.rfind('.');
    if (last_dot == std::string_view::npos || last_dot == 0) continue;
    std::string_view tld = domain.substr(last_dot + 1);
    if (tld.size() < 2 || !std::all_of(tld.begin(), tld.end(), IsAsciiAlpha)) continue;
    bool labels_ok = true;
    size_t start = 0;
    while (start <= domain.size()) {
      size_t dot = domain.find('.', start);
      if (dot == std::string_view::npos) dot = domain.size();
      if (!IsLabel(domain.substr(start, dot - start))) labels_ok = false;
      start = dot + 1;
    }
    if (!labels_ok) continue;
    Add(s, {b, e}, out);
    from = e;
  }
}

void FindIpv4(std::string_view s, std::vector<Span>* out) {
  const size_t n = s.size();
  for (size_t i = 0; i < n; ++i) {
    if (!IsAsciiDigit(s[i])) continue;
    if (i > 0 && (IsAsciiAlnum(s[i - 1]) || s[i - 1] == '.' || s[i - 1] == '_')) {
      while (i + 1 < n && (IsAsciiAlnum(s[i + 1]) || s[i + 1] == '.')) ++i;
      continue;
    }
    size_t j = i;
    int octets = 0;
    bool ok = true;
    while (octets < 4) {
      size_t d = j;
      int value = 0;
      while (j < n && IsAsciiDigit(s[j]) && j - d < 4) value = value * 10 + (s[j++] - '0');
      if (j == d || j - d > 3 || value > 255) {
        ok = false;
        break;
      }
      ++octets;
      if (octets < 4) {
        if (j >= n || s[j] != '.') {
          ok = false;
          break;
        }
        ++j;
      }
    }
    bool longer = j < n && (IsAsciiAlnum(s[j]) || s[j] == '_' ||
                            (s[j] == '.' && j + 1 < n && IsAsciiDigit(s[j + 1])));
    bool version = (i > 0 && s[i - 1] == '=') || s[i] == '0' ||
                   (j + 1 < n && s[j] == '-' && IsAsciiDigit(s[j + 1]));
    if (ok && !longer && !version) {
      Add(s, {i, j}, out);
      i = j - 1;
      continue;
    }
    while (i + 1 < n && (IsAsciiAlnum(s[i + 1]) || s[i + 1] == '.')) ++i;
  }
}

void FindIpv6(std::string_view s, std::vector<Span>* out) {
  const size_t n = s.size();
  auto v6_char = [](char c) { return IsHexDigit(c) || c == ':' || c == '.'; };
  for (size_t i = 0; i < n;) {
    if (!v6_char(s[i])) {
      ++i;
      continue;
    }
    size_t b = i;
    while (i < n && v6_char(s[i])) ++i;
    size_t e = i;
    if ((b > 0 && (IsAsciiAlnum(s[b - 1]) || s[b - 1] == '_')) ||
        (e < n && (IsAsciiAlnum(s[e]) || s[e] == '_')))
      continue;
    while (e > b && s[e - 1] == '.') --e;
    std::string_view cand = s.substr(b, e - b);
    if (cand.size() < 3 || cand.size() > 45) continue;
    int colons = 0, groups = 0;
    bool digit = false, in_group = false;
    for (char c : cand) {
      if (c == ':') {
        ++colons;
        in_group = false;
      } else {
        if (!in_group) ++groups;
        in_group = true;
        if (IsAsciiDigit(c)) digit = true;
      }
    }
    if (colons < 2 || groups < 3 || !digit) continue;
    std::string text(cand);
    in6_addr addr;
    if (inet_pton(AF_INET6, text.c_str(), &addr) != 1) continue;
    Add(s, {b, e}, out);
  }
}

void FindHostnames(std::string_view s, const HostPatterns& patterns, std::vector<Span>* out) {
  const size_t first = out->size();
  const size_t n = s.size();
  // Known names, case-insensitively, as whole labels.
  if (!patterns.known.empty()) {
    std::string lower = Lower(s);
    for (const std::string& host : patterns.known) {
      if (host.empty()) continue;
      size_t from = 0;
      while (true) {
        size_t b = lower.find(host, from);
        if (b == std::string::npos) break;
        from = b + 1;
        size_t e = b + host.size();
        if (b > 0 && (IsAsciiAlnum(s[b - 1]) || s[b - 1] == '-' || s[b - 1] == '.')) continue;
        if (e < n && (IsAsciiAlnum(s[e]) || s[e] == '-')) continue;
        Add(s, {b, e}, out);
        from = e;
      }
    }
  }
  // Fully qualified names with a known top-level domain.
  if (!patterns.tlds.empty()) {
    for (size_t i = 0; i < n;) {
      if (!IsHostChar(s[i])) {
        ++i;
        continue;
      }
      size_t b = i;
      while (i < n && IsHostChar(s[i])) ++i;
      size_t e = i;
      if ((b > 0 && s[b - 1] == '_') || (e < n && (s[e] == '_' || s[e] == '('))) continue;
      while (e > b && (s[e - 1] == '.' || s[e - 1] == '-')) --e;
      while (b < e && (s[b] == '.' || s[b] == '-')) ++b;
      std::string_view run = s.substr(b, e - b);
      if (run.find('.') == std::string_view::npos) continue;
      std::vector<std::string_view> labels;
      size_t start = 0;
      while (start <= run.size()) {
        size_t dot = run.find('.', start);
        if (dot == std::string_view::npos) dot = run.size();
        labels.push_back(run.substr(start, dot - start));
        start = dot + 1;
      }
      // The host is labels[0..k], k the last label in tlds such that every
      // label after it is a file suffix.
      size_t k = labels.size();
      for (size_t j = labels.size(); j-- > 1;) {
        std::string l = Lower(labels[j]);
        if (patterns.tlds.count(l) && std::all_of(l.begin(), l.end(), IsAsciiAlpha)) {
          k = j;
          break;
        }
        if (!patterns.file_suffixes.count(l)) break;
      }
      if (k == labels.size()) continue;
      bool ok = true;
      for (size_t j = 0; j <= k; ++j) ok = ok && IsLabel(labels[j]);
      if (!ok) continue;
      size_t host_end = static_cast<size_t>(labels[k].data() + labels[k].size() - s.data());
      Add(s, {b, host_end}, out);
    }
  }
  std::vector<Span> found(out->begin() + static_cast<std::ptrdiff_t>(first), out->end());
  out->resize(first);
  MergeSpans(&found);
  out->insert(out->end(), found.begin(), found.end());
}

void FindHomeUsers(std::string_view s, const HomePatterns& patterns, std::vector<Span>* out) {
  const size_t first = out->size();
  for (const std::string& prefix : patterns.prefixes) {
    if (prefix.empty()) continue;
    const char sep = prefix.back();
    size_t from = 0;
    while (true) {
      size_t p = s.find(prefix, from);
      if (p == std::string_view::npos) break;
      size_t b = p + prefix.size();
      size_t e = PathEnd(s, b, sep);
      size_t slash = s.find(sep, b);
      if (slash != std::string_view::npos && slash < e) e = slash;
      from = std::max(b, e);
      if (e == b) continue;
      std::string_view user = s.substr(b, e - b);
      if (patterns.keep.count(std::string(user))) continue;
      Add(s, {b, e}, out);
    }
  }
  std::vector<Span> found(out->begin() + static_cast<std::ptrdiff_t>(first), out->end());
  out->resize(first);
  MergeSpans(&found);
  out->insert(out->end(), found.begin(), found.end());
}

void FindPrivatePaths(std::string_view s, const PathPatterns& patterns, std::vector<Span>* out) {
  const size_t n = s.size();
  for (size_t i = 0; i < n; ++i) {
    char sep;
    size_t first_sep;
    if (s[i] == '/') {
      sep = '/';
      first_sep = i;
      if (i + 1 >= n || s[i + 1] == '/' || IsPathDelimiter(s[i + 1]) || IsSpace(s[i + 1])) continue;
    } else if (IsAsciiAlpha(s[i]) && i + 2 < n && s[i + 1] == ':' && s[i + 2] == '\\') {
      sep = '\\';
      first_sep = i + 2;
    } else {
      continue;
    }
    if (i > 0 && !CanPrecedePath(s[i - 1])) {
      // Inside a word ("jit(f)/while/body", "a/b"): skip the rest of the word.
      while (i + 1 < n && !IsSpace(s[i + 1]) && !IsPathDelimiter(s[i + 1])) ++i;
      continue;
    }
    size_t e = PathEnd(s, first_sep + 1, sep);
    while (e > first_sep + 1 && s[e - 1] == '.') --e;
    size_t last_sep = s.rfind(sep, e - 1);
    const size_t path_begin = i;
    i = e - 1;
    if (last_sep == std::string_view::npos || last_sep <= first_sep) continue;  // one component
    std::string_view path = s.substr(path_begin, e - path_begin);
    bool is_public = false;
    for (const std::string& marker : patterns.public_markers)
      if (!marker.empty() && path.find(marker) != std::string_view::npos) is_public = true;
    for (const std::string& prefix : patterns.public_prefixes)
      if (!prefix.empty() && path.substr(0, prefix.size()) == prefix) is_public = true;
    if (is_public) continue;
    Add(s, {path_begin, patterns.keep_basename ? last_sep : e}, out);
  }
}

void MergeSpans(std::vector<Span>* spans) {
  std::sort(spans->begin(), spans->end(), [](const Span& a, const Span& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  std::vector<Span> kept;
  for (const Span& sp : *spans) {
    if (!kept.empty() && sp.begin < kept.back().end) continue;
    kept.push_back(sp);
  }
  *spans = std::move(kept);
}

}  // namespace th::redact
