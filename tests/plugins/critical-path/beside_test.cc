// RunBeside: both pieces run (on two threads) before it returns, and an
// exception of either comes out of it once both are done.
#include "beside.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

namespace th::critical_path {
namespace {

TEST(RunBeside, RunsBothOnTwoThreads) {
  std::thread::id side_id, here_id;
  int side = 0, here = 0;
  RunBeside([&] { side = 1, side_id = std::this_thread::get_id(); },
            [&] { here = 2, here_id = std::this_thread::get_id(); });
  EXPECT_EQ(side + here, 3);
  EXPECT_EQ(here_id, std::this_thread::get_id());
  EXPECT_NE(side_id, here_id);
}

TEST(RunBeside, AnExceptionOfEitherComesOutOnceBothAreDone) {
  std::atomic<bool> side_done{false};
  EXPECT_THROW(RunBeside([&] { side_done = true; }, [] { throw std::runtime_error("here"); }),
               std::runtime_error);
  EXPECT_TRUE(side_done);
  bool here_done = false;
  try {
    RunBeside([] { throw std::logic_error("side"); }, [&] { here_done = true; });
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "side");
  }
  EXPECT_TRUE(here_done);
}

}  // namespace
}  // namespace th::critical_path
