// Azure Storage Shared Key authorization (Blob service, version 2009-09-19
// and later): the string to sign (verb, the standard headers in their fixed
// order, canonicalized x-ms-* headers, canonicalized resource) and
// "SharedKey account:base64(HMAC-SHA256(base64-decoded key, string))".
#pragma once

#include <string>

#include "core/import/remote/sigv4.h"

namespace th::remote {

struct AzureRequest {
  std::string method;   // "GET"
  std::string account;  // storage account
  std::string path;     // as sent, URI-encoded: "/container/blob"
  HeaderList query;     // decoded names and values
  HeaderList headers;   // every header sent (x-ms-date, Range, If-Match, ...)
};

std::string AzureStringToSign(const AzureRequest& request);
// "" when the key is not valid base64.
std::string AzureSharedKeyAuthorization(const AzureRequest& request, const std::string& key);

// "Tue, 03 Dec 2026 09:21:54 GMT" for now (x-ms-date).
std::string HttpDateNow();

}  // namespace th::remote
