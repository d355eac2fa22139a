// Finders for the kinds of sensitive text `tracehound redact` replaces: each
// takes one decoded string and appends the spans to replace, in order and
// without overlap. They are hand-written scanners (no backtracking regex), so
// their cost is linear in the string whatever it holds.
//
// None of them matches a pseudonym ("user-3f9a2c1b"): redacting a redacted
// trace again changes nothing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/redact/char_set.h"

namespace th::redact {

struct Span {
  size_t begin = 0, end = 0;
  bool operator==(const Span&) const = default;
};

// "<class>-<8 to 64 lowercase hex digits>", the whole string.
bool IsPseudonym(std::string_view s);

// PEM private key blocks, "-----BEGIN ... PRIVATE KEY-----" through the
// matching "-----END ... PRIVATE KEY-----" (or the end of the string when the
// block is cut short).
void FindPrivateKeyBlocks(std::string_view s, std::vector<Span>* out);

// JSON Web Tokens: eyJ<base64url>.<base64url>.<base64url>, the first two
// parts at least 10 characters each.
void FindJwts(std::string_view s, std::vector<Span>* out);

// A known token prefix ("ghp_", "AKIA", "sk-") and its body: `min_body` to
// `max_body` (0: no limit) characters of `body`. The prefix must not follow a
// letter or digit; a body longer than max_body is no match.
struct TokenPattern {
  std::string prefix;
  CharSet body;
  size_t min_body = 0;
  size_t max_body = 0;
};
void FindPrefixedTokens(std::string_view s, const std::vector<TokenPattern>& patterns,
                        std::vector<Span>* out);

// local@domain.tld: the usual local-part characters, a domain of at least two
// labels whose last is at least two letters.
void FindEmails(std::string_view s, std::vector<Span>* out);

// Dotted-quad IPv4 addresses (octets <= 255), not inside a longer dotted
// number or word, and not a version: after '=' ("pkg==1.11.1.4"), before
// "-<digit>" ("12.8.4.1-1"), or with a first octet of 0 ("0.10.9.9").
void FindIpv4(std::string_view s, std::vector<Span>* out);

// IPv6 addresses (validated by inet_pton) with at least three groups and a
// digit, so C++ scopes such as "c10::bf16" are not taken for one.
void FindIpv6(std::string_view s, std::vector<Span>* out);

// Host names: names listed in `known` (case-insensitive, whole labels), and
// fully qualified names of at least two labels whose last label is in `tlds`
// (lower case). A name may be followed by file suffixes in `file_suffixes`
// ("host.example.com.xplane.pb" holds the host "host.example.com"). A name
// that is part of an identifier (next to '_') or called ("x.com(") is not one.
struct HostPatterns {
  std::unordered_set<std::string> tlds;
  std::unordered_set<std::string> file_suffixes;
  std::vector<std::string> known;  // lower case
};
void FindHostnames(std::string_view s, const HostPatterns& patterns, std::vector<Span>* out);

// The user segment of home directories: after a prefix such as "/home/",
// "/Users/" or "\Users\" up to the next separator. `keep` lists segments that
// are no user ("Shared").
struct HomePatterns {
  std::vector<std::string> prefixes;
  std::unordered_set<std::string> keep;
};
void FindHomeUsers(std::string_view s, const HomePatterns& patterns, std::vector<Span>* out);

// Absolute paths ("/a/b/c.py", "C:\a\b.py") with at least two components,
// whose text holds no public marker ("/site-packages/") and starts with no
// public prefix ("/usr/"). The span is
// the directory part (up to the last separator) when keep_basename, else the
// whole path. A path starts at the string's start or after a space, quote,
// bracket or one of =,;:| and ends at a delimiter; a space inside a path is
// kept when a separator follows in the same word ("/srv/My Project/x.py").
struct PathPatterns {
  std::vector<std::string> public_markers;   // anywhere in the path
  std::vector<std::string> public_prefixes;  // at its start ("/usr/")
  bool keep_basename = true;
};
void FindPrivatePaths(std::string_view s, const PathPatterns& patterns, std::vector<Span>* out);

// Nothing is appended when spans of several finders overlap: MergeSpans sorts
// and keeps, of overlapping spans, the one that starts first (the longer on a tie).
void MergeSpans(std::vector<Span>* spans);

}  // namespace th::redact
