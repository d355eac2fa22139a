// What `tracehound serve` runs for /api/v1/diff: the `steps` and
// `step-breakdown` plugins (the plugins `diff` sees), loaded on the first
// call and then run on each side's traces, one side at a time.
#pragma once

#include "core/serve/serve_diff.h"

namespace th::cli {

serve::DiffPluginsSource DefaultDiffPlugins();

}  // namespace th::cli
