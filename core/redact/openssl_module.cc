// The openssl module's entry: libcrypto's functions, linked here and nowhere
// else in tracehound.
#include "core/redact/openssl_module.h"

extern "C" __attribute__((visibility("default"))) const th::redact::OpenSslApi*
th_openssl_module() {
  static const th::redact::OpenSslApi api{&::HMAC, &::EVP_sha256, &::RAND_bytes};
  return &api;
}
