#include "core/redact/pseudonymizer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/redact/openssl_module.h"

namespace th::redact {

namespace {
constexpr char kHex[] = "0123456789abcdef";

std::string HexPrefix(const std::array<uint8_t, 32>& mac, int digits) {
  std::string out;
  for (int i = 0; i < digits; ++i) {
    uint8_t b = mac[static_cast<size_t>(i / 2)];
    out.push_back(kHex[i % 2 == 0 ? b >> 4 : b & 15]);
  }
  return out;
}

Digest ToDigest(const std::array<uint8_t, 32>& mac) {
  Digest d;
  std::memcpy(&d.hi, mac.data(), 8);
  std::memcpy(&d.lo, mac.data() + 8, 8);
  return d;
}
}  // namespace

std::string_view KeySourceName(KeySource s) {
  switch (s) {
    case KeySource::kRandom:
      return "random";
    case KeySource::kFile:
      return "file";
    case KeySource::kEnvironment:
      return "environment";
  }
  return "?";
}

StatusOr<Pseudonymizer> Pseudonymizer::Create(const std::string& key_file, const char* env_key,
                                              int digits) {
  std::string error;
  const OpenSslApi* crypto = LoadOpenSsl(&error);
  if (!crypto) return Unsupported(error);
  if (!key_file.empty()) {
    std::ifstream in(key_file, std::ios::binary);
    if (!in) return NotFound(key_file + ": cannot read the key file");
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string key = ss.str();
    while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
    if (key.size() < kMinKeyBytes)
      return InvalidInput(key_file + ": the key must be at least " + std::to_string(kMinKeyBytes) +
                          " bytes (e.g. `head -c 32 /dev/urandom | base64 > FILE`)");
    return Pseudonymizer(std::move(key), KeySource::kFile, digits);
  }
  if (env_key) {
    std::string key = env_key;
    if (key.size() < kMinKeyBytes)
      return InvalidInput("TRACEHOUND_REDACT_KEY must be at least " + std::to_string(kMinKeyBytes) +
                          " bytes");
    return Pseudonymizer(std::move(key), KeySource::kEnvironment, digits);
  }
  std::string key(32, '\0');
  if (crypto->rand_bytes(reinterpret_cast<unsigned char*>(key.data()),
                         static_cast<int>(key.size())) != 1)
    return Internal("cannot draw a random redaction key (OpenSSL RAND_bytes failed)");
  return Pseudonymizer(std::move(key), KeySource::kRandom, digits);
}

Pseudonymizer::Pseudonymizer(std::string key, KeySource source, int digits)
    : key_(std::move(key)), source_(source), digits_(digits) {
  std::string error;
  crypto_ = LoadOpenSsl(&error);
  if (!crypto_) {
    // Create() refuses first; a pseudonymizer built directly cannot go on
    // without HMAC (no token may be left unkeyed).
    std::fprintf(stderr, "tracehound: %s\n", error.c_str());
    std::abort();
  }
}

std::array<uint8_t, 32> Pseudonymizer::Mac(std::string_view cls, std::string_view original) const {
  // Message: class, a NUL, the original (a class never holds a NUL, so two
  // (class, original) pairs never give the same message).
  std::string msg;
  msg.reserve(cls.size() + 1 + original.size());
  msg.append(cls);
  msg.push_back('\0');
  msg.append(original);
  std::array<uint8_t, 32> mac{};
  unsigned int len = 0;
  crypto_->hmac(crypto_->evp_sha256(), key_.data(), static_cast<int>(key_.size()),
                reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), mac.data(), &len);
  return mac;
}

std::string Pseudonymizer::Token(std::string_view cls, std::string_view original,
                                 Digest* digest) const {
  auto mac = Mac(cls, original);
  if (digest) *digest = ToDigest(mac);
  std::string out(cls);
  out.push_back('-');
  out += HexPrefix(mac, digits_);
  return out;
}

Digest Pseudonymizer::DigestOf(std::string_view cls, std::string_view original) const {
  return ToDigest(Mac(cls, original));
}

std::string Pseudonymizer::KeyFingerprint() const {
  return HexPrefix(Mac("tracehound-redact-key-fingerprint", ""), 8);
}

}  // namespace th::redact
