// What `tracehound serve` runs for a run of several ranks: the stragglers
// plugin's per-rank clock offsets (its `stragglers` table), the plugin loaded
// on the first call from the plugin search path.
#pragma once

#include "core/serve/serve_run.h"

namespace th::cli {

serve::ClockOffsetSource StragglersClockOffsets();

}  // namespace th::cli
