#include "core/import/remote/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

#include "core/graph/utc_time.h"

namespace th::remote {

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return HexEncode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string HexEncode(std::string_view bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return {};
  std::string out(3 * text.size() / 4, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return {};
  size_t pad = 0;
  for (size_t i = text.size(); i > 0 && text[i - 1] == '=' && pad < 2; --i) ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

std::string UriEncode(std::string_view s, bool keep_slash) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
        (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Trimmed, inner runs of spaces collapsed to one.
std::string CanonicalValue(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::map<std::string, std::string> CanonicalHeaderMap(const HeaderList& headers) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : headers) {
    std::string& v = out[Lower(name)];
    if (!v.empty()) v += ',';
    v += CanonicalValue(value);
  }
  return out;
}

std::string Scope(const SigV4Scope& scope) {
  return scope.amz_date.substr(0, 8) + "/" + scope.region + "/" + scope.service + "/aws4_request";
}

}  // namespace

std::string CanonicalQuery(const HeaderList& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  for (const auto& [name, value] : query)
    encoded.emplace_back(UriEncode(name, false), UriEncode(value, false));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out += '&';
    out += name + "=" + value;
  }
  return out;
}

std::string SignedHeaders(const SigV4Request& request) {
  std::string out;
  for (const auto& [name, value] : CanonicalHeaderMap(request.headers)) {
    if (!out.empty()) out += ';';
    out += name;
  }
  return out;
}

std::string CanonicalRequest(const SigV4Request& request) {
  std::string headers;
  for (const auto& [name, value] : CanonicalHeaderMap(request.headers))
    headers += name + ":" + value + "\n";
  return request.method + "\n" + (request.path.empty() ? "/" : request.path) + "\n" +
         CanonicalQuery(request.query) + "\n" + headers + "\n" + SignedHeaders(request) + "\n" +
         request.payload_sha256;
}

std::string StringToSign(const SigV4Request& request, const SigV4Scope& scope) {
  return "AWS4-HMAC-SHA256\n" + scope.amz_date + "\n" + Scope(scope) + "\n" +
         Sha256Hex(CanonicalRequest(request));
}

std::string Signature(const SigV4Request& request, const SigV4Scope& scope) {
  std::string key = HmacSha256("AWS4" + scope.secret_key, scope.amz_date.substr(0, 8));
  key = HmacSha256(key, scope.region);
  key = HmacSha256(key, scope.service);
  key = HmacSha256(key, "aws4_request");
  return HexEncode(HmacSha256(key, StringToSign(request, scope)));
}

std::string AuthorizationHeader(const SigV4Request& request, const SigV4Scope& scope) {
  return "AWS4-HMAC-SHA256 Credential=" + scope.access_key + "/" + Scope(scope) +
         ", SignedHeaders=" + SignedHeaders(request) + ", Signature=" + Signature(request, scope);
}

std::string AmzDateNow() { return FormatUtcNow("%Y%m%dT%H%M%SZ"); }

}  // namespace th::remote
