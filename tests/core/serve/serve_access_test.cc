// Access: loopback addresses, random tokens, token comparison, and the
// per-client token bucket.
#include "core/serve/serve_access.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

namespace th::serve {
namespace {

TEST(ServeAccessTest, LoopbackAddresses) {
  for (const char* a : {"127.0.0.1", "127.1.2.3", "::1", "localhost"})
    EXPECT_TRUE(IsLoopbackAddress(a)) << a;
  for (const char* a : {"0.0.0.0", "10.0.0.1", "::", "192.168.1.1", "128.0.0.1", ""})
    EXPECT_FALSE(IsLoopbackAddress(a)) << a;
}

TEST(ServeAccessTest, TokensAre128RandomBitsInHex) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const std::string t = RandomToken();
    EXPECT_EQ(t.size(), 32u);
    EXPECT_EQ(t.find_first_not_of("0123456789abcdef"), std::string::npos) << t;
    seen.insert(t);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(ServeAccessTest, TokensEqualOnlyWhenIdentical) {
  EXPECT_TRUE(TokensEqual("abc", "abc"));
  EXPECT_FALSE(TokensEqual("abd", "abc"));
  EXPECT_FALSE(TokensEqual("ab", "abc"));
  EXPECT_FALSE(TokensEqual("abcd", "abc"));
  EXPECT_FALSE(TokensEqual("", "abc"));
}

TEST(ServeAccessTest, BucketPerClientRefills) {
  RateLimiter limiter(100, 3);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.Allow("a"));
  EXPECT_FALSE(limiter.Allow("a"));
  EXPECT_TRUE(limiter.Allow("b"));  // another client has its own bucket
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_TRUE(limiter.Allow("a"));  // 100/s: refilled after 30 ms
}

}  // namespace
}  // namespace th::serve
