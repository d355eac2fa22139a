// The openssl module: the libcrypto functions the pseudonymizer calls, handed
// over as one table so that only `tracehound redact` maps libcrypto (the
// largest library tracehound used to load at every start).
#pragma once

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <string>

namespace th::redact {

struct OpenSslApi {
  decltype(&::HMAC) hmac;
  decltype(&::EVP_sha256) evp_sha256;
  decltype(&::RAND_bytes) rand_bytes;
};

// Loads the module on first use (once per process); nullptr with *error
// naming the module and the library that could not be loaded.
const OpenSslApi* LoadOpenSsl(std::string* error);

}  // namespace th::redact

#define TH_OPENSSL_MODULE_ENTRY "th_openssl_module"
