#include "hlo_models.h"

#include <tracehound/hlo.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <string>

namespace th::roofline {
namespace {

namespace sh = th::sdk::hlo;

// a · b, saturating at INT64_MAX (hostile shapes never overflow).
int64_t Mul(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}
int64_t Add(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

int64_t Elements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n = Mul(n, std::max<int64_t>(d, 0));
  return n;
}

// The first array of a shape (a tuple's element 0, recursively).
const sh::Shape& FirstArray(const sh::Shape& s) {
  return s.tuple() && !s.elements.empty() ? FirstArray(s.elements[0]) : s;
}

int64_t LeafElements(const sh::Shape& s) {
  if (!s.tuple()) return Elements(s.dims);
  int64_t n = 0;
  for (const sh::Shape& e : s.elements) n = Add(n, LeafElements(e));
  return n;
}

int64_t SizeOf(const sh::Shape& s) {
  if (s.tuple()) {
    int64_t b = 0;
    for (const sh::Shape& e : s.elements) b = Add(b, SizeOf(e));
    return b;
  }
  return Mul(Elements(s.dims), sh::BitWidth(s.type)) / 8;
}

// "{1,2}" at `pos`.
bool Braced(std::string_view s, size_t* pos, std::vector<int64_t>* out) {
  if (*pos >= s.size() || s[*pos] != '{') return false;
  ++*pos;
  return sh::detail::ParseList(s, pos, '}', out);
}

// "3x3" or "1_1x0_2" (pairs) into `out` (pairs: two entries per dimension).
bool Crossed(std::string_view v, bool pairs, std::vector<int64_t>* out) {
  size_t pos = 0;
  while (pos < v.size()) {
    int64_t a = 0;
    if (!sh::detail::ParseInt(v, &pos, &a)) return false;
    out->push_back(a);
    if (pairs) {
      if (pos >= v.size() || v[pos] != '_') return false;
      ++pos;
      if (!sh::detail::ParseInt(v, &pos, &a)) return false;
      out->push_back(a);
    }
    if (pos < v.size() && v[pos] != 'x') return false;
    if (pos < v.size()) ++pos;
  }
  return true;
}

// The spatial dimension numbers and the two named roles of one operand's
// labels ("b01f"); false on a label that is neither.
bool OperandLabels(std::string_view l, char a, char b, int64_t* da, int64_t* db,
                   std::vector<int64_t>* spatial) {
  int64_t seen_a = -1, seen_b = -1;
  std::vector<int64_t> by_number(l.size(), -1);
  for (size_t i = 0; i < l.size(); ++i) {
    const auto dim = static_cast<int64_t>(i);
    if (l[i] == a) {
      seen_a = dim;
    } else if (l[i] == b) {
      seen_b = dim;
    } else if (l[i] >= '0' && l[i] <= '9' && static_cast<size_t>(l[i] - '0') < l.size()) {
      by_number[static_cast<size_t>(l[i] - '0')] = dim;
    } else {
      return false;
    }
  }
  if (seen_a < 0 || seen_b < 0 || l.size() < 2) return false;
  for (size_t k = 0; k + 2 < l.size(); ++k) {
    if (by_number[k] < 0) return false;
    spatial->push_back(by_number[k]);
  }
  *da = seen_a;
  *db = seen_b;
  return true;
}

// Valid (kernel, output) position pairs of one spatial dimension.
int64_t ValidPositions(int64_t in, int64_t kernel, int64_t out, const WindowDim& w) {
  int64_t valid = 0;
  for (int64_t k = 0; k < kernel; ++k) {
    for (int64_t o = 0; o < out; ++o) {
      const int64_t undilated = o * w.stride - w.padding_low + k * w.window_dilation;
      const int64_t index = w.base_dilation > 1 ? undilated / w.base_dilation : undilated;
      if (undilated != index * w.base_dilation) continue;
      if (index >= 0 && index < in) ++valid;
    }
  }
  return valid;
}

HloCost Unmodelled(std::string why) {
  HloCost c;
  c.why = std::move(why);
  return c;
}

bool IsZeroFlopOp(std::string_view op) {
  static constexpr std::string_view kOps[] = {"parameter",
                                              "constant",
                                              "get-tuple-element",
                                              "tuple",
                                              "bitcast",
                                              "copy",
                                              "transpose",
                                              "broadcast",
                                              "slice",
                                              "dynamic-slice",
                                              "dynamic-update-slice",
                                              "concatenate",
                                              "pad",
                                              "reshape",
                                              "reverse",
                                              "gather",
                                              "iota",
                                              "bitcast-convert",
                                              "after-all",
                                              "add-dependency",
                                              "opt-barrier",
                                              "partition-id",
                                              "replica-id",
                                              "domain",
                                              "dynamic-reshape"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

bool IsCollective(std::string_view op) {
  static constexpr std::string_view kPrefixes[] = {
      "all-reduce",         "all-gather",           "reduce-scatter", "all-to-all",
      "collective-permute", "collective-broadcast", "send",           "recv"};
  for (std::string_view p : kPrefixes)
    if (op.rfind(p, 0) == 0) return true;
  return false;
}

// The operand and output shapes, parsed; false when one does not parse.
bool ParseShapes(const HloOp& op, sh::Shape* out, std::vector<sh::Shape>* operands) {
  std::optional<sh::Shape> s = sh::ParseShape(op.shape);
  if (!s) return false;
  *out = std::move(*s);
  for (std::string_view o : op.operand_shapes) {
    std::optional<sh::Shape> p = sh::ParseShape(o);
    if (!p) return false;
    operands->push_back(std::move(*p));
  }
  return true;
}

// dot, or a GEMM custom-call (its result: the tuple's first element).
HloCost DotCost(const HloOp& op, const sh::Shape& out, const std::vector<sh::Shape>& in) {
  const std::optional<DotDims> d = ParseDotDims(op.dot_dims);
  if (!d) return Unmodelled("no dot dimension numbers");
  if (in.size() < 2) return Unmodelled("a dot without two operands");
  for (int64_t k : d->lhs_contracting)
    if (k < 0 || static_cast<size_t>(k) >= in[0].dims.size())
      return Unmodelled("a contracting dimension outside the lhs");
  HloCost c;
  c.modelled = true;
  const sh::Shape& result = FirstArray(out);
  c.flops = DotFlops(in[0].dims, result.dims, *d);
  c.bytes = SizeOf(result);
  for (const sh::Shape& s : in) c.bytes = Add(c.bytes, SizeOf(s));
  c.dtype = PeakDtype(FirstArray(in[0]).type);
  c.unit = "matrix";
  return c;
}

// convolution, or a cuDNN/MIOpen convolution custom-call.
HloCost ConvCost(const HloOp& op, const sh::Shape& out, const std::vector<sh::Shape>& in) {
  const std::optional<ConvDims> d = ParseDimLabels(op.dim_labels);
  const std::optional<std::vector<WindowDim>> w = ParseWindow(op.window);
  if (!d || !w) return Unmodelled("no convolution dimension numbers or window");
  if (in.size() < 2) return Unmodelled("a convolution without two operands");
  const sh::Shape& result = FirstArray(out);
  const size_t rank = d->input_spatial.size() + 2;
  if (in[0].dims.size() != rank || in[1].dims.size() != rank || result.dims.size() != rank ||
      (!w->empty() && w->size() != d->input_spatial.size()) || op.feature_group_count <= 0 ||
      op.batch_group_count <= 0)
    return Unmodelled("convolution shapes do not fit its dimension numbers");
  HloCost c;
  c.modelled = true;
  c.flops = ConvolutionFlops(in[0].dims, in[1].dims, result.dims, *d, *w, op.feature_group_count,
                             op.batch_group_count);
  c.bytes = SizeOf(result);
  for (const sh::Shape& s : in) c.bytes = Add(c.bytes, SizeOf(s));
  c.dtype = PeakDtype(in[0].type);
  c.unit = "matrix";
  return c;
}

}  // namespace

std::string PeakDtype(std::string_view t) {
  if (t == "bf16") return "bf16";
  if (t == "f16") return "fp16";
  if (t == "f32") return "fp32";
  if (t == "f64") return "fp64";
  if (t.rfind("f8", 0) == 0) return "fp8";
  if (t == "s8" || t == "u8") return "int8";
  return std::string(t);
}

std::optional<int64_t> ShapeBytes(std::string_view shape) {
  std::optional<sh::Shape> s = sh::ParseShape(shape);
  if (!s) return std::nullopt;
  return SizeOf(*s);
}

std::optional<DotDims> ParseDotDims(std::string_view text) {
  if (text.empty()) return std::nullopt;
  DotDims d;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t eq = text.find('=', pos);
    if (eq == std::string_view::npos) return std::nullopt;
    const std::string_view key = text.substr(pos, eq - pos);
    std::vector<int64_t>* list = key == "lhs_contracting_dims"   ? &d.lhs_contracting
                                 : key == "rhs_contracting_dims" ? &d.rhs_contracting
                                 : key == "lhs_batch_dims"       ? &d.lhs_batch
                                 : key == "rhs_batch_dims"       ? &d.rhs_batch
                                                                 : nullptr;
    pos = eq + 1;
    if (list == nullptr || !Braced(text, &pos, list)) return std::nullopt;
    if (pos < text.size() && text.substr(pos, 2) != ", ") return std::nullopt;
    if (pos < text.size()) pos += 2;
  }
  return d;
}

std::optional<std::vector<WindowDim>> ParseWindow(std::string_view text) {
  std::vector<WindowDim> w;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    const std::string_view key = item.substr(0, eq);
    std::vector<int64_t> v;
    if (!Crossed(item.substr(eq + 1), key == "pad", &v)) return std::nullopt;
    const size_t n = key == "pad" ? v.size() / 2 : v.size();
    if (key == "size") w.resize(n);
    if (n != w.size()) return std::nullopt;
    for (size_t i = 0; i < n; ++i) {
      if (key == "size") {
        w[i].size = v[i];
      } else if (key == "stride") {
        w[i].stride = v[i];
      } else if (key == "pad") {
        w[i].padding_low = v[2 * i];
        w[i].padding_high = v[2 * i + 1];
      } else if (key == "lhs_dilate") {
        w[i].base_dilation = v[i];
      } else if (key == "rhs_dilate") {
        w[i].window_dilation = v[i];
      } else if (key != "rhs_reversal") {
        return std::nullopt;
      }
    }
  }
  return w;
}

std::optional<ConvDims> ParseDimLabels(std::string_view text) {
  const size_t us = text.find('_'), arrow = text.find("->");
  if (us == std::string_view::npos || arrow == std::string_view::npos || arrow < us)
    return std::nullopt;
  ConvDims d;
  if (!OperandLabels(text.substr(0, us), 'b', 'f', &d.input_batch, &d.input_feature,
                     &d.input_spatial) ||
      !OperandLabels(text.substr(us + 1, arrow - us - 1), 'i', 'o', &d.kernel_input_feature,
                     &d.kernel_output_feature, &d.kernel_spatial) ||
      !OperandLabels(text.substr(arrow + 2), 'b', 'f', &d.output_batch, &d.output_feature,
                     &d.output_spatial))
    return std::nullopt;
  if (d.kernel_spatial.size() != d.input_spatial.size() ||
      d.output_spatial.size() != d.input_spatial.size())
    return std::nullopt;
  return d;
}

int64_t DotFlops(const std::vector<int64_t>& lhs, const std::vector<int64_t>& out,
                 const DotDims& d) {
  int64_t width = 1;
  for (int64_t k : d.lhs_contracting)
    if (k >= 0 && static_cast<size_t>(k) < lhs.size()) width = Mul(width, lhs[k]);
  return Mul(Mul(2, Elements(out)), width);
}

int64_t ConvolutionFlops(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs,
                         const std::vector<int64_t>& out, const ConvDims& d,
                         const std::vector<WindowDim>& window, int64_t feature_groups,
                         int64_t batch_groups) {
  int64_t positions = 1;
  for (size_t s = 0; s < window.size() && s < d.input_spatial.size(); ++s) {
    positions = Mul(positions, ValidPositions(lhs[d.input_spatial[s]], rhs[d.kernel_spatial[s]],
                                              out[d.output_spatial[s]], window[s]));
  }
  const int64_t fma = Mul(Mul(lhs[d.input_feature] / feature_groups, out[d.output_feature]),
                          Mul(lhs[d.input_batch] / batch_groups, positions));
  return Mul(2, fma);
}

bool IsTranscendental(std::string_view op) {
  static constexpr std::string_view kOps[] = {
      "exponential", "log",  "logistic", "power", "sqrt", "cbrt",  "rsqrt",
      "tanh",        "sine", "cosine",   "tan",   "erf",  "atan2", "exponential-minus-one",
      "log-plus-one"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

bool IsElementwise(std::string_view op) {
  static constexpr std::string_view kOps[] = {"abs",
                                              "add",
                                              "and",
                                              "ceil",
                                              "clamp",
                                              "compare",
                                              "complex",
                                              "convert",
                                              "count-leading-zeros",
                                              "divide",
                                              "floor",
                                              "imag",
                                              "is-finite",
                                              "maximum",
                                              "minimum",
                                              "multiply",
                                              "negate",
                                              "not",
                                              "or",
                                              "popcnt",
                                              "real",
                                              "reduce-precision",
                                              "remainder",
                                              "round-nearest-afz",
                                              "round-nearest-even",
                                              "select",
                                              "shift-left",
                                              "shift-right-arithmetic",
                                              "shift-right-logical",
                                              "sign",
                                              "stochastic-convert",
                                              "subtract",
                                              "xor"};
  return IsTranscendental(op) || std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

std::optional<int64_t> IntAttribute(std::string_view dict, std::string_view name) {
  for (size_t at = dict.find(name); at != std::string_view::npos; at = dict.find(name, at + 1)) {
    const bool starts = at > 0 && (dict[at - 1] == '{' || dict[at - 1] == ' ');
    const std::string_view rest = dict.substr(at + name.size());
    if (!starts || rest.rfind(" = ", 0) != 0) continue;
    size_t pos = 3;
    const bool negative = pos < rest.size() && rest[pos] == '-';
    if (negative) ++pos;
    if (pos >= rest.size() || rest[pos] < '0' || rest[pos] > '9') return std::nullopt;
    int64_t v = 0;
    for (; pos < rest.size() && rest[pos] >= '0' && rest[pos] <= '9'; ++pos)
      v = Add(Mul(v, 10), rest[pos] - '0');
    if (rest.substr(pos).rfind(" : i", 0) != 0) return std::nullopt;  // an integer type
    return negative ? -v : v;
  }
  return std::nullopt;
}

HloCost FusedAttentionCost(const HloOp& op) {
  const std::string_view config = op.custom_call_config;
  const std::string target(op.custom_call_target);
  auto attr = [&](std::string_view name) { return IntAttribute(config, name); };
  const auto batch = attr("input_batch"), heads = attr("attn_heads"), sq = attr("q_max_seqlen"),
             skv = attr("kv_max_seqlen"), dqk = attr("qk_head_dim"), mask = attr("mask_type"),
             layout = attr("qkv_layout");
  if (!batch || !heads || !sq || !skv || !dqk || !mask || !layout)
    return Unmodelled(target + ": its backend_config lacks the attention's sizes");
  const int64_t kv_heads = attr("num_gqa_groups").value_or(*heads);
  const int64_t dv = attr("v_head_dim").value_or(*dqk);
  for (int64_t size : {*batch, *heads, *sq, *skv, *dqk, kv_heads, dv})
    if (size <= 0) return Unmodelled(target + ": a size of 0 or less in its backend_config");
  // NVTE_Mask_Type: 0 none, 1 padding, 2 causal, 3 padding + causal, 4 causal
  // (bottom right), 5 padding + causal (bottom right).
  if (*mask == 1 || *mask == 3 || *mask == 5)
    return Unmodelled(target + ": a padding mask (the real sequence lengths are not recorded)");
  if (*mask < 0 || *mask > 5) return Unmodelled(target + ": an unknown mask type");
  // NVTE_QKV_Layout: 0-9 SBHD/BSHD, 15-16 mixed SBHD/BSHD; THD (10-14,
  // 17-18) and paged KV (19-24) hold variable lengths.
  if (!(*layout >= 0 && *layout <= 9) && *layout != 15 && *layout != 16)
    return Unmodelled(target + ": a packed (THD) or paged layout (lengths vary per sequence)");
  if (const auto left = attr("window_size_left"); left && *left >= 0)
    return Unmodelled(target + ": a sliding window");
  if (op.operand_shapes.empty()) return Unmodelled(target + ": no operand");
  const std::optional<sh::Shape> parsed = sh::ParseShape(op.operand_shapes[0]);
  if (!parsed) return Unmodelled("unreadable shape");
  const sh::Shape& q = *parsed;
  const bool backward = target.rfind("te_fused_attn_backward", 0) == 0;
  const int64_t pairs = Mul(Mul(Mul(*batch, *heads), *sq), *skv);
  int64_t flops = Mul(2 * pairs, backward ? Add(Mul(3, *dqk), Mul(2, dv)) : Add(*dqk, dv));
  if (*mask != 0 && *sq == *skv && flops != INT64_MAX) flops /= 2;  // (not a saturated count)
  const int64_t element = sh::BitWidth(FirstArray(q).type) / 8;
  int64_t bytes =
      Mul(*batch, Add(Add(Mul(Mul(*heads, *sq), Add(*dqk, dv)), Mul(Mul(kv_heads, *skv), *dqk)),
                      Mul(Mul(kv_heads, *skv), dv)));
  if (backward) bytes = Mul(bytes, 2);  // dO, dQ, dK and dV: as many again
  const int64_t bias = attr("bias_type").value_or(0);
  if (bias == 1 || bias == 2)  // a bias tensor [bias_batch, bias_heads, Sq, Skv]
    bytes = Add(bytes, Mul(Mul(attr("bias_batch").value_or(1), attr("bias_heads").value_or(1)),
                           Mul(*sq, *skv)));
  HloCost c;
  c.modelled = true;
  c.flops = flops;
  c.bytes = Mul(bytes, element);
  c.dtype = PeakDtype(FirstArray(q).type);
  c.unit = "matrix";
  return c;
}

HloCost InstructionCost(const HloOp& op) {
  sh::Shape out;
  std::vector<sh::Shape> in;
  if (!ParseShapes(op, &out, &in)) return Unmodelled("unreadable shape");
  const std::string_view code = op.opcode;
  if (code == "dot") return DotCost(op, out, in);
  if (code == "convolution") return ConvCost(op, out, in);
  if (code == "custom-call") {
    const std::string_view t = op.custom_call_target;
    if (t.rfind("__cublas$", 0) == 0 && !op.dot_dims.empty()) return DotCost(op, out, in);
    if (t.rfind("__cudnn$conv", 0) == 0) return ConvCost(op, out, in);
    if (t.rfind("te_fused_attn_forward", 0) == 0 || t.rfind("te_fused_attn_backward", 0) == 0)
      return FusedAttentionCost(op);
    return Unmodelled("custom-call " + std::string(t) + ": no model");
  }
  if (IsCollective(code)) return Unmodelled("collective: communication, not a roofline op");
  if (code == "copy-start" || code == "copy-done" || code.rfind("async-", 0) == 0)
    return Unmodelled("asynchronous: its time is the issue or the wait, not the transfer");
  HloCost c;
  c.modelled = true;
  c.unit = "vector";
  c.dtype = PeakDtype(FirstArray(out).type);
  c.bytes = SizeOf(out);
  for (const sh::Shape& s : in) c.bytes = Add(c.bytes, SizeOf(s));
  const int64_t n = LeafElements(out);
  if (IsTranscendental(code) || code == "rng" || code == "rng-bit-generator") {
    c.transcendentals = n;
  } else if (IsElementwise(code)) {
    c.flops = n;
  } else if ((code == "reduce" || code == "reduce-window") && !in.empty()) {
    const int64_t in_elements = Elements(FirstArray(in[0]).dims);
    const int64_t out_elements = Elements(FirstArray(out).dims);
    int64_t count = std::max<int64_t>(in_elements - out_elements, 0);
    if (code == "reduce-window") {
      const std::optional<std::vector<WindowDim>> w = ParseWindow(op.window);
      if (!w) return Unmodelled("reduce-window without a window");
      int64_t size = 1;
      for (const WindowDim& d : *w) size = Mul(size, d.size);
      count = Mul(size - 1, out_elements);
    }
    c.flops = Mul(count, op.reducer_flops);
  } else if (code == "sort" && !in.empty()) {
    const int64_t e = Elements(FirstArray(in[0]).dims);
    int64_t log = 0;
    while (log < 63 && (int64_t{1} << log) < e) ++log;
    c.flops = Mul(e, log);
  } else if (!IsZeroFlopOp(code)) {
    return Unmodelled("no model for opcode " + std::string(code));
  }
  return c;
}

HloCost FusionCost(const HloOp& fusion, const std::vector<HloCost>& body) {
  sh::Shape out;
  std::vector<sh::Shape> in;
  if (!ParseShapes(fusion, &out, &in)) return Unmodelled("unreadable shape");
  HloCost c;
  c.modelled = true;
  c.unit = "vector";
  c.dtype = PeakDtype(FirstArray(out).type);
  for (const HloCost& b : body) {
    if (!b.modelled) return Unmodelled("fused: " + b.why);
    c.flops = Add(c.flops, b.flops);
    c.transcendentals = Add(c.transcendentals, b.transcendentals);
    if (b.unit == "matrix" && c.unit != "matrix") {
      c.unit = "matrix";
      c.dtype = b.dtype;
    }
  }
  c.bytes = SizeOf(out);
  for (const sh::Shape& s : in) c.bytes = Add(c.bytes, SizeOf(s));
  return c;
}

}  // namespace th::roofline
