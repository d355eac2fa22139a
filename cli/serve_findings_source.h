// What `tracehound serve` runs for /findings: the default pipeline
// (configs/default.yaml, with the plugins `analyze` sees), loaded on the
// first call and then run on each run's input, one run at a time.
#pragma once

#include "core/serve/serve_findings.h"

namespace th::cli {

serve::FindingsSource DefaultPipelineFindings();

}  // namespace th::cli
