#include "core/redact/entropy.h"

#include <array>
#include <cmath>
#include <mutex>
#include <unordered_map>

#include "core/redact/char_set.h"

namespace th::redact {

namespace {

bool IsBase64Body(char c) {
  return IsAsciiAlnum(c) || c == '+' || c == '/' || c == '_' || c == '-';
}

// Fraction of `t` in runs of 4 or more letters of one case.
double WordFraction(std::string_view t) {
  size_t in_words = 0;
  for (size_t i = 0; i < t.size();) {
    int kind = IsAsciiLower(t[i]) ? 1 : IsAsciiUpper(t[i]) ? 2 : 0;
    size_t j = i + 1;
    if (kind) {
      while (j < t.size() && (kind == 1 ? IsAsciiLower(t[j]) : IsAsciiUpper(t[j]))) ++j;
      if (j - i >= 4) in_words += j - i;
    }
    i = j;
  }
  return t.empty() ? 0 : static_cast<double>(in_words) / static_cast<double>(t.size());
}

bool Flag(std::string_view t, const EntropyPatterns& p, int k) {
  return ShannonEntropy(t) >= ExpectedRandomEntropy(t.size(), k) - p.margin_bits;
}

}  // namespace

double ShannonEntropy(std::string_view s) {
  if (s.empty()) return 0;
  std::array<uint32_t, 256> counts{};
  for (char c : s) ++counts[static_cast<uint8_t>(c)];
  const double n = static_cast<double>(s.size());
  double h = 0;
  for (uint32_t c : counts) {
    if (!c) continue;
    double p = c / n;
    h -= p * std::log2(p);
  }
  return h;
}

double ExpectedRandomEntropy(size_t n, int k) {
  if (n == 0 || k <= 1) return 0;
  // Past a few thousand characters the value no longer moves in the digits
  // that matter here.
  if (n > 4096) n = 4096;
  static std::mutex mu;
  static std::unordered_map<uint64_t, double> cache;
  const uint64_t key = (static_cast<uint64_t>(n) << 16) | static_cast<uint64_t>(k);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  // E[H] = k * sum_c P(count = c) * -(c/n) log2(c/n), count ~ Binomial(n, 1/k).
  const double dn = static_cast<double>(n);
  const double p = 1.0 / k;
  const double log_p = std::log(p), log_q = std::log1p(-p);
  double sum = 0;
  for (size_t c = 1; c <= n; ++c) {
    const double dc = static_cast<double>(c);
    double log_pmf = std::lgamma(dn + 1) - std::lgamma(dc + 1) - std::lgamma(dn - dc + 1) +
                     dc * log_p + (dn - dc) * log_q;
    double pmf = std::exp(log_pmf);
    if (pmf < 1e-300 && c > dn * p) break;
    double f = dc / dn;
    sum += pmf * -f * std::log2(f);
  }
  double e = k * sum;
  std::lock_guard<std::mutex> lock(mu);
  cache.emplace(key, e);
  return e;
}

void FindHighEntropy(std::string_view s, const EntropyPatterns& p, std::vector<Span>* out) {
  const size_t n = s.size();
  if (n < p.min_length) return;
  if (p.alphabet == EntropyAlphabet::kHex) {
    for (size_t i = 0; i < n;) {
      if (!IsHexDigit(s[i])) {
        ++i;
        continue;
      }
      size_t b = i;
      bool digit = false, letter = false;
      while (i < n && IsHexDigit(s[i])) {
        (IsAsciiDigit(s[i]) ? digit : letter) = true;
        ++i;
      }
      bool in_word = (b > 0 && (IsAsciiAlnum(s[b - 1]) || s[b - 1] == '_')) ||
                     (i < n && (IsAsciiAlnum(s[i]) || s[i] == '_'));
      if (in_word) {
        while (i < n && (IsAsciiAlnum(s[i]) || s[i] == '_')) ++i;
        continue;
      }
      std::string_view t = s.substr(b, i - b);
      if (t.size() < p.min_length || !digit || !letter) continue;
      if (Flag(t, p, 16)) {
        Span sp{b, i};
        if (!IsPseudonym(t)) out->push_back(sp);
      }
    }
    return;
  }
  for (size_t i = 0; i < n;) {
    if (!IsBase64Body(s[i])) {
      ++i;
      continue;
    }
    size_t b = i;
    bool digit = false, lower = false, upper = false;
    while (i < n && IsBase64Body(s[i])) {
      char c = s[i];
      if (IsAsciiDigit(c)) digit = true;
      if (IsAsciiLower(c)) lower = true;
      if (IsAsciiUpper(c)) upper = true;
      ++i;
    }
    size_t e = i;
    for (int pad = 0; pad < 2 && e < n && s[e] == '='; ++pad) ++e;
    i = e;
    std::string_view t = s.substr(b, e - b);
    if (t.size() < p.min_length || !digit || !lower || !upper) continue;
    if (t.substr(0, 2) == "_Z" || t.substr(0, 3) == "__Z") continue;
    if (WordFraction(t) > p.max_word_fraction) continue;
    if (IsPseudonym(t)) continue;
    if (Flag(t, p, 64)) out->push_back({b, e});
  }
}

}  // namespace th::redact
