// Header-only helpers for plugins that read the HLO tables of a trace:
// shape text parsing, layouts, sizes, the compute-stage rule of
// XProf's compiler detectors, and a graph view with fusion bodies.
#ifndef TRACEHOUND_HLO_H_
#define TRACEHOUND_HLO_H_

#include <tracehound/sdk.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace th::sdk::hlo {

inline constexpr uint32_t kNone = 0xFFFFFFFFu;

// An HLO shape as XLA prints it: "f32[8,16]{1,0}", "(bf16[4]{0}, s32[])",
// "token[]". `minor_to_major` is empty and `has_layout` false when the text
// has no layout.
struct Shape {
  std::string type;  // element type, "tuple" for tuples
  std::vector<int64_t> dims;
  std::vector<int64_t> minor_to_major;
  bool has_layout = false;
  std::vector<Shape> elements;
  bool tuple() const { return type == "tuple"; }
};

namespace detail {
inline bool ParseInt(std::string_view s, size_t* pos, int64_t* out) {
  size_t p = *pos;
  bool neg = p < s.size() && s[p] == '-';
  if (neg) ++p;
  if (p >= s.size() || s[p] < '0' || s[p] > '9') return false;
  int64_t v = 0;
  while (p < s.size() && s[p] >= '0' && s[p] <= '9') v = v * 10 + (s[p++] - '0');
  *out = neg ? -v : v;
  *pos = p;
  return true;
}
inline bool ParseList(std::string_view s, size_t* pos, char close, std::vector<int64_t>* out) {
  while (*pos < s.size() && s[*pos] != close) {
    int64_t v;
    if (!ParseInt(s, pos, &v)) return false;
    out->push_back(v);
    if (*pos < s.size() && s[*pos] == ',') ++*pos;
  }
  if (*pos >= s.size()) return false;
  ++*pos;  // close
  return true;
}
inline bool ParseShapeAt(std::string_view s, size_t* pos, Shape* out) {
  while (*pos < s.size() && s[*pos] == ' ') ++*pos;
  if (*pos < s.size() && s[*pos] == '(') {
    out->type = "tuple";
    ++*pos;
    while (*pos < s.size() && s[*pos] != ')') {
      out->elements.emplace_back();
      if (!ParseShapeAt(s, pos, &out->elements.back())) return false;
      while (*pos < s.size() && (s[*pos] == ',' || s[*pos] == ' ')) ++*pos;
    }
    if (*pos >= s.size()) return false;
    ++*pos;
    return true;
  }
  size_t start = *pos;
  while (*pos < s.size() && s[*pos] != '[') ++*pos;
  if (*pos >= s.size()) return false;
  out->type = std::string(s.substr(start, *pos - start));
  ++*pos;
  if (!ParseList(s, pos, ']', &out->dims)) return false;
  if (*pos < s.size() && s[*pos] == '{') {
    ++*pos;
    out->has_layout = true;
    // Tiling and memory-space suffixes ("{1,0:T(8,128)}") end the list at ':'.
    while (*pos < s.size() && s[*pos] != '}' && s[*pos] != ':') {
      int64_t v;
      if (!ParseInt(s, pos, &v)) return false;
      out->minor_to_major.push_back(v);
      if (*pos < s.size() && s[*pos] == ',') ++*pos;
    }
    int depth = 1;  // skip to the matching '}'
    while (*pos < s.size() && depth > 0) {
      if (s[*pos] == '{') ++depth;
      if (s[*pos] == '}') --depth;
      ++*pos;
    }
  }
  return true;
}
}  // namespace detail

inline std::optional<Shape> ParseShape(std::string_view text) {
  Shape s;
  size_t pos = 0;
  if (text.empty() || !detail::ParseShapeAt(text, &pos, &s)) return std::nullopt;
  return s;
}

// Bits per element; 0 for tuple/token/opaque or an unknown type.
inline int BitWidth(std::string_view t) {
  if (t == "pred" || t == "s8" || t == "u8" || t.rfind("f8", 0) == 0) return 8;
  if (t == "s4" || t == "u4" || t == "f4e2m1fn") return 4;
  if (t == "s2" || t == "u2") return 2;
  if (t == "s1" || t == "u1") return 1;
  if (t == "s16" || t == "u16" || t == "f16" || t == "bf16") return 16;
  if (t == "s32" || t == "u32" || t == "f32") return 32;
  if (t == "s64" || t == "u64" || t == "f64" || t == "c64") return 64;
  if (t == "c128") return 128;
  return 0;
}

// Bytes of the value (tuples: the sum of their elements).
inline int64_t Bytes(const Shape& s) {
  if (s.tuple()) {
    int64_t b = 0;
    for (const Shape& e : s.elements) b += Bytes(e);
    return b;
  }
  int64_t n = 1;
  for (int64_t d : s.dims) n *= d;
  return n * BitWidth(s.type) / 8;
}

// The layout in effect: minor_to_major, or XLA's default (reversed dims).
inline std::vector<int64_t> EffectiveLayout(const Shape& s) {
  if (s.has_layout) return s.minor_to_major;
  std::vector<int64_t> d;
  for (int64_t i = static_cast<int64_t>(s.dims.size()) - 1; i >= 0; --i) d.push_back(i);
  return d;
}

enum class Layouts { kSame, kDifferent, kUnknown };

// Leafwise layout comparison (tuples element by element).
inline Layouts CompareLayouts(const Shape& a, const Shape& b) {
  if (a.tuple() != b.tuple()) return Layouts::kUnknown;
  if (a.tuple()) {
    if (a.elements.size() != b.elements.size()) return Layouts::kUnknown;
    Layouts out = Layouts::kSame;
    for (size_t i = 0; i < a.elements.size(); ++i) {
      Layouts l = CompareLayouts(a.elements[i], b.elements[i]);
      if (l == Layouts::kUnknown) return l;
      if (l == Layouts::kDifferent) out = l;
    }
    return out;
  }
  return EffectiveLayout(a) == EffectiveLayout(b) ? Layouts::kSame : Layouts::kDifferent;
}

// TPU lane width in elements for the minor-most dimension (4096 bits).
inline int64_t LaneElements(std::string_view type) {
  int bits = BitWidth(type);
  return 4096 / (bits > 0 ? bits : 1);
}

// XProf's compute stages: opcodes doing arithmetic on tensors.
inline bool IsComputeOpcode(std::string_view op) {
  static const std::string_view kParts[] = {"convolution",
                                            "dot",
                                            "reduce",
                                            "scatter",
                                            "gather",
                                            "fft",
                                            "triangular-solve",
                                            "cholesky",
                                            "sort",
                                            "topk",
                                            "batch-norm",
                                            "all-to-all",
                                            "collective-permute",
                                            "collective-broadcast"};
  for (std::string_view p : kParts)
    if (op.find(p) != std::string_view::npos) return true;
  return false;
}

// Custom-call targets that do not compute (sharding markers, host calls...).
inline bool IsComputeCustomCall(std::string_view target) {
  static const std::string_view kNonCompute[] = {"Sharding",
                                                 "SPMDFullToShardShape",
                                                 "SPMDShardToFullShape",
                                                 "MoveToHost",
                                                 "MoveToDevice",
                                                 "PinToDevice",
                                                 "pin",
                                                 "unpin",
                                                 "AllocateBuffer",
                                                 "xla_python_cpu_callback",
                                                 "xla_python_gpu_callback",
                                                 "xla_ffi_python_cpu_callback",
                                                 "xla_ffi_python_gpu_callback",
                                                 "annotate_device_placement",
                                                 "LayoutConstraint",
                                                 "InspectSharding",
                                                 "Barrier",
                                                 "tf.HostCompute",
                                                 "X64Combine",
                                                 "X64SplitLow",
                                                 "X64SplitHigh",
                                                 "ResizeBilinear",
                                                 "cu_threefry2x32",
                                                 "__gpu$xla.gpu.ext.memcpy"};
  if (target.empty()) return false;
  for (std::string_view n : kNonCompute)
    if (target == n) return false;
  return true;
}

// The HLO instructions of one trace as a graph: operands, users, and the
// instructions of each fusion/call body (by calling instruction).
class Graph {
 public:
  explicit Graph(const Trace& t) : t_(t) {
    const auto n = static_cast<uint32_t>(t.hlo_instruction_count());
    body_offsets_.assign(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i)
      if (t.hlo_caller(i) != kNoRow) ++body_offsets_[t.hlo_caller(i) + 1];
    for (uint32_t i = 0; i < n; ++i) body_offsets_[i + 1] += body_offsets_[i];
    body_.resize(body_offsets_[n]);
    std::vector<uint32_t> fill(body_offsets_.begin(), body_offsets_.end() - 1);
    for (uint32_t i = 0; i < n; ++i)
      if (t.hlo_caller(i) != kNoRow) body_[fill[t.hlo_caller(i)]++] = i;
  }
  const Trace& trace() const { return t_; }
  uint32_t size() const { return static_cast<uint32_t>(t_.hlo_instruction_count()); }
  // Instructions of the computations `i` calls (fusion body, call/while bodies).
  std::span<const uint32_t> body(uint32_t i) const {
    return {body_.data() + body_offsets_[i], body_offsets_[i + 1] - body_offsets_[i]};
  }
  // Parameter k of the body `i` calls (the first match), or kNone.
  uint32_t BodyParameter(uint32_t i, int32_t k) const {
    for (uint32_t b : body(i))
      if (t_.hlo_opcode(b) == "parameter" && t_.hlo_parameter_number(b) == k) return b;
    return kNone;
  }
  // A compute stage: a compute opcode, a compute custom-call, or a fusion
  // whose body holds one.
  bool IsCompute(uint32_t i) const {
    std::string_view op = t_.hlo_opcode(i);
    if (op == "custom-call") return IsComputeCustomCall(t_.hlo_custom_call_target(i));
    if (IsComputeOpcode(op)) return true;
    if (op == "fusion") {
      for (uint32_t b : body(i))
        if (IsCompute(b)) return true;
    }
    return false;
  }
  std::optional<Shape> ShapeOf(uint32_t i) const { return ParseShape(t_.hlo_shape(i)); }
  // "file:line" of the instruction, or of its fusion body's first instruction
  // that has one; "" when none.
  std::string SourceLine(uint32_t i) const {
    if (!t_.hlo_source_file(i).empty())
      return std::string(t_.hlo_source_file(i)) + ":" + std::to_string(t_.hlo_source_line(i));
    for (uint32_t b : body(i))
      if (!t_.hlo_source_file(b).empty())
        return std::string(t_.hlo_source_file(b)) + ":" + std::to_string(t_.hlo_source_line(b));
    return {};
  }

 private:
  const Trace& t_;
  std::vector<uint32_t> body_offsets_, body_;
};

// Measured device time of each instruction: the GPU events attributed to it
// (any match class but none), and how many of them matched exactly.
struct MeasuredTime {
  std::vector<int64_t> ns, events, exact;
  explicit MeasuredTime(const Trace& t)
      : ns(t.hlo_instruction_count(), 0),
        events(t.hlo_instruction_count(), 0),
        exact(t.hlo_instruction_count(), 0) {
    if (!t.attributed()) return;
    for (uint64_t r = 0; r < t.gpu_rows(); ++r) {
      uint32_t f = t.gpu_hlo_instruction(r);
      if (f == kNoRow) continue;
      ns[f] += t.dur(t.gpu_event(r));
      ++events[f];
      exact[f] += t.gpu_hlo_match(r) == TH_HLO_MATCH_EXACT;
    }
  }
};

}  // namespace th::sdk::hlo

#endif  // TRACEHOUND_HLO_H_
