// Fleet rows of a diff: one row in `diffs` and its aggregate rows and
// step-time categories in `diff_rows`, in a results database (SQLite or
// PostgreSQL, core/scan/database.h), tables of the results schema from v4 on
// (core/scan/results_schema.h; the database is migrated first).
//
//   diffs(id, a_inputs, b_inputs, a_ranks, b_ranks, a_steps, b_steps,
//         threshold_ns, a_step_ns, b_step_ns, delta_ns, rows_added,
//         rows_removed, rows_changed, rows_unchanged, rows_unknown, warnings)
//   diff_rows(diff_id, kind, class, name, status, a_count, a_time_per_step_ns,
//             b_count, b_time_per_step_ns, delta_ns, noise_ns)
//
// Inputs are joined by "\n", warnings too. `kind` is "aggregate" (class,
// name, status and figures of an aggregate row) or "category" (class
// "step_breakdown", name the category, status "", counts 0, times the
// attribution's per-step means). Times in ns, integers. `id` is one more than
// the largest so far; the rows of one diff go in one transaction.
#pragma once

#include "core/diff/diff_result.h"
#include "core/graph/status.h"
#include "core/scan/database.h"

namespace th::diff {

// Writes the diff; returns its id.
StatusOr<int64_t> WriteDiffRows(scan::Database& db, const DiffResult& r);

}  // namespace th::diff
