// What `tracehound serve` runs for /critical-path and /roofline: the
// collectives, critical-path and roofline plugins with their defaults
// (serve_paths.h), from the plugins `analyze` sees, loaded on the first call;
// runs are serialised (a run of several ranks imports its traces again).
#pragma once

#include "core/serve/serve_paths.h"

namespace th::cli {

serve::PathsSource DefaultPathsPlugins();

}  // namespace th::cli
