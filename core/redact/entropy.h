// High-entropy tokens: strings that look random (keys, passwords, hashes of
// secrets) found by Shannon entropy, with the guards that keep code out
// (mangled C++ names, CamelCase identifiers, kernel names).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/redact/text_patterns.h"

namespace th::redact {

// Shannon entropy of the bytes of s, in bits per byte (0 for "").
double ShannonEntropy(std::string_view s);

// The expected Shannon entropy of n characters drawn uniformly and
// independently from an alphabet of k symbols (exact: sum over the binomial
// count of each symbol). E(32, 64) ~ 4.56 bits; it tends to log2(k).
double ExpectedRandomEntropy(size_t n, int k);

enum class EntropyAlphabet { kBase64, kHex };

// A token is flagged when its entropy is at least
// ExpectedRandomEntropy(length, alphabet size) - margin_bits, and:
//  base64: a maximal run of [A-Za-z0-9+/_-] (with trailing '=' padding) of
//    min_length or more holding a digit, an upper- and a lower-case letter,
//    not a mangled C++ name ("_Z..."), and at most max_word_fraction of it in
//    runs of 4+ letters of one case (identifiers are made of words);
//  hex: a maximal run of hex digits not inside a word, of min_length or more,
//    holding a digit and a letter.
struct EntropyPatterns {
  EntropyAlphabet alphabet = EntropyAlphabet::kBase64;
  size_t min_length = 32;
  double margin_bits = 0.8;
  double max_word_fraction = 0.45;
};
void FindHighEntropy(std::string_view s, const EntropyPatterns& patterns, std::vector<Span>* out);

}  // namespace th::redact
