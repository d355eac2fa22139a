#include "core/serve/serve_access.h"

#include <sys/random.h>

#include <algorithm>
#include <cstdint>
#include <random>

namespace th::serve {

bool IsLoopbackAddress(std::string_view address) {
  return address == "localhost" || address == "::1" || address == "[::1]" ||
         address.starts_with("127.");
}

std::string RandomToken() {
  unsigned char bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got < sizeof bytes) {  // no getrandom: the OS's other source
    std::random_device rd;
    for (unsigned char& b : bytes) b = static_cast<unsigned char>(rd());
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

bool TokensEqual(std::string_view given, std::string_view expected) {
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i)
    diff |= static_cast<unsigned char>(expected[i] ^ (i < given.size() ? given[i] : 0));
  return diff == 0;
}

bool RateLimiter::Allow(const std::string& client) {
  const Clock::time_point now = Clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  if (buckets_.size() > 65536) buckets_.clear();  // a bound on memory, not on clients
  auto [it, added] = buckets_.try_emplace(client, Bucket{burst_, now});
  Bucket& b = it->second;
  if (!added) {
    const double seconds = std::chrono::duration<double>(now - b.last).count();
    b.tokens = std::min(burst_, b.tokens + seconds * per_second_);
    b.last = now;
  }
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

}  // namespace th::serve
