#include "core/graph/hlo_text.h"

#include <array>

namespace th::hlo {

std::string PrimitiveTypeName(int64_t t) {
  // xla.PrimitiveType values 0..34 (formats.md §3.5), in value order.
  static constexpr std::array<std::string_view, 35> kNames = {
      "invalid",    "pred",       "s8",       "s16",       "s32",    "s64",
      "u8",         "u16",        "u32",      "u64",       "f16",    "f32",
      "f64",        "tuple",      "opaque",   "c64",       "bf16",   "token",
      "c128",       "f8e5m2",     "f8e4m3fn", "s4",        "u4",     "f8e4m3b11fnuz",
      "f8e5m2fnuz", "f8e4m3fnuz", "s2",       "u2",        "f8e4m3", "f8e3m4",
      "s1",         "u1",         "f4e2m1fn", "f8e8m0fnu", "buffer"};
  if (t >= 0 && t < static_cast<int64_t>(kNames.size())) {
    return std::string(kNames[static_cast<size_t>(t)]);
  }
  return "type" + std::to_string(t);
}

std::string ShapeText(const HloShape& s) {
  if (s.element_type == HloShape::kTuple || !s.tuple_shapes.empty()) {
    std::string out = "(";
    for (size_t i = 0; i < s.tuple_shapes.size(); ++i) {
      if (i) out += ", ";
      out += ShapeText(s.tuple_shapes[i]);
    }
    return out + ")";
  }
  std::string out = PrimitiveTypeName(s.element_type);
  if (s.element_type == HloShape::kToken || s.element_type == HloShape::kOpaque) return out;
  out += "[";
  for (size_t i = 0; i < s.dimensions.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(s.dimensions[i]);
  }
  out += "]";
  if (s.has_layout && !s.dimensions.empty()) {
    out += "{";
    for (size_t i = 0; i < s.minor_to_major.size(); ++i) {
      if (i) out += ",";
      out += std::to_string(s.minor_to_major[i]);
    }
    out += "}";
  }
  return out;
}

}  // namespace th::hlo
