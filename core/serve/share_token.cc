#include "core/serve/share_token.h"

#include <simdjson.h>
#include <time.h>

#include <array>

#include "core/graph/utc_time.h"

namespace th::serve {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int Sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

StatusOr<std::string> StringField(simdjson::dom::object obj, const char* name) {
  std::string_view v;
  if (obj[name].get_string().get(v) != simdjson::SUCCESS)
    return InvalidInput(std::string("claims: \"") + name + "\" is missing or not a string");
  return std::string(v);
}

// The claims part and the signature part of a token, split at its one '.'.
bool SplitToken(std::string_view token, std::string_view* claims, std::string_view* mac) {
  const size_t dot = token.find('.');
  if (dot == std::string_view::npos || token.find('.', dot + 1) != std::string_view::npos)
    return false;
  *claims = token.substr(0, dot);
  *mac = token.substr(dot + 1);
  return !claims->empty() && !mac->empty();
}

}  // namespace

std::string Base64UrlEncode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = static_cast<uint8_t>(bytes[i]) << 16 |
                       static_cast<uint8_t>(bytes[i + 1]) << 8 | static_cast<uint8_t>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    if (rest == 2) out.push_back(kAlphabet[(v >> 6) & 63]);
  }
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const int s = Sextet(c);
    if (s < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(s);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  if ((acc & ((1u << bits) - 1)) != 0) return std::nullopt;  // one text per byte string
  return out;
}

bool IsHex32(std::string_view text) {
  if (text.size() != 32) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string UtcTime(int64_t unix_s) {
  const std::string text = FormatUtc(static_cast<std::time_t>(unix_s), "%Y-%m-%dT%H:%M:%SZ");
  return text.empty() ? std::to_string(unix_s) + " (unix seconds)" : text;
}

std::string ClaimsJson(const ShareClaims& claims) {
  // Every string is hex or "read": nothing to escape.
  std::string out = "{\"v\":1,\"id\":\"" + claims.id + "\",\"runs\":[";
  for (size_t i = 0; i < claims.runs.size(); ++i) out += (i ? ",\"" : "\"") + claims.runs[i] + "\"";
  out +=
      "],\"exp\":" + std::to_string(claims.expires_unix_s) + ",\"scope\":\"" + claims.scope + "\"}";
  return out;
}

StatusOr<ShareClaims> ParseClaimsJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(json.data(), json.size()).get(obj) != simdjson::SUCCESS)
    return InvalidInput("claims: not a JSON object");
  if (obj.size() != 5) return InvalidInput("claims: expected exactly v, id, runs, exp and scope");
  int64_t version = 0;
  if (obj["v"].get_int64().get(version) != simdjson::SUCCESS || version != 1)
    return InvalidInput("claims: \"v\" is not 1");
  ShareClaims c;
  auto id = StringField(obj, "id");
  if (!id.ok()) return id.status();
  if (!IsHex32(*id)) return InvalidInput("claims: \"id\" is not 32 hex digits");
  c.id = *id;
  simdjson::dom::array runs;
  if (obj["runs"].get_array().get(runs) != simdjson::SUCCESS)
    return InvalidInput("claims: \"runs\" is missing or not an array");
  for (simdjson::dom::element run : runs) {
    std::string_view key;
    if (run.get_string().get(key) != simdjson::SUCCESS || !IsHex32(key))
      return InvalidInput("claims: a run is not a content key (32 hex digits)");
    c.runs.emplace_back(key);
  }
  if (c.runs.empty() || c.runs.size() > kMaxShareRuns)
    return InvalidInput("claims: \"runs\" must name 1 to " + std::to_string(kMaxShareRuns));
  if (obj["exp"].get_int64().get(c.expires_unix_s) != simdjson::SUCCESS)
    return InvalidInput("claims: \"exp\" is missing or not an integer");
  auto scope = StringField(obj, "scope");
  if (!scope.ok()) return scope.status();
  if (*scope != "read") return InvalidInput("claims: \"scope\" is not \"read\"");
  c.scope = *scope;
  return c;
}

StatusOr<std::string> SignShareToken(const ServeCrypto& crypto, std::string_view key,
                                     const ShareClaims& claims) {
  const std::string body = Base64UrlEncode(ClaimsJson(claims));
  std::array<unsigned char, 32> mac{};
  if (!crypto.hmac_sha256(reinterpret_cast<const unsigned char*>(key.data()), key.size(),
                          reinterpret_cast<const unsigned char*>(body.data()), body.size(),
                          mac.data()))
    return Internal("share token: HMAC-SHA256 failed (OpenSSL)");
  return body + "." +
         Base64UrlEncode(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
}

StatusOr<ShareClaims> ReadUnverifiedClaims(std::string_view token) {
  std::string_view body, mac;
  if (!SplitToken(token, &body, &mac)) return InvalidInput("token: not CLAIMS.SIGNATURE");
  auto json = Base64UrlDecode(body);
  if (!json) return InvalidInput("token: the claims are not base64url");
  return ParseClaimsJson(*json);
}

ShareVerdict VerifyShareToken(const ServeCrypto& crypto, std::string_view key,
                              std::string_view token, int64_t now_unix_s) {
  ShareVerdict v;
  std::string_view body, mac_text;
  if (!SplitToken(token, &body, &mac_text)) {
    v.message = "token: not a share token";
    return v;
  }
  auto given = Base64UrlDecode(mac_text);
  std::array<unsigned char, 32> expected{};
  if (!given || given->size() != expected.size()) {
    v.message = "token: not a share token";
    return v;
  }
  if (!crypto.hmac_sha256(reinterpret_cast<const unsigned char*>(key.data()), key.size(),
                          reinterpret_cast<const unsigned char*>(body.data()), body.size(),
                          expected.data()) ||
      !crypto.equal(expected.data(), reinterpret_cast<const unsigned char*>(given->data()),
                    expected.size())) {
    v.check = ShareCheck::kBadSignature;
    v.message = "token: the signature does not match this server's key";
    return v;
  }
  auto claims = ReadUnverifiedClaims(token);
  if (!claims.ok()) {
    v.message = "token: " + claims.status().message();
    return v;
  }
  v.claims = std::move(*claims);
  if (v.claims.expires_unix_s <= now_unix_s) {
    v.check = ShareCheck::kExpired;
    v.message =
        "token: this link expired at " + UtcTime(v.claims.expires_unix_s) + "; ask for a new one";
    return v;
  }
  v.check = ShareCheck::kOk;
  return v;
}

}  // namespace th::serve
