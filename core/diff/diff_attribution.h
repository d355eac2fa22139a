// The attribution level: the change of the mean step time split over the
// step-breakdown categories, so that Δ step = Σ Δ category to the nanosecond;
// and the parity warnings that say when A and B are not like for like.
//
// Per side, over the kept steps with a step_breakdown row: the mean step
// time is round(Σ dur / n) and the categories' means are their totals / n,
// floored, plus 1 ns for the categories with the largest remainders until
// they add up to the mean step time (the categories of every step add up to
// its duration, so they do exactly). Contributors are ordered by |Δ|
// descending, then category order.
#pragma once

#include <string>
#include <vector>

#include "core/diff/diff_profile.h"
#include "core/diff/diff_result.h"

namespace th::diff {

Attribution Attribute(const Profile& a, const Profile& b);

// Means of one side (exposed for tests): [0] is the step, then the categories.
std::vector<int64_t> CategoryMeans(const Profile& p);

// What differs between the sides beyond their timing: device, world size,
// ranks, step source, too few steps (input shapes: diff_shapes.h).
std::vector<std::string> ParityWarnings(const SideSummary& a, const SideSummary& b);

// The summary of one side.
SideSummary Summarise(const DiffSide& side, const Profile& p);

}  // namespace th::diff
