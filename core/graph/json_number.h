// Numbers as every machine-readable output writes them (JSON, HTML data,
// annotated traces, database rows): exact. An integral value within ±2^53
// (bytes, nanoseconds, counts held in a double) is written as its integer
// digits; any other finite value as the shortest text that reads back to the
// same double (std::to_chars). Human-facing text rounds on its own terms.
#pragma once

#include <string>

namespace th {

// The number's text; "null" when it is not finite (JSON has no NaN).
std::string JsonNumber(double v);

// The same text for a finite value; "nan", "inf", "-inf" otherwise.
std::string ShortestNumber(double v);

}  // namespace th
