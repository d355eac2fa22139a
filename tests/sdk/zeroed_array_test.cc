#include <gtest/gtest.h>
#include <tracehound/zeroed_array.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace {

// The process's resident set in KiB (VmRSS of /proc/self/status), -1 if unknown.
int64_t ResidentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

TEST(ZeroedArray, StartsZeroAndKeepsWrites) {
  th::sdk::ZeroedArray<uint32_t> a(1000);
  ASSERT_EQ(a.size(), 1000u);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], 0u) << i;
  a[7] = 42;
  a[999] = 0xFFFFFFFFu;
  EXPECT_EQ(a[7], 42u);
  EXPECT_EQ(a[999], 0xFFFFFFFFu);
  EXPECT_EQ(a[8], 0u);
}

TEST(ZeroedArray, EmptyHoldsNothing) {
  th::sdk::ZeroedArray<uint64_t> a(0);
  EXPECT_EQ(a.size(), 0u);
  th::sdk::ZeroedArray<uint8_t> b;
  EXPECT_EQ(b.size(), 0u);
}

// The contract that makes it worth having: a big array written at a few
// places costs those pages only, where std::vector(n, v) makes all resident.
TEST(ZeroedArray, UnwrittenPagesStayOutOfMemory) {
  const int64_t before = ResidentKiB();
  if (before < 0) GTEST_SKIP() << "no /proc/self/status VmRSS on this system";
  constexpr size_t kValues = size_t{64} << 20;  // 256 MiB of uint32_t
  th::sdk::ZeroedArray<uint32_t> a(kValues);
  for (size_t i = 0; i < kValues; i += kValues / 16) a[i] = 1;
  const int64_t grown = ResidentKiB() - before;
  EXPECT_LT(grown, 16 * 1024) << "KiB resident after 16 writes into 256 MiB";
  EXPECT_EQ(a[kValues / 16], 1u);
  EXPECT_EQ(a[kValues / 16 + 1], 0u);
}

}  // namespace
