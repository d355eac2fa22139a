// A figure as people read it in the terminal and Markdown reports: rounded,
// with its unit ("12.345 ms" for ns values). Machine-readable outputs write
// exact numbers instead (core/graph/json_number.h).
#pragma once

#include <string>

namespace th {

// An integral value as its digits; a non-integral one of 10^4 or more
// rounded to its digits; else 4 significant digits. Never an exponent.
std::string NumberText(double v);

// "12.345 ms" for ns, "42" for a count; FLOP/s, B/s, FLOP and B of 10^4
// or more with an SI prefix and 4 significant digits ("47.67 TFLOP/s"),
// integral ones only where that is exact ("3.35 TB/s", but "2475914428416
// FLOP"); else the number and its unit.
std::string FigureText(double v, const std::string& unit);

}  // namespace th
