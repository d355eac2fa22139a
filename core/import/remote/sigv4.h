// AWS Signature Version 4 (header form) over OpenSSL's SHA-256 and HMAC:
// canonical request, string to sign, signing key, Authorization header. Used
// for S3 and for S3-compatible stores (GCS's XML API with HMAC keys).
// Checked against requests of AWS's published SigV4 test suite
// (tests/core/import/remote/sigv4_test.cc).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace th::remote {

// Lowercase hex of SHA-256(data).
std::string Sha256Hex(std::string_view data);
// Raw 32-byte HMAC-SHA256(key, data).
std::string HmacSha256(std::string_view key, std::string_view data);
std::string HexEncode(std::string_view bytes);
// Standard base64 (with padding) and its inverse ("" when malformed).
std::string Base64Encode(std::string_view bytes);
std::string Base64Decode(std::string_view text);

// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters
// (A-Z a-z 0-9 - . _ ~) kept, every other byte %XX (uppercase); '/' kept when
// keep_slash (object keys in paths).
std::string UriEncode(std::string_view s, bool keep_slash);

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct SigV4Request {
  std::string method;          // "GET"
  std::string path;            // URI-encoded once, as sent ("/bucket/a%20b")
  HeaderList query;            // decoded names and values, any order
  HeaderList headers;          // every header to sign (host and x-amz-date included)
  std::string payload_sha256;  // hex, or "UNSIGNED-PAYLOAD"
};

struct SigV4Scope {
  std::string access_key, secret_key;
  std::string region, service;  // "us-east-1", "s3"
  std::string amz_date;         // "20150830T123600Z" (UTC)
};

// The canonical request (headers lowercased, values trimmed and inner runs of
// spaces collapsed, repeated names joined with ','; query sorted by encoded
// name then value).
std::string CanonicalRequest(const SigV4Request& request);
// "host;x-amz-date": the lowercased, sorted, unique header names.
std::string SignedHeaders(const SigV4Request& request);
std::string StringToSign(const SigV4Request& request, const SigV4Scope& scope);
// Hex signature over StringToSign.
std::string Signature(const SigV4Request& request, const SigV4Scope& scope);
// "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...".
std::string AuthorizationHeader(const SigV4Request& request, const SigV4Scope& scope);

// The query string as sent: names and values UriEncode'd, in canonical order.
std::string CanonicalQuery(const HeaderList& query);

// "20150830T123600Z" for the current UTC time.
std::string AmzDateNow();

}  // namespace th::remote
