// The diff result for people: a Markdown report and a short terminal summary.
// Figures are rounded for reading (FigureText); the JSON has the exact ones.
#pragma once

#include <string>

#include "core/diff/diff_result.h"

namespace th::diff {

// Markdown: sides, warnings, attribution, class totals, every aggregate row
// that is not unchanged then the first `unchanged_rows` unchanged ones, and
// the structural rows of each step pair.
std::string DiffMarkdown(const DiffResult& r, size_t unchanged_rows = 20);

// Terminal: sides, warnings, the step-time change and its top contributors,
// status counts and the `rows` rows with the largest |Δ| that are not
// unchanged (names past 100 bytes cut, with "…").
std::string DiffTerminal(const DiffResult& r, size_t rows = 15);

// "+1.500 ms" / "-20 ns" / "0 ns".
std::string SignedTime(int64_t ns);

}  // namespace th::diff
