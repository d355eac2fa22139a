// The JSON of GET /api/v1/runs/{run}/events/{id}: what the details pane shows
// for one event (times relative to the run's origin).
//
// - args: the arguments the graph keeps for the event's kind (GPU launch
//   geometry and stream, collective metadata, allocator fields, counter
//   series), its correlation and External id;
// - launch: the CPU call that launched this GPU event (null if none);
//   kernels: what this call launched (at most kMaxListedKernels, with
//   kernels_total);
// - stack: the enclosing python_function events, innermost first (for a GPU
//   event, those of its launch call), each with file, line and a
//   vscode://file link when its name holds "FILE.py(LINE)" or "FILE.py:LINE";
// - hlo: for XProf captures, the event's XLA labels and the HLO instruction
//   it was attributed to (null when neither exists).
#pragma once

#include <string>

#include "core/serve/serve_run.h"

namespace th::serve {

inline constexpr size_t kMaxListedKernels = 1000;

// `id` must be an event of the run.
std::string EventDetailsJson(const ServeRun& run, EventId id);

// The vscode://file link for a Python source position (a relative path gets
// a leading '/', backslashes become '/'; percent-encoded as encodeURI does).
std::string VscodeLink(std::string_view file, int64_t line);

}  // namespace th::serve
