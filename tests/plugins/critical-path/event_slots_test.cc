// EventSlots: every entry reads kNone until set, holds any other value, and
// reads kNone again once set back; a slot of a large array costs nothing
// until written (calloc), which the values read back cannot show: only that
// untouched entries stay kNone.
#include "event_slots.h"

#include <gtest/gtest.h>

namespace th::critical_path {
namespace {

TEST(EventSlots, EntriesAreNoneUntilSet) {
  EventSlots s(1 << 20);
  ASSERT_EQ(s.size(), 1u << 20);
  EXPECT_EQ(uint32_t{s[0]}, kNone);
  EXPECT_EQ(uint32_t{s[(1 << 20) - 1]}, kNone);
  s[7] = 0;
  s[8] = 41;
  s[9] = kNone - 1;
  EXPECT_EQ(uint32_t{s[7]}, 0u);
  EXPECT_EQ(uint32_t{s[8]}, 41u);
  EXPECT_EQ(uint32_t{s[9]}, kNone - 1);
  EXPECT_EQ(uint32_t{s[10]}, kNone);
  s[8] = kNone;
  EXPECT_EQ(uint32_t{s[8]}, kNone);
  const EventSlots& read = s;
  EXPECT_EQ(read[7], 0u);
  EXPECT_EQ(read[8], kNone);
  EXPECT_EQ(EventSlots(0).size(), 0u);
}

}  // namespace
}  // namespace th::critical_path
