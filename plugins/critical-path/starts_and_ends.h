// The starts and ends of a window's events in one (ts, event, start first)
// order, as HTA numbers its nodes, without sorting the ends: given the starts
// in (ts, event) order, the ends come out of a heap of the events started and
// not yet ended. An end below the next start belongs to an event started
// before it, and no event started later ends below that start (durations are
// never negative), so the heap holds only the events open at a time (a few
// per thread and stream), not the window.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace th::critical_path {

using EventKey = std::pair<int64_t, uint32_t>;  // (ts, event)

// Calls emit(key, is_end) for every start of `starts` (sorted, keys unique)
// and its end (end_of(event), >= its start), in (ts, event, start first)
// order. `open` is scratch (cleared, kept for its capacity).
template <typename EndOf, typename Emit>
void StartsAndEnds(std::span<const EventKey> starts, EndOf end_of, std::vector<EventKey>* open,
                   Emit emit) {
  open->clear();
  const std::greater<EventKey> later;  // a min-heap on (end, event)
  auto first_end = [&] {
    std::pop_heap(open->begin(), open->end(), later);
    emit(open->back(), true);
    open->pop_back();
  };
  for (const EventKey& k : starts) {
    while (!open->empty() && open->front() < k) first_end();
    emit(k, false);
    open->emplace_back(end_of(k.second), k.second);
    std::push_heap(open->begin(), open->end(), later);
  }
  while (!open->empty()) first_end();
}

}  // namespace th::critical_path
