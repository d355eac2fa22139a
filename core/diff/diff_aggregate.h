// The aggregate level: one row per (class, normalised name) present on either
// side, its time per step on each side, Δ, Δ% and a status:
//   added / removed   present on one side only;
//   unknown           present on both, but a side has fewer than 2 steps;
//   changed           |Δ| > threshold_ns and |Δ| > noise, the larger of the
//                     two sides' per-step spreads (max - min over the side's
//                     kept steps, a step without the name counting 0);
//   unchanged         otherwise.
// Rows are ordered by |Δ| descending, then class, then name.
#pragma once

#include <vector>

#include "core/diff/diff_profile.h"
#include "core/diff/diff_result.h"

namespace th::diff {

std::vector<AggregateRow> AggregateRows(const Profile& a, const Profile& b,
                                        const DiffOptions& options);

// Per class, the totals of both sides (classes with events only).
std::vector<ClassTotal> ClassTotals(const Profile& a, const Profile& b);

// Round-to-nearest (halves away from zero) of num / den, den > 0.
int64_t DivRound(int64_t num, int64_t den);

}  // namespace th::diff
