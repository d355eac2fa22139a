// Runs work over items 0..n-1 on up to `threads` threads (the calling thread
// one of them), each with its own worker state, the items handed out one at a
// time to whichever thread is free; then hands the results to `consume` on
// the calling thread in the order of the items: the output of a run does not
// depend on the thread count. Every result is held until then. `compute`
// calls into the host only where the plugin API allows any thread; an
// exception it throws is rethrown here once every thread has stopped.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace th::critical_path {

// compute(item, State&, Result&); consume(item, Result&).
template <typename State, typename Result, typename Compute, typename Consume>
void RunInOrder(size_t n, size_t threads, std::vector<State>& states, Compute compute,
                Consume consume) {
  threads = std::max<size_t>(1, std::min(threads, n));
  if (states.size() < threads) states.resize(threads);
  std::vector<Result> results(n);
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(threads);
  auto worker = [&](size_t w) {
    try {
      for (size_t i = next++; i < n; i = next++) compute(i, states[w], results[i]);
    } catch (...) {
      errors[w] = std::current_exception();
      next = n;
    }
  };
  std::vector<std::thread> pool;
  struct Joined {
    std::vector<std::thread>& pool;
    ~Joined() {
      for (std::thread& t : pool)
        if (t.joinable()) t.join();
    }
  } joined{pool};
  try {
    for (size_t w = 1; w < threads; ++w) pool.emplace_back(worker, w);
  } catch (...) {
    next = n;  // no thread to be had: the ones started stop, then it fails
    throw;
  }
  worker(0);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  for (size_t i = 0; i < n; ++i) consume(i, results[i]);
}

}  // namespace th::critical_path
