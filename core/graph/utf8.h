// UTF-8 validation (RFC 3629: no overlong forms, surrogates or code points
// past U+10FFFF), shared by the importers and every writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace th {

// Length (1-4) of the valid UTF-8 sequence at p, or 0 when the bytes there
// do not start one. `left` >= 1 bytes are readable at p.
size_t Utf8SequenceLength(const uint8_t* p, size_t left);

// True when s is valid UTF-8; otherwise *bad_index is the index of the first
// byte of the first invalid sequence.
bool ValidUtf8(std::string_view s, size_t* bad_index);

}  // namespace th
