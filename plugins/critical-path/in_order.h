// Runs work over items 0..n-1 on up to `threads` threads, each with its own
// worker state, and hands the results to `consume` on the calling thread in
// the order of the items, whatever the thread count: the output of a run does
// not depend on it. Items go in batches of a few per thread, so at most one
// batch of results is held at a time. `compute` must not call into the host
// (the plugin API is called from the plugin's own thread only); an exception
// it throws is rethrown here after the batch.
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
  const size_t batch = threads == 1 ? 1 : 4 * threads;
  std::vector<Result> results(batch);
  for (size_t begin = 0; begin < n; begin += batch) {
    const size_t end = std::min(n, begin + batch);
    if (threads == 1) {
      for (size_t i = begin; i < end; ++i) compute(i, states[0], results[i - begin]);
    } else {
      std::atomic<size_t> next{begin};
      std::vector<std::exception_ptr> errors(threads);
      auto worker = [&](size_t w) {
        try {
          for (size_t i = next++; i < end; i = next++) compute(i, states[w], results[i - begin]);
        } catch (...) {
          errors[w] = std::current_exception();
          next = end;
        }
      };
      std::vector<std::thread> pool;
      for (size_t w = 1; w < threads; ++w) pool.emplace_back(worker, w);
      worker(0);
      for (std::thread& t : pool) t.join();
      for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    }
    for (size_t i = begin; i < end; ++i) consume(i, results[i - begin]);
  }
}

}  // namespace th::critical_path
