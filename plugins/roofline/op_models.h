// FLOP and byte models of framework ops from their input shapes and types
// (Kineto's "Input Dims" / "Input type" with record_shapes), per occurrence.
// Pure functions of their inputs. Bytes are a lower bound: every input and
// output tensor moved once between HBM and the chip, nothing re-read.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace th::roofline {

// One op's inputs as Kineto records them: per input its dims ([] for a
// scalar, a list or a missing tensor), its type ("float", "c10::BFloat16",
// "Scalar", "" ...) and its Concrete Inputs value ("[1, 1]", "1", "False";
// "" for a tensor; `concrete` is empty when the trace has none).
struct OpInputs {
  std::vector<std::vector<int64_t>> dims;
  std::vector<std::string> types;
  std::vector<std::string> concrete;
};

// A tensor element type: the peak table's dtype name ("bf16", "fp32", ...;
// "int64" and the like for types without a peak row) and its size in bytes
// (0 for a type that is no tensor element: "Scalar", "").
struct ElementType {
  std::string dtype;
  int bytes = 0;
};
ElementType ElementTypeOf(std::string_view kineto_type);

// The cost of one op occurrence. modelled false: `why` says what is missing
// (never counted as 0 FLOPs).
struct OpCost {
  bool modelled = false;
  int64_t flops = 0, bytes = 0;
  std::string dtype;  // of the first tensor input
  std::string unit;   // matrix | vector: which peak applies
  std::string why;
};

struct AttentionOptions {
  bool causal = false;  // the mask is causal (halves F only when Nq == Nk)
};

// By op name: aten::mm, bmm, baddbmm, addmm, matmul, linear; the
// scaled_dot_product_attention family and _flash_attention_forward;
// element-wise ops; layer_norm, native_layer_norm, rms_norm, batch_norm;
// sum, mean, amax, softmax, _softmax, log_softmax; embedding; conv1d/2d/3d,
// convolution, _convolution, cudnn_convolution, miopen_convolution (stride,
// padding, dilation, groups from Concrete Inputs: unmodelled without them,
// and when padded "same"); convolution_backward (its output_mask too).
OpCost CostOf(std::string_view name, const OpInputs& in, const AttentionOptions& attention);

// Whether CostOf has a model for this op name (whatever its inputs).
bool HasModel(std::string_view name);

// 2 · M · K · N (· batch), bytes A + B (+ bias) + C.
OpCost GemmCost(int64_t batch, int64_t m, int64_t k, int64_t n, int64_t bias_elements,
                const ElementType& t);

// q [B, H, Nq, d], k [B, H, Nk, d], v [B, H, Nk, dv]: 2·B·H·Nq·Nk·(d + dv),
// halved when causal and Nq == Nk; bytes q + k + v + out [B, H, Nq, dv].
OpCost AttentionCost(int64_t b, int64_t h, int64_t nq, int64_t nk, int64_t d, int64_t dv,
                     bool causal, const ElementType& t);

// input [N, Cin, spatial...], weight [Cout, Cin/groups, kernel...]: F = 2 ·
// |out| · Cin/groups · Πkernel (+ |out| with bias); bytes in + weight (+ bias)
// + out. stride, padding, dilation per spatial dim.
// `out_shape` (when given) receives the output's dims of a modelled op.
OpCost ConvolutionCost(const std::vector<int64_t>& input, const std::vector<int64_t>& weight,
                       bool bias, const std::vector<int64_t>& stride,
                       const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                       int64_t groups, const ElementType& t,
                       std::vector<int64_t>* out_shape = nullptr);

// Transposed: input [N, Cin, spatial...], weight [Cin, Cout/groups,
// kernel...]; out = (in - 1)·stride - 2·padding + dilation·(kernel - 1) +
// output_padding + 1 per spatial dim. F = 2 · |input| · Cout/groups ·
// Πkernel (every input × tap product, those that padding crops included;
// + |out| with bias); bytes in + weight (+ bias) + out.
OpCost ConvTransposeCost(const std::vector<int64_t>& input, const std::vector<int64_t>& weight,
                         bool bias, const std::vector<int64_t>& stride,
                         const std::vector<int64_t>& padding,
                         const std::vector<int64_t>& output_padding,
                         const std::vector<int64_t>& dilation, int64_t groups, const ElementType& t,
                         std::vector<int64_t>* out_shape = nullptr);

// aten::convolution_backward: grad_output must be the forward convolution's
// output (ConvolutionCost / ConvTransposeCost of input and weight, no bias).
// F = F_fwd for grad_input (mask[0]) + F_fwd for grad_weight (mask[1]) +
// |grad_output| for grad_bias (mask[2]); bytes grad_output + (weight read,
// grad_input written) + (input read, grad_weight written) + (Cout written).
OpCost ConvolutionBackwardCost(
    const std::vector<int64_t>& grad_output, const std::vector<int64_t>& input,
    const std::vector<int64_t>& weight, const std::vector<int64_t>& stride,
    const std::vector<int64_t>& padding, const std::vector<int64_t>& output_padding,
    const std::vector<int64_t>& dilation, bool transposed, int64_t groups,
    const std::array<bool, 3>& mask, const ElementType& t);

}  // namespace th::roofline
