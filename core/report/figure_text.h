// A figure as people read it in the terminal and Markdown reports: rounded,
// with its unit ("12.345 ms" for ns values). Machine-readable outputs write
// exact numbers instead (core/graph/json_number.h).
#pragma once

#include <string>

namespace th {

// An integral value as its digits, else 4 significant digits.
std::string NumberText(double v);

// "12.345 ms" for ns, "42" for a count, else the number and its unit.
std::string FigureText(double v, const std::string& unit);

}  // namespace th
