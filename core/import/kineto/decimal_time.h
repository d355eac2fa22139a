// Exact conversion of a JSON number of microseconds to integer nanoseconds.
// Kineto writes `ts` with up to 19 significant digits; a double keeps 15-17,
// so the digits are parsed, never a float.
#pragma once

#include <cstdint>
#include <string_view>

namespace th::kineto {

struct DecimalNs {
  int64_t ns = 0;
  bool ok = false;       // token was a JSON number that fits in int64 ns
  bool rounded = false;  // digits below 1 ns were rounded
};

// How digits below 1 ns round. Half to even: Kineto (and the oracle). Half away
// from zero: XProf JSON, whose ps-precise times then round like the XSpace
// importer rounds the same picoseconds.
enum class NsRounding : uint8_t { kHalfEven, kHalfAwayFromZero };

// A JSON number read as a double, as an int64 (truncated toward zero); false
// when it is not finite or out of int64's range (the cast would be undefined).
bool DoubleToInt64(double d, int64_t* out);

// Parses the JSON number text `token` (µs; trailing whitespace allowed) into ns.
// Accepts sign, fraction and exponent; anything else (strings, null) is !ok.
DecimalNs MicrosToNs(std::string_view token, NsRounding rounding = NsRounding::kHalfEven);

}  // namespace th::kineto
