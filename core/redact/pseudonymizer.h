// Pseudonyms: a keyed HMAC-SHA256 of (class, original) written as
// "<class>-<hex>" ("user-3f9a2c1b"). The same original gets the same token for
// the whole run (every file, every rank); with the same key, across runs. The
// key is never written anywhere; the report names where it came from and a
// fingerprint that tells two keys apart without revealing either.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/graph/status.h"

namespace th::redact {

struct OpenSslApi;

// 128 bits of a keyed digest: what the report counts distinct originals by
// (the originals themselves are never kept).
struct Digest {
  uint64_t hi = 0, lo = 0;
  bool operator==(const Digest&) const = default;
};
struct DigestHash {
  size_t operator()(const Digest& d) const {
    return static_cast<size_t>(d.lo ^ (d.hi * 0x9e3779b97f4a7c15ULL));
  }
};

enum class KeySource { kRandom, kFile, kEnvironment };
std::string_view KeySourceName(KeySource s);

class Pseudonymizer {
 public:
  // Keys shorter than this are refused (a guessable key would let anyone
  // test candidate originals against the tokens).
  static constexpr size_t kMinKeyBytes = 16;

  // --key-file F, else $TRACEHOUND_REDACT_KEY (`env_key`, nullptr when
  // unset), else 32 random bytes. A key file's trailing newline is not key.
  static StatusOr<Pseudonymizer> Create(const std::string& key_file, const char* env_key,
                                        int digits);
  Pseudonymizer(std::string key, KeySource source, int digits);

  // "<cls>-<digits hex>" for `original`, and the digest behind it.
  std::string Token(std::string_view cls, std::string_view original,
                    Digest* digest = nullptr) const;
  // The digest alone (distinct counts of values that get no token).
  Digest DigestOf(std::string_view cls, std::string_view original) const;

  KeySource source() const { return source_; }
  int digits() const { return digits_; }
  // 8 hex digits derived from the key (not from any trace text).
  std::string KeyFingerprint() const;

 private:
  std::array<uint8_t, 32> Mac(std::string_view cls, std::string_view original) const;
  std::string key_;
  KeySource source_;
  int digits_;
  const OpenSslApi* crypto_;  // loaded by the constructor, valid for the process
};

}  // namespace th::redact
