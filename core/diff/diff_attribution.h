// The attribution level (Attribute, CategoryMeans: the SDK's
// <tracehound/diff/diff_attribution.h>, shared with the trace-diff plugin)
// and the parity warnings that say when A and B are not like for like.
#pragma once

#include <tracehound/diff/diff_attribution.h>

#include <string>
#include <vector>

#include "core/diff/diff_profile.h"
#include "core/diff/diff_result.h"

namespace th::diff {

// What differs between the sides beyond their timing: device, world size,
// ranks, step source, too few steps (input shapes: diff_shapes.h).
std::vector<std::string> ParityWarnings(const SideSummary& a, const SideSummary& b);

// The summary of one side.
SideSummary Summarise(const DiffSide& side, const Profile& p);

}  // namespace th::diff
