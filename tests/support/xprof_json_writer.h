// Writes an XSpace as the Chrome JSON that JAX saves beside it
// (`<host>.trace.json.gz`), the way TSL does (formats.md §2.11;
// xplane_to_trace_events.cc and trace_events_to_json.cc): there is no real
// JAX trace.json.gz in ../shared/data, so tests make one from each .xplane.pb.
//
// - Planes: /host:CPU as pid 701; the device planes of one family (GPU, else
//   TPU, else CUSTOM) as pid 1 + plane id. Lines are threads: tid = display id
//   (uint32), thread name = display name; "Async XLA Ops" lines keep their
//   metadata but not their events.
// - Metadata first (process_name, process_sort_index, thread_name,
//   thread_sort_index; sorted by pid, then tid), then the X events in plane,
//   line and event order, then a trailing {}.
// - Event name = display name (full name in args.long_name); args = event
//   metadata stats, then event stats (a later one wins), every value a
//   string, sorted by key; internal stats (_pt, _p, _ct, _c, _r, flops,
//   program_id, symbol_id) and internal events (MemoryAllocation, ...) dropped;
//   step_name renames the event.
// - ts / dur: µs from ps; dur at least 1 ps.
#pragma once

#include <string>

#include "core/import/xspace/xspace_model.h"

namespace th::testing {

enum class XprofTimeText {
  kExact,      // the exact decimal of ps / 10^6 ("12.3455")
  kMaxDigits,  // what TSL prints: "%.17g" of the double ps / 1e6
};

std::string XSpaceToXprofJson(const xspace::XSpaceData& space,
                              XprofTimeText time = XprofTimeText::kExact);

}  // namespace th::testing
