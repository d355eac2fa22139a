// HLO text spellings of compiler facts (as XLA prints them): primitive type
// names and shapes with their layout, e.g. "f32[128,256]{1,0}",
// "(bf16[8]{0}, s32[])".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/graph/hlo_model.h"

namespace th::hlo {

// "f32", "bf16", "pred", ...; "type<N>" for a value this build does not know.
std::string PrimitiveTypeName(int64_t element_type);
std::string ShapeText(const HloShape& shape);

}  // namespace th::hlo
