// What a longest path adds up to: its length by category and by rank, the
// waits on it (the time between its instants that no weight counts: host
// idle, synchronisation waits, zero-weight dependencies), and the events it
// runs through with the time each contributes.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "cp_graph.h"
#include "event_slots.h"

namespace th::critical_path {

inline constexpr int kCategories = 7;  // Category values

struct PathSummary {
  int64_t length = 0;   // ns, sum of weights
  int64_t waits = 0;    // ns, zero-weight time between timed instants (same rank)
  int64_t elapsed = 0;  // ns, last instant - first instant (single rank), else length + waits
  std::array<int64_t, kCategories> by_category{};
  std::map<uint32_t, int64_t> by_rank_slot;  // ns of the length, per trace slot (> 0)
  struct OnPath {
    uint32_t slot, event;
    int64_t time;  // ns of the length attributed to the event
  };
  // Every event with an instant on the path (time 0 when none is
  // attributed), in the order the path first reaches it.
  std::vector<OnPath> events;
};

// Per trace slot, an entry per event (kNone when unused): Summarize's
// scratch, reused across windows (it leaves every entry kNone again).
using EventScratch = std::vector<EventSlots>;

// `transfer_slot`: for each transfer edge index, the trace slot it is charged
// to (the gating rank of its collective).
PathSummary Summarize(const Graph& g, const LongestPath& p,
                      const std::map<uint32_t, uint32_t>& transfer_slot, EventScratch* scratch);

const char* CategoryName(Category c);
const char* HtaBoundName(Category c);

}  // namespace th::critical_path
