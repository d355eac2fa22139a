#include "core/diff/diff_names.h"

#include <gtest/gtest.h>

namespace th::diff {
namespace {

TEST(NormaliseName, MasksHexAndLongIds) {
  EXPECT_EQ(NormaliseName("gemm_kernel<0x7f001000>"), "gemm_kernel<0x*>");
  EXPECT_EQ(NormaliseName("gemm_kernel<0X7F001000>"), "gemm_kernel<0x*>");
  EXPECT_EQ(NormaliseName("buffer 7f3a2b1c9d00 freed"), "buffer * freed");
  EXPECT_EQ(NormaliseName("id=123456789"), "id=*");
  EXPECT_EQ(NormaliseName("fused_a1b2c3d4e5"), "fused_*");
}

TEST(NormaliseName, KeepsWordsAndShortNumbers) {
  EXPECT_EQ(NormaliseName("aten::linear"), "aten::linear");
  EXPECT_EQ(NormaliseName("cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align4"),
            "cutlass_80_tensorop_s1688gemm_256x128_32x3_nn_align4");
  EXPECT_EQ(NormaliseName("deadbeefcafe"), "deadbeefcafe");      // no digit: a word
  EXPECT_EQ(NormaliseName("abc12345678xyz"), "abc12345678xyz");  // glued to letters
  EXPECT_EQ(NormaliseName("x0x12"), "x0x12");                    // 0x not at a token start
  EXPECT_EQ(NormaliseName(""), "");
}

}  // namespace
}  // namespace th::diff
