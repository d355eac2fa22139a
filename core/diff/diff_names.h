// Name normalisation for diffs: the same operation in two runs gets the same
// name although ids and addresses in it differ.
#pragma once

#include <string>
#include <string_view>

namespace th::diff {

// `name` with every id-like token masked: "0x" followed by hex digits becomes
// "0x*"; a maximal run of [0-9a-fA-F] of 8 or more characters that holds at
// least one decimal digit, not glued to other letters or digits, becomes "*".
// Everything else is kept byte for byte.
std::string NormaliseName(std::string_view name);

}  // namespace th::diff
