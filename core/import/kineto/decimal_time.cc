#include "core/import/kineto/decimal_time.h"

namespace th::kineto {

namespace {
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

bool DoubleToInt64(double d, int64_t* out) {
  // [-2^63, 2^63): every double in it converts exactly after truncation.
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

DecimalNs MicrosToNs(std::string_view t, NsRounding rounding) {
  // Fast path: Kineto's own shape, "<µs digits>[.<up to 3 digits>]" (epoch
  // µs has 16 digits), when the result cannot overflow int64 ns.
  {
    size_t i = 0, n = t.size();
    int64_t v = 0;
    while (i < n && IsDigit(t[i]) && i < 16) v = v * 10 + (t[i++] - '0');
    if (i > 0 && (i == n || !IsDigit(t[i])) && (t[0] != '0' || i == 1) &&
        v < INT64_MAX / 1000 - 1) {
      int frac = 0;
      if (i < n && t[i] == '.') {
        ++i;
        while (i < n && IsDigit(t[i]) && frac < 3) {
          v = v * 10 + (t[i++] - '0');
          ++frac;
        }
        if (frac == 0) i = n + 1;  // "1." is not a number: take the full path
      }
      if (i <= n) {
        size_t j = i;
        while (j < n && (t[j] == ' ' || t[j] == '\n' || t[j] == '\r' || t[j] == '\t')) ++j;
        if (j == n && (i == n || t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')) {
          for (; frac < 3; ++frac) v *= 10;
          return {v, true, false};
        }
      }
    }
  }
  DecimalNs r;
  size_t i = 0, n = t.size();
  bool neg = false;
  if (i < n && t[i] == '-') {
    neg = true;
    ++i;
  }
  // value = digits × 10^exp10; at most 38 significant digits fit an __int128.
  __int128 digits = 0;
  int exp10 = 0;
  int sig = 0;
  bool any = false, dropped_nonzero = false;
  auto take = [&](char c, bool fraction) {
    any = true;
    if (sig < 36) {
      digits = digits * 10 + (c - '0');
      if (digits != 0) ++sig;
      if (fraction) --exp10;
    } else {
      // Beyond what matters for int64 ns: integer digits scale, fraction digits drop.
      if (!fraction) ++exp10;
      if (c != '0') dropped_nonzero = true;
    }
  };
  if (i + 1 < n && t[i] == '0' && IsDigit(t[i + 1])) return r;  // no leading zeros in JSON
  while (i < n && IsDigit(t[i])) take(t[i++], false);
  if (!any) return r;  // JSON numbers start with a digit
  if (i < n && t[i] == '.') {
    ++i;
    if (i >= n || !IsDigit(t[i])) return r;
    while (i < n && IsDigit(t[i])) take(t[i++], true);
  }
  if (!any) return r;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < n && (t[i] == '+' || t[i] == '-')) eneg = t[i++] == '-';
    if (i >= n || !IsDigit(t[i])) return r;
    int e = 0;
    while (i < n && IsDigit(t[i])) {
      if (e < 100000) e = e * 10 + (t[i] - '0');
      ++i;
    }
    exp10 += eneg ? -e : e;
  }
  while (i < n && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')) ++i;
  if (i != n) return r;

  int shift = exp10 + 3;  // µs → ns
  constexpr __int128 kMax = static_cast<__int128>(INT64_MAX);
  if (shift >= 0) {
    for (int k = 0; k < shift; ++k) {
      if (digits > kMax) return r;
      digits *= 10;
    }
    if (digits > kMax) return r;
  } else {
    if (shift < -37) {  // digits < 10^36: below half a ns (and 10^38 would overflow div)
      r.rounded = digits != 0 || dropped_nonzero;
      digits = 0;
    } else {
      __int128 div = 1;
      for (int k = 0; k < -shift; ++k) div *= 10;
      __int128 q = digits / div, rem = digits % div;
      if (rem != 0 || dropped_nonzero) r.rounded = true;
      __int128 twice = rem * 2;
      bool up_on_tie = rounding == NsRounding::kHalfAwayFromZero || dropped_nonzero || (q & 1);
      if (twice > div || (twice == div && up_on_tie)) ++q;
      digits = q;
    }
    if (digits > kMax) return r;
  }
  r.ns = static_cast<int64_t>(neg ? -digits : digits);
  r.ok = true;
  return r;
}

}  // namespace th::kineto
