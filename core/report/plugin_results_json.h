// The canonical JSON of what plugins reported: the bytes `tracehound
// test-plugin` compares with a golden file. Pretty-printed, keys in a fixed
// order; findings, metrics, checks, skips and notes in the order the plugins
// reported them, tables by name.
#pragma once

#include <ostream>

#include "core/graph/analysis_results.h"

namespace th {

void WritePluginResultsJson(const PluginResults& results, std::ostream& out);

}  // namespace th
