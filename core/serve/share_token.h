// Share tokens: read-only access to the runs a token names, until its
// expiry, signed with the server's key.
//
//   token  = base64url(claims) "." base64url(HMAC-SHA256(key, base64url(claims)))
//   claims = {"v":1,"id":ID,"runs":[KEY,...],"exp":UNIX_S,"scope":"read"}
//
// ID is 128 random bits (32 hex digits) that revocation names; each KEY is a
// run's content key (32 hex digits: the XXH3-128 of its input's files), so a
// token names the same trace across restarts and argument orders and can
// never name another. base64url has no padding. The signature is checked in
// constant time (CRYPTO_memcmp) before the claims are read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/status.h"
#include "core/serve/http_module.h"

namespace th::serve {

inline constexpr size_t kShareKeyBytes = 32;
inline constexpr size_t kMaxShareRuns = 64;

struct ShareClaims {
  std::string id;                 // 32 lowercase hex digits
  std::vector<std::string> runs;  // content keys, 32 lowercase hex digits each
  int64_t expires_unix_s = 0;
  std::string scope = "read";
};

std::string Base64UrlEncode(std::string_view bytes);
// Nullopt when `text` holds a character outside the alphabet or a bad length.
std::optional<std::string> Base64UrlDecode(std::string_view text);

// True for exactly 32 lowercase hex digits.
bool IsHex32(std::string_view text);

// "2026-12-09T18:00:00Z".
std::string UtcTime(int64_t unix_s);

std::string ClaimsJson(const ShareClaims& claims);
// Strict: every field present with its type, nothing else, ids and keys hex.
StatusOr<ShareClaims> ParseClaimsJson(std::string_view json);

StatusOr<std::string> SignShareToken(const ServeCrypto& crypto, std::string_view key,
                                     const ShareClaims& claims);

// The claims of a token whose signature is not checked (to revoke it).
StatusOr<ShareClaims> ReadUnverifiedClaims(std::string_view token);

enum class ShareCheck { kOk, kMalformed, kBadSignature, kExpired, kRevoked };

struct ShareVerdict {
  ShareCheck check = ShareCheck::kMalformed;
  ShareClaims claims;   // set when kOk or kExpired
  std::string message;  // why it is refused
};

// Checks form, signature (constant time) and expiry against `now_unix_s`.
ShareVerdict VerifyShareToken(const ServeCrypto& crypto, std::string_view key,
                              std::string_view token, int64_t now_unix_s);

}  // namespace th::serve
