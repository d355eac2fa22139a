// Who may ask the server: the access token and the per-client rate bound.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace th::serve {

// True for 127.0.0.0/8, ::1 and "localhost".
bool IsLoopbackAddress(std::string_view address);

// 128 random bits (getrandom) as 32 hex digits.
std::string RandomToken();

// Compares in time independent of where they differ.
bool TokensEqual(std::string_view given, std::string_view expected);

// A token bucket per client address: `per_second` requests a second, up to
// `burst` at once. Thread-safe.
class RateLimiter {
 public:
  RateLimiter(double per_second, double burst) : per_second_(per_second), burst_(burst) {}
  // Takes one request from the client's bucket; false when it is empty.
  bool Allow(const std::string& client);

 private:
  using Clock = std::chrono::steady_clock;
  struct Bucket {
    double tokens = 0;
    Clock::time_point last;
  };
  double per_second_, burst_;
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace th::serve
