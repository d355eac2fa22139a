#include "op_models.h"

#include <tracehound/op_shapes.h>

#include <algorithm>
#include <array>
#include <climits>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace th::roofline {
namespace {

// A count that saturates: a negative operand or an overflow gives kOut,
// which every later operation keeps (hostile shapes never overflow int64).
struct N {
  static constexpr int64_t kOut = INT64_MAX;
  int64_t v;
  N(int64_t x) : v(x < 0 ? kOut : x) {}  // NOLINT: counts mix with sizes
  bool out() const { return v == kOut; }
};
N operator*(N a, N b) {
  int64_t r;
  return a.out() || b.out() || __builtin_mul_overflow(a.v, b.v, &r) ? N(N::kOut) : N(r);
}
N operator+(N a, N b) {
  int64_t r;
  return a.out() || b.out() || __builtin_add_overflow(a.v, b.v, &r) ? N(N::kOut) : N(r);
}

N Elements(const std::vector<int64_t>& dims) {
  N n = 1;
  for (int64_t d : dims) n = n * d;
  return n;
}

OpCost Unmodelled(std::string why) {
  OpCost c;
  c.why = std::move(why);
  return c;
}

OpCost Cost(N flops, N bytes, const ElementType& t, const char* unit) {
  if (flops.out() || bytes.out()) return Unmodelled("sizes out of range");
  OpCost c;
  c.modelled = true;
  c.flops = flops.v;
  c.bytes = bytes.v;
  c.dtype = t.dtype;
  c.unit = unit;
  return c;
}

// NumPy broadcasting of two shapes; false when they do not broadcast.
bool Broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
               std::vector<int64_t>* out) {
  const size_t n = std::max(a.size(), b.size());
  out->assign(n, 1);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    (*out)[i] = x == 1 ? y : x;
  }
  return true;
}

// Inputs that are tensors: a known element type with a size.
struct Tensor {
  const std::vector<int64_t>* dims;
  ElementType type;
};
std::vector<Tensor> Tensors(const OpInputs& in) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < in.dims.size() && i < in.types.size(); ++i) {
    ElementType t = ElementTypeOf(in.types[i]);
    if (t.bytes > 0) out.push_back({&in.dims[i], t});
  }
  return out;
}

// Tensor input i (by position among all inputs), or nullptr.
const std::vector<int64_t>* Input(const OpInputs& in, size_t i, ElementType* t = nullptr) {
  if (i >= in.dims.size() || i >= in.types.size()) return nullptr;
  const ElementType e = ElementTypeOf(in.types[i]);
  if (e.bytes == 0) return nullptr;
  if (t) *t = e;
  return &in.dims[i];
}

// Element-wise ops by their operand count (self, other, ...). Inputs past
// the operands are scalars (alpha, value) or the `out=` tensor of the .out
// overload, which is written, not read.
const std::map<std::string_view, size_t> kElementwise = {
    {"aten::add", 2},           {"aten::add_", 2},         {"aten::sub", 2},
    {"aten::sub_", 2},          {"aten::mul", 2},          {"aten::mul_", 2},
    {"aten::div", 2},           {"aten::div_", 2},         {"aten::pow", 2},
    {"aten::maximum", 2},       {"aten::minimum", 2},      {"aten::relu", 1},
    {"aten::relu_", 1},         {"aten::gelu", 1},         {"aten::silu", 1},
    {"aten::silu_", 1},         {"aten::sigmoid", 1},      {"aten::tanh", 1},
    {"aten::exp", 1},           {"aten::neg", 1},          {"aten::sqrt", 1},
    {"aten::rsqrt", 1},         {"aten::clamp", 1},        {"aten::where", 3},
    {"aten::addcmul", 3},       {"aten::addcdiv", 3},      {"aten::threshold_backward", 2},
    {"aten::gelu_backward", 2}, {"aten::silu_backward", 2}};
const std::set<std::string_view> kGemm = {"aten::mm",      "aten::bmm",    "aten::addmm",
                                          "aten::baddbmm", "aten::matmul", "aten::linear"};
const std::set<std::string_view> kAttention = {"aten::scaled_dot_product_attention",
                                               "aten::_scaled_dot_product_flash_attention",
                                               "aten::_scaled_dot_product_efficient_attention",
                                               "aten::_scaled_dot_product_cudnn_attention",
                                               "aten::_flash_attention_forward",
                                               "aten::_efficient_attention_forward"};
const std::set<std::string_view> kNorms = {"aten::layer_norm", "aten::native_layer_norm",
                                           "aten::rms_norm", "aten::batch_norm",
                                           "aten::native_batch_norm"};
const std::set<std::string_view> kReductions = {
    "aten::sum",      "aten::mean",        "aten::amax",        "aten::softmax",
    "aten::_softmax", "aten::log_softmax", "aten::_log_softmax"};
// Where a convolution op's arguments are, by position (-1: it has none).
// output_padding follows transposed.
struct ConvArgs {
  int bias, stride, padding, dilation, transposed, groups;
};
const std::map<std::string_view, ConvArgs> kConvolution = {
    {"aten::conv1d", {2, 3, 4, 5, -1, 6}},
    {"aten::conv2d", {2, 3, 4, 5, -1, 6}},
    {"aten::conv3d", {2, 3, 4, 5, -1, 6}},
    {"aten::convolution", {2, 3, 4, 5, 6, 8}},
    {"aten::_convolution", {2, 3, 4, 5, 6, 8}},
    {"aten::cudnn_convolution", {-1, 3, 2, 4, -1, 5}},
    {"aten::miopen_convolution", {2, 4, 3, 5, -1, 6}}};

OpCost Gemm(std::string_view name, const OpInputs& in) {
  ElementType t;
  if (name == "aten::linear") {
    const auto* x = Input(in, 0, &t);
    const auto* w = Input(in, 1);
    const auto* bias = Input(in, 2);
    if (!x || !w || x->empty() || w->size() != 2 || x->back() != (*w)[1])
      return Unmodelled("linear: input [..., K] and weight [N, K] expected");
    if (x->back() <= 0 || Elements(*x).out()) return Unmodelled("linear: sizes out of range");
    const int64_t m = Elements(*x).v / x->back();
    return GemmCost(1, m, x->back(), (*w)[0], bias ? Elements(*bias).v : 0, t);
  }
  if (name == "aten::mm" || name == "aten::addmm") {
    const size_t a = name == "aten::addmm" ? 1 : 0;
    const auto* x = Input(in, a, &t);
    const auto* y = Input(in, a + 1);
    const auto* bias = a ? Input(in, 0) : nullptr;
    if (!x || !y || x->size() != 2 || y->size() != 2 || (*x)[1] != (*y)[0])
      return Unmodelled(std::string(name) + ": [M, K] and [K, N] expected");
    return GemmCost(1, (*x)[0], (*x)[1], (*y)[1], bias ? Elements(*bias).v : 0, t);
  }
  if (name == "aten::bmm" || name == "aten::baddbmm") {
    const size_t a = name == "aten::baddbmm" ? 1 : 0;
    const auto* x = Input(in, a, &t);
    const auto* y = Input(in, a + 1);
    const auto* bias = a ? Input(in, 0) : nullptr;
    if (!x || !y || x->size() != 3 || y->size() != 3 || (*x)[0] != (*y)[0] || (*x)[2] != (*y)[1])
      return Unmodelled(std::string(name) + ": [b, M, K] and [b, K, N] expected");
    return GemmCost((*x)[0], (*x)[1], (*x)[2], (*y)[2], bias ? Elements(*bias).v : 0, t);
  }
  // aten::matmul: 1-D operands are promoted, batch dimensions broadcast.
  const auto* x = Input(in, 0, &t);
  const auto* y = Input(in, 1);
  if (!x || !y || x->empty() || y->empty())
    return Unmodelled("matmul: two tensors of rank >= 1 expected");
  std::vector<int64_t> a = *x, b = *y;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  if (a.back() != b[b.size() - 2]) return Unmodelled("matmul: inner dimensions differ");
  std::vector<int64_t> batch;
  if (!Broadcast({a.begin(), a.end() - 2}, {b.begin(), b.end() - 2}, &batch))
    return Unmodelled("matmul: batch dimensions do not broadcast");
  const int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  const N nb = Elements(batch);
  // Operands are read once as they are, not once per broadcast batch.
  return Cost(N(2) * nb * m * k * n, (Elements(*x) + Elements(*y) + nb * m * n) * t.bytes, t,
              "matrix");
}

OpCost Attention(std::string_view name, const OpInputs& in, const AttentionOptions& o) {
  ElementType t;
  const auto* q = Input(in, 0, &t);
  const auto* k = Input(in, 1);
  const auto* v = Input(in, 2);
  if (!q || !k || !v || q->size() != 4 || k->size() != 4 || v->size() != 4)
    return Unmodelled(std::string(name) + ": 4-D query, key and value expected");
  // _flash_attention_forward / _efficient_attention_forward: [B, N, H, d].
  const bool bnhd =
      name == "aten::_flash_attention_forward" || name == "aten::_efficient_attention_forward";
  const size_t hi = bnhd ? 2 : 1, ni = bnhd ? 1 : 2;
  if ((*q)[0] != (*k)[0] || (*q)[hi] != (*k)[hi] || (*q)[3] != (*k)[3] || (*k)[ni] != (*v)[ni])
    return Unmodelled(std::string(name) + ": query, key and value shapes disagree");
  return AttentionCost((*q)[0], (*q)[hi], (*q)[ni], (*k)[ni], (*q)[3], (*v)[3], o.causal, t);
}

OpCost Elementwise(std::string_view name, const OpInputs& in) {
  OpInputs operands = in;
  const size_t arity = kElementwise.at(name);
  if (operands.dims.size() > arity) operands.dims.resize(arity);
  if (operands.types.size() > arity) operands.types.resize(arity);
  const std::vector<Tensor> ts = Tensors(operands);
  if (ts.empty()) return Unmodelled(std::string(name) + ": no tensor input");
  std::vector<int64_t> out = *ts[0].dims;
  N bytes = 0;
  for (const Tensor& x : ts) {
    std::vector<int64_t> next;
    if (!Broadcast(out, *x.dims, &next))
      return Unmodelled(std::string(name) + ": inputs do not broadcast");
    out = next;
    bytes = bytes + Elements(*x.dims) * x.type.bytes;
  }
  const N n = Elements(out);
  return Cost(n, bytes + n * ts[0].type.bytes, ts[0].type, "vector");
}

OpCost Norm(std::string_view name, const OpInputs& in) {
  const std::vector<Tensor> ts = Tensors(in);
  if (ts.empty()) return Unmodelled(std::string(name) + ": no tensor input");
  const N n = Elements(*ts[0].dims);
  N bytes = n * ts[0].type.bytes;  // the output
  for (const Tensor& x : ts) bytes = bytes + Elements(*x.dims) * x.type.bytes;
  // Per element: layer/batch norm 7 (mean, centre, square, sum, scale by the
  // inverse deviation, affine multiply and add); rms_norm 4 (square, sum,
  // scale, weight).
  const int64_t per = name == "aten::rms_norm" ? 4 : 7;
  return Cost(n * per, bytes, ts[0].type, "vector");
}

// "[True, True, False]": the three flags of output_mask.
bool MaskOf(std::string_view v, std::array<bool, 3>* mask) {
  std::vector<bool> flags;
  if (!th::sdk::ConcreteBoolList(v, &flags) || flags.size() != 3) return false;
  for (size_t i = 0; i < 3; ++i) (*mask)[i] = flags[i];
  return true;
}

// Where a norm backward's arguments are, by position:
// native_batch_norm_backward(grad_out, input, weight, running_mean,
// running_var, save_mean, save_invstd, train, eps, output_mask) and
// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd,
// weight, bias, output_mask).
struct NormBackwardArgs {
  size_t weight, mask;
};
const std::map<std::string_view, NormBackwardArgs> kNormBackward = {
    {"aten::native_batch_norm_backward", {2, 9}}, {"aten::native_layer_norm_backward", {5, 7}}};

OpCost NormBackward(std::string_view name, const OpInputs& in) {
  const std::string n(name);
  ElementType t;
  const auto* dy = Input(in, 0, &t);
  const auto* x = Input(in, 1);
  if (!dy || !x || *dy != *x)
    return Unmodelled(n + ": grad_output and input of one shape expected");
  // Without Concrete Inputs every gradient is taken as asked (PyTorch's
  // autograd asks grad_input of every norm but a model's first layer).
  std::array<bool, 3> mask = {true, true, true};
  const NormBackwardArgs& a = kNormBackward.at(name);
  if (a.mask < in.concrete.size() && !MaskOf(in.concrete[a.mask], &mask))
    return Unmodelled(n + ": unreadable Concrete Inputs (output_mask)");
  const N elements = Elements(*x);
  // Read: every tensor input (grad_output, input, statistics, weight).
  N bytes = 0;
  for (const Tensor& v : Tensors(in)) bytes = bytes + Elements(*v.dims) * v.type.bytes;
  // Written: grad_input; grad_weight and grad_bias as large as the weight.
  if (mask[0]) bytes = bytes + elements * t.bytes;
  ElementType wt;
  if (const auto* w = Input(in, a.weight, &wt))
    bytes = bytes + Elements(*w) * wt.bytes * ((mask[1] ? 1 : 0) + (mask[2] ? 1 : 0));
  // Per element: x̂ again (subtract, scale), dy·x̂, the sums of dy and dy·x̂
  // (5); grad_input = scale · (dy − mean(dy) − x̂ · mean(dy·x̂)) (4 more).
  return Cost(elements * (mask[0] ? 9 : 5), bytes, t, "vector");
}

OpCost Reduction(std::string_view name, const OpInputs& in) {
  const std::vector<Tensor> ts = Tensors(in);
  if (ts.empty()) return Unmodelled(std::string(name) + ": no tensor input");
  const N n = Elements(*ts[0].dims);
  const int64_t b = ts[0].type.bytes;
  const bool softmax = name.find("softmax") != std::string_view::npos;
  // softmax: max, subtract, exp, sum, divide per element; in and out the same
  // shape. Reductions: one add per element; the output (at most the input)
  // is left out of the lower bound, its size depending on `dim`.
  if (softmax) return Cost(n * 5, n * 2 * b, ts[0].type, "vector");
  return Cost(n, n * b, ts[0].type, "vector");
}

OpCost Embedding(const OpInputs& in) {
  ElementType wt, it;
  const auto* w = Input(in, 0, &wt);
  const auto* idx = Input(in, 1, &it);
  if (!w || !idx || w->size() != 2) return Unmodelled("embedding: weight [V, D] expected");
  const N rows = Elements(*idx);
  // A gather: no arithmetic; the rows read, the output written, the indices.
  return Cost(0, rows * 2 * (*w)[1] * wt.bytes + rows * it.bytes, wt, "vector");
}

// A per-spatial-dimension list of Concrete Inputs value i: "[a, b]", or one
// value ("[a]" or "a") for every dimension; "valid" padding is zeros.
bool SpatialList(const OpInputs& in, int i, size_t spatial, std::vector<int64_t>* out) {
  if (i < 0 || static_cast<size_t>(i) >= in.concrete.size()) return false;
  const std::string& v = in.concrete[i];
  int64_t one = 0;
  if (v == "valid") {
    out->assign(spatial, 0);
  } else if (th::sdk::ConcreteInt(v, &one)) {
    out->assign(spatial, one);
  } else if (!th::sdk::ConcreteIntList(v, out)) {
    return false;
  }
  if (out->size() == 1) out->assign(spatial, (*out)[0]);
  return out->size() == spatial;
}

OpCost Convolution(std::string_view name, const OpInputs& in) {
  const ConvArgs& a = kConvolution.at(name);
  const std::string n(name);
  ElementType t;
  const auto* x = Input(in, 0, &t);
  const auto* w = Input(in, 1);
  if (!x || !w || x->size() < 3)
    return Unmodelled(n + ": input [N, C, ...] and weight [O, C/groups, ...] expected");
  if (in.concrete.empty())
    return Unmodelled(n + ": no Concrete Inputs (stride, padding, dilation, groups)");
  bool transposed = false;
  if (a.transposed >= 0 && (static_cast<size_t>(a.transposed) >= in.concrete.size() ||
                            !th::sdk::ConcreteBool(in.concrete[a.transposed], &transposed)))
    return Unmodelled(n + ": unreadable Concrete Inputs (transposed)");
  if (static_cast<size_t>(a.padding) < in.concrete.size() && in.concrete[a.padding] == "same")
    return Unmodelled(n + ": padding \"same\" not modelled");
  const size_t spatial = x->size() - 2;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups = 0;
  if (!SpatialList(in, a.stride, spatial, &stride) ||
      !SpatialList(in, a.padding, spatial, &padding) ||
      !SpatialList(in, a.dilation, spatial, &dilation) ||
      static_cast<size_t>(a.groups) >= in.concrete.size() ||
      !th::sdk::ConcreteInt(in.concrete[a.groups], &groups))
    return Unmodelled(n + ": unreadable Concrete Inputs (stride, padding, dilation, groups)");
  std::vector<int64_t> output_padding;
  if (transposed && !SpatialList(in, a.transposed + 1, spatial, &output_padding))
    return Unmodelled(n + ": unreadable Concrete Inputs (output_padding)");
  const bool bias = a.bias >= 0 && Input(in, a.bias) != nullptr;
  OpCost c = transposed ? ConvTransposeCost(*x, *w, bias, stride, padding, output_padding, dilation,
                                            groups, t)
                        : ConvolutionCost(*x, *w, bias, stride, padding, dilation, groups, t);
  const size_t colon = c.why.find(": ");
  if (!c.modelled && colon != std::string::npos) c.why = n + c.why.substr(colon);
  return c;
}

// aten::convolution_backward(grad_output, input, weight, bias_sizes, stride,
// padding, dilation, transposed, output_padding, groups, output_mask).
OpCost ConvolutionBackward(const OpInputs& in) {
  const std::string n = "aten::convolution_backward";
  ElementType t;
  const auto* g = Input(in, 0, &t);
  const auto* x = Input(in, 1);
  const auto* w = Input(in, 2);
  if (!g || !x || !w || x->size() < 3)
    return Unmodelled(n + ": grad_output, input [N, C, ...] and weight expected");
  if (in.concrete.size() < 11)
    return Unmodelled(n + ": no Concrete Inputs (stride, padding, dilation, groups, output_mask)");
  const size_t spatial = x->size() - 2;
  std::vector<int64_t> stride, padding, dilation, output_padding;
  int64_t groups = 0;
  bool transposed = false;
  std::array<bool, 3> mask{};
  if (!SpatialList(in, 4, spatial, &stride) || !SpatialList(in, 5, spatial, &padding) ||
      !SpatialList(in, 6, spatial, &dilation) ||
      !th::sdk::ConcreteBool(in.concrete[7], &transposed) ||
      !th::sdk::ConcreteInt(in.concrete[9], &groups) || !MaskOf(in.concrete[10], &mask))
    return Unmodelled(n +
                      ": unreadable Concrete Inputs (stride, padding, dilation, transposed, "
                      "groups, output_mask)");
  if (transposed && !SpatialList(in, 8, spatial, &output_padding))
    return Unmodelled(n + ": unreadable Concrete Inputs (output_padding)");
  return ConvolutionBackwardCost(*g, *x, *w, stride, padding, output_padding, dilation, transposed,
                                 groups, mask, t);
}

}  // namespace

ElementType ElementTypeOf(std::string_view t) {
  if (th::sdk::ClassifyInputType(t) != th::sdk::InputKind::kTensor) return {};
  const th::sdk::Dtype d = th::sdk::LookupDtype(t);
  return {std::string(d.name), d.bytes};
}

OpCost GemmCost(int64_t batch, int64_t m, int64_t k, int64_t n, int64_t bias_elements,
                const ElementType& t) {
  return Cost(N(2) * batch * m * k * n,
              (N(batch) * (N(m) * k + N(k) * n + N(m) * n) + bias_elements) * t.bytes, t, "matrix");
}

OpCost AttentionCost(int64_t b, int64_t h, int64_t nq, int64_t nk, int64_t d, int64_t dv,
                     bool causal, const ElementType& t) {
  N flops = N(2) * b * h * nq * nk * (N(d) + dv);
  if (causal && nq == nk && !flops.out()) flops = flops.v / 2;
  const N bytes = N(b) * h * (N(nq) * d + N(nk) * d + N(nk) * dv + N(nq) * dv) * t.bytes;
  return Cost(flops, bytes, t, "matrix");
}

OpCost ConvolutionCost(const std::vector<int64_t>& input, const std::vector<int64_t>& weight,
                       bool bias, const std::vector<int64_t>& stride,
                       const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                       int64_t groups, const ElementType& t, std::vector<int64_t>* out_shape) {
  const size_t spatial = input.size() < 3 ? 0 : input.size() - 2;
  if (spatial == 0 || weight.size() != input.size() || stride.size() != spatial ||
      padding.size() != spatial || dilation.size() != spatial || groups < 1 ||
      (N(weight[1]) * groups).v != N(input[1]).v || N(input[1]).out())
    return Unmodelled("convolution: input [N, C, ...], weight [O, C/groups, ...] expected");
  std::vector<int64_t> out = {input[0], weight[0]};
  for (size_t i = 0; i < spatial; ++i) {
    if (stride[i] <= 0 || dilation[i] <= 0 || padding[i] < 0 || weight[i + 2] <= 0 ||
        input[i + 2] < 0 || input[i + 2] > (int64_t{1} << 40) || padding[i] > (int64_t{1} << 40) ||
        (N(dilation[i]) * weight[i + 2]).out())
      return Unmodelled("convolution: sizes out of range");
    const int64_t span = dilation[i] * (weight[i + 2] - 1) + 1;
    const int64_t o = (input[i + 2] + 2 * padding[i] - span) / stride[i] + 1;
    if (o <= 0) return Unmodelled("convolution: empty output");
    out.push_back(o);
  }
  const N n_out = Elements(out);
  const N per = N(2) * weight[1] * Elements({weight.begin() + 2, weight.end()});
  if (out_shape) *out_shape = out;
  return Cost(n_out * per + (bias ? n_out : N(0)),
              (Elements(input) + Elements(weight) + (bias ? weight[0] : 0) + n_out) * t.bytes, t,
              "matrix");
}

OpCost ConvTransposeCost(const std::vector<int64_t>& input, const std::vector<int64_t>& weight,
                         bool bias, const std::vector<int64_t>& stride,
                         const std::vector<int64_t>& padding,
                         const std::vector<int64_t>& output_padding,
                         const std::vector<int64_t>& dilation, int64_t groups, const ElementType& t,
                         std::vector<int64_t>* out_shape) {
  const size_t spatial = input.size() < 3 ? 0 : input.size() - 2;
  if (spatial == 0 || weight.size() != input.size() || stride.size() != spatial ||
      padding.size() != spatial || output_padding.size() != spatial || dilation.size() != spatial ||
      groups < 1 || weight[0] != input[1] || N(input[1]).out() || input[1] % groups != 0)
    return Unmodelled(
        "convolution: input [N, C, ...], weight [C, O/groups, ...] expected (transposed)");
  const N cout = N(weight[1]) * groups;
  std::vector<int64_t> out = {input[0], cout.out() ? -1 : cout.v};
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t limit = int64_t{1} << 30;  // products stay far below 2^63
    if (stride[i] <= 0 || dilation[i] <= 0 || padding[i] < 0 || output_padding[i] < 0 ||
        weight[i + 2] <= 0 || input[i + 2] <= 0 || input[i + 2] > limit || stride[i] > limit ||
        padding[i] > limit || output_padding[i] > limit || dilation[i] > limit ||
        weight[i + 2] > limit)
      return Unmodelled("convolution: sizes out of range");
    const int64_t o = (input[i + 2] - 1) * stride[i] - 2 * padding[i] +
                      dilation[i] * (weight[i + 2] - 1) + output_padding[i] + 1;
    if (o <= 0) return Unmodelled("convolution: empty output");
    out.push_back(o);
  }
  const N n_out = Elements(out);
  const N per = N(2) * weight[1] * Elements({weight.begin() + 2, weight.end()});
  if (out_shape) *out_shape = out;
  return Cost(Elements(input) * per + (bias ? n_out : N(0)),
              (Elements(input) + Elements(weight) + (bias ? cout : N(0)) + n_out) * t.bytes, t,
              "matrix");
}

OpCost ConvolutionBackwardCost(
    const std::vector<int64_t>& grad_output, const std::vector<int64_t>& input,
    const std::vector<int64_t>& weight, const std::vector<int64_t>& stride,
    const std::vector<int64_t>& padding, const std::vector<int64_t>& output_padding,
    const std::vector<int64_t>& dilation, bool transposed, int64_t groups,
    const std::array<bool, 3>& mask, const ElementType& t) {
  if (!mask[0] && !mask[1] && !mask[2])
    return Unmodelled("aten::convolution_backward: no gradient asked (output_mask all false)");
  std::vector<int64_t> out;
  OpCost forward = transposed ? ConvTransposeCost(input, weight, false, stride, padding,
                                                  output_padding, dilation, groups, t, &out)
                              : ConvolutionCost(input, weight, false, stride, padding, dilation,
                                                groups, t, &out);
  if (!forward.modelled) {
    const size_t colon = forward.why.find(": ");
    if (colon != std::string::npos)
      forward.why = "aten::convolution_backward" + forward.why.substr(colon);
    return forward;
  }
  if (out != grad_output)
    return Unmodelled(
        "aten::convolution_backward: grad_output is not the convolution's output shape");
  const N g_out = Elements(grad_output), in = Elements(input), w = Elements(weight);
  const int64_t cout = out[1];
  // grad_input reads grad_output and weight; grad_weight grad_output and
  // input; each is the forward's multiply-adds. grad_bias sums grad_output.
  const N flops = (mask[0] ? N(forward.flops) : N(0)) + (mask[1] ? N(forward.flops) : N(0)) +
                  (mask[2] ? g_out : N(0));
  const N elements =
      g_out + (mask[0] ? w + in : N(0)) + (mask[1] ? in + w : N(0)) + (mask[2] ? N(cout) : N(0));
  return Cost(flops, elements * t.bytes, t, "matrix");
}

bool HasModel(std::string_view name) {
  return kGemm.count(name) || kAttention.count(name) || kElementwise.count(name) ||
         kNorms.count(name) || kReductions.count(name) || kConvolution.count(name) ||
         name == "aten::embedding" || name == "aten::convolution_backward" ||
         kNormBackward.count(name);
}

OpCost CostOf(std::string_view name, const OpInputs& in, const AttentionOptions& attention) {
  if (kGemm.count(name)) return Gemm(name, in);
  if (kAttention.count(name)) return Attention(name, in, attention);
  if (kElementwise.count(name)) return Elementwise(name, in);
  if (kNorms.count(name)) return Norm(name, in);
  if (kReductions.count(name)) return Reduction(name, in);
  if (name == "aten::embedding") return Embedding(in);
  if (kConvolution.count(name)) return Convolution(name, in);
  if (name == "aten::convolution_backward") return ConvolutionBackward(in);
  if (kNormBackward.count(name)) return NormBackward(name, in);
  return Unmodelled("no model for this op");
}

}  // namespace th::roofline
