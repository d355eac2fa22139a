// GET /api/v1/runs/{run}/roofline's answer, from the roofline plugin's tables
// (plugins/roofline/README.md): per op row its F and B (inferred), T
// (measured), achieved FLOP/s, intensity, bound and efficiency; the roofs the
// rows were held to (per device and peak row "unit dtype": peak FLOP/s and
// HBM bandwidth, read, with their source); the steps' coverage and the
// unmodelled time. Integers stay integers; `units` and `kinds` name each
// number's unit and kind.
#pragma once

#include <string>

#include "core/graph/analysis_results.h"

namespace th::serve {

// {"ops":[{"rank","device","name","dtype","unit","input_dims","count","flops","bytes",
// "time_ns","flops_per_s","bytes_per_s","intensity","peak_flops","peak_bytes_per_s","peak",
// "bound","efficiency","peak_source"}],"roofs":[{"device","peak","unit","dtype","peak_flops",
// "peak_bytes_per_s","source","ops"}],"steps":[{"rank","step","window_ns","busy_ns",
// "modelled_ns","unmodelled_ns","coverage","flops","mfu"}],"unmodelled":[{"rank","name",
// "reason","count","time_ns"}],"units":{…},"kinds":{…}}
std::string RooflineJson(const PluginResults& results);

}  // namespace th::serve
