#include "core/import/xspace/varint_gather.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace th::xspace {
namespace {

// The value of the low 7 bits of each of the 8 bytes, one byte at a time.
uint64_t GatherBytewise(uint64_t x) {
  uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r |= ((x >> (8 * i)) & 0x7F) << (7 * i);
  return r;
}

TEST(VarintGather, ShiftsAndPextGatherTheSevenBitGroups) {
  std::mt19937_64 random(20261129);
  std::vector<uint64_t> words = {0,
                                 ~uint64_t{0},
                                 0x8080808080808080ull,
                                 0x7F7F7F7F7F7F7F7Full,
                                 0x0000000000000181ull,
                                 0x01FFFFFFFFFFFFFFull};
  for (int i = 0; i < 100000; ++i) words.push_back(random());
  for (uint64_t x : words) {
    const uint64_t want = GatherBytewise(x);
    ASSERT_EQ(Gather7Shifts(x), want) << std::hex << x;
    ASSERT_EQ(Gather7(x), want) << std::hex << x;
#if defined(__BMI2__)
    ASSERT_EQ(Gather7Pext(x), want) << std::hex << x;
#endif
  }
#if !defined(__BMI2__)
  GTEST_SKIP() << "built without BMI2: only the shift version exists";
#endif
}

}  // namespace
}  // namespace th::xspace
