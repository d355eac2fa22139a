// RunInOrder: results reach `consume` in item order whatever the thread count
// and however long each item takes; each worker state serves one thread at a
// time; an exception thrown by `compute` comes out of RunInOrder, with no
// result consumed.
#include "in_order.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace th::critical_path {
namespace {

struct State {
  std::atomic<int> users{0};
  int items = 0;
  State() = default;
  State(const State&) {}
};

TEST(RunInOrder, ConsumesInItemOrderOnAnyThreadCount) {
  for (size_t threads : {1, 2, 3, 8}) {
    std::vector<State> states;
    std::vector<size_t> seen;
    std::atomic<bool> shared{false};
    RunInOrder<State, size_t>(
        37, threads, states,
        [&](size_t i, State& s, size_t& out) {
          if (s.users++ != 0) shared = true;
          // Early items take longest, so they finish after later ones.
          std::this_thread::sleep_for(std::chrono::microseconds((37 - i) % 5 * 200));
          ++s.items;
          out = i * i;
          --s.users;
        },
        [&](size_t i, size_t& out) {
          EXPECT_EQ(out, i * i);
          seen.push_back(i);
        });
    ASSERT_EQ(seen.size(), 37u) << threads << " threads";
    for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i) << threads << " threads";
    EXPECT_FALSE(shared) << "a worker state used by two threads at once";
    int items = 0;
    for (const State& s : states) items += s.items;
    EXPECT_EQ(items, 37);
    EXPECT_EQ(states.size(), threads);
  }
}

TEST(RunInOrder, RethrowsWhatComputeThrows) {
  for (size_t threads : {1, 3}) {
    std::vector<State> states;
    size_t consumed = 0;
    auto run = [&] {
      RunInOrder<State, int>(
          40, threads, states,
          [&](size_t i, State&, int& out) {
            if (i == 5) throw std::runtime_error("item 5");
            out = 0;
          },
          [&](size_t, int&) { ++consumed; });
    };
    EXPECT_THROW(run(), std::runtime_error) << threads << " threads";
    EXPECT_EQ(consumed, 0u);
  }
}

TEST(RunInOrder, NoItems) {
  std::vector<State> states;
  int calls = 0;
  RunInOrder<State, int>(
      0, 4, states, [&](size_t, State&, int&) { ++calls; }, [&](size_t, int&) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace th::critical_path
