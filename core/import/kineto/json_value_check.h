// Strict checks for the JSON values the Kineto reader does not interpret.
//
// simdjson On-Demand validates a value only where a getter reads it; a value
// it skips is bracket-counted, not parsed. The chunk parser therefore passes
// every value it does not read (and every value a getter refused) through
// SkipValue, which checks its text: each scalar token and escape, and the
// whole grammar of a skipped object or array. (Text glued after a string or
// key becomes a token of its own, which the iteration meets as misplaced.)
// So each byte of traceEvents is validated once: a malformed value is an
// error at its offset, never a silently shortened or altered trace.
//
// The non-finite literals that real writers emit (Python's json: NaN,
// Infinity, -Infinity; C/fmt: nan, inf, -nan, -inf) are not JSON but are
// accepted and counted (the trust table lists them as data loss: the value
// is not used).
//
// Only text is checked, never a simdjson value handed out of line: the
// caller's value then stays in registers (materialising it costs a
// store-forwarding stall per field, ~20% of the parse).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace th::kineto {

enum class TokenClass : uint8_t { kValid, kNonFinite, kMalformed };

// One scalar as simdjson's raw_json_token gives it (trailing JSON whitespace
// allowed): a JSON number, true/false/null, a string whose last byte is its
// closing quote (escapes are checked apart), or a non-finite literal.
TokenClass ClassifyScalarToken(std::string_view token);

// True when the escapes of the string starting just past its opening quote
// are valid JSON (\" \\ \/ \b \f \n \r \t, \uXXXX with surrogates in pairs).
// The text must be a closed string (simdjson's structural pass ensures it).
bool ValidEscapes(const char* after_quote);

// What checking found; the first malformed token ends the parse.
struct ValueCheck {
  const char* bad_at = nullptr;    // first byte of the first malformed token
  std::string bad_what;            // what is wrong with it
  int64_t non_finite = 0;          // accepted non-finite literals
  std::string first_non_finite;    // the first one, as written
  const char* text_end = nullptr;  // end of the text checked (the chunk's)

  // Records a malformed token; returns the error the parse stops with.
  simdjson::error_code Malformed(const char* at, std::string what);
};

// Checks a scalar from its raw token.
simdjson::error_code CheckScalar(std::string_view token, ValueCheck* check);

// Checks the JSON text of one object or array starting at `p` (its '{' or
// '['), up to its matching bracket and never past `end`.
simdjson::error_code CheckContainerText(const char* p, const char* end, ValueCheck* check);

// CheckContainerText that also says where the container ends: the byte after
// its closing bracket, or null after recording the error.
const char* CheckContainerEnd(const char* p, const char* end, ValueCheck* check);

// Checks a value the reader does not read, or one a getter refused: an error
// when it is malformed, SUCCESS when it is valid JSON (of any type). Only the
// value's text is looked at (simdjson then skips it as usual).
[[gnu::always_inline]] inline simdjson::error_code SkipValue(simdjson::ondemand::value v,
                                                             ValueCheck* check) {
  std::string_view token = v.raw_json_token();
  if (!token.empty() && (token[0] == '{' || token[0] == '['))
    return CheckContainerText(token.data(), check->text_end, check);
  return CheckScalar(token, check);
}

// Checks the escapes of a key the reader did not recognise (a recognised key
// has none). `raw` points just past its opening quote.
[[gnu::always_inline]] inline simdjson::error_code CheckKeyEscapes(const char* raw,
                                                                   ValueCheck* check) {
  const char* p = raw;
  while (*p != '"' && *p != '\\') ++p;
  if (*p == '"' || ValidEscapes(raw)) return simdjson::SUCCESS;
  return check->Malformed(raw - 1, "invalid escape in a key");
}

}  // namespace th::kineto
