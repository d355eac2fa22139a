// Parity of input shapes: ops matched by (class, normalised name) whose most
// common input shape signature (Kineto's Input Dims and Input type, as the
// op_inputs table holds them) differs between A and B are not like for like.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/diff/diff_profile.h"

namespace th::diff {

// One warning per row with signatures on both sides whose most common
// signature differs (ties: the smallest text), in (class, name) order, at
// most `max_ops`, then one line counting the rest. Without shapes on a side
// one warning says the comparison was not made.
std::vector<std::string> ShapeWarnings(const Profile& a, const Profile& b, size_t max_ops = 10);

}  // namespace th::diff
