// FLOP and byte models of XLA HLO instructions (XProf captures), per
// execution, from the catalog's HLO text: shapes, dot dimensions, windows and
// convolution dim_labels (tables hlo_instructions, hlo_compute_dims). Pure
// functions of their inputs.
//
// F follows XLA's HloCostAnalysis: element-wise ops |out| FLOPs, their
// transcendental members (exponential, log, tanh, logistic, rsqrt, sqrt,
// power, sine, cosine, ...: HLO text spellings) counted apart; dot 2·|out|·Π contracting
// dims; convolution 2 · input features / feature groups · output features ·
// batch / batch groups · Π over spatial dims of the valid (input-covering)
// kernel-output position pairs (without padding: 2·|out|·Π kernel ·
// features/groups); reduce (|in| − |out|) · the reducer's FLOPs; fusion the
// sum over its fused instructions. B is a lower bound: the operands and the
// outputs, each once (a fusion: its parameters and outputs; a GEMM or
// convolution custom-call: its result, not its workspace). Asynchronous
// ops (copy-start/-done, async-*) and collectives are not modelled.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace th::roofline {

// One instruction as the catalog spells it.
struct HloOp {
  std::string_view opcode, shape, custom_call_target;
  std::string_view dot_dims, window, dim_labels;  // hlo_compute_dims text
  std::string_view custom_call_config;            // backend_config of a te_fused_attn_* custom-call
  int64_t feature_group_count = 1, batch_group_count = 1;
  std::vector<std::string_view> operand_shapes;
  // reduce / reduce-window: FLOPs of one application of the reducer (the
  // element-wise ops of its computation); XLA counts 1 for an add.
  int64_t reducer_flops = 1;
};

// The cost of one execution. modelled false: `why` says what is missing.
struct HloCost {
  bool modelled = false;
  int64_t flops = 0, transcendentals = 0, bytes = 0;
  std::string dtype;  // peak table dtype: of a dot's/convolution's lhs, else the output's
  std::string unit;   // matrix (dot, convolution, or a fusion holding one) | vector
  std::string why;
};

// The peak table's dtype of an HLO element type: bf16, fp16, fp32, fp64,
// fp8 (every f8 variant), int8 (s8, u8); other types as written.
std::string PeakDtype(std::string_view hlo_type);

// Bytes of a shape's text (tuples: the sum of their elements); nullopt when
// the text does not parse.
std::optional<int64_t> ShapeBytes(std::string_view shape);

// The dot dimensions of dot_dims text ("lhs_contracting_dims={1}, ...").
struct DotDims {
  std::vector<int64_t> lhs_contracting, rhs_contracting, lhs_batch, rhs_batch;
};
std::optional<DotDims> ParseDotDims(std::string_view text);

// One window dimension of window text ("size=3x3 stride=2x2 pad=1_1x1_1").
struct WindowDim {
  int64_t size = 1, stride = 1, padding_low = 0, padding_high = 0;
  int64_t base_dilation = 1, window_dilation = 1;
};
std::optional<std::vector<WindowDim>> ParseWindow(std::string_view text);

// Convolution dimension numbers of dim_labels text ("b01f_01io->b01f").
struct ConvDims {
  int64_t input_batch = 0, input_feature = 0, kernel_input_feature = 0, kernel_output_feature = 0,
          output_batch = 0, output_feature = 0;
  std::vector<int64_t> input_spatial, kernel_spatial, output_spatial;
};
std::optional<ConvDims> ParseDimLabels(std::string_view text);

// dot: 2·|out|·Π lhs contracting dims (XLA's GetDotFlops).
int64_t DotFlops(const std::vector<int64_t>& lhs, const std::vector<int64_t>& out,
                 const DotDims& d);

// XLA's GetConvolutionFlops: per spatial dimension the (kernel, output)
// position pairs that read an input element (not padding, not a dilation
// hole).
int64_t ConvolutionFlops(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs,
                         const std::vector<int64_t>& out, const ConvDims& d,
                         const std::vector<WindowDim>& window, int64_t feature_groups,
                         int64_t batch_groups);

// Whether an opcode is one of HloCostAnalysis' element-wise ops, and whether
// it counts as a transcendental.
bool IsElementwise(std::string_view opcode);
bool IsTranscendental(std::string_view opcode);

// An integer attribute of an MLIR attribute dictionary ("{attn_heads = 16 :
// i64, is_training = true, ...}"); nullopt when absent or not an integer.
std::optional<int64_t> IntAttribute(std::string_view dict, std::string_view name);

// TransformerEngine's fused attention (custom-call te_fused_attn_forward* /
// te_fused_attn_backward*), from its backend_config: with B batch, H query
// and Hkv key/value heads, Sq and Skv the sequence lengths, dqk and dv the
// head dims, forward F = 2·B·H·Sq·Skv·(dqk + dv) (Q·Kᵀ and P·V), backward
// F = 2·B·H·Sq·Skv·(3·dqk + 2·dv) (Q·Kᵀ again, dV, dP, dQ, dK); a causal mask
// halves F only when Sq = Skv. B: Q, K, V and O once (backward: those, dO
// and the three gradients), a bias tensor when there is one. Unmodelled:
// padding masks, sliding windows, packed (THD) and paged layouts, whose
// real lengths the config does not hold.
HloCost FusedAttentionCost(const HloOp& op);

// One instruction other than a fusion.
HloCost InstructionCost(const HloOp& op);

// A fusion: F and transcendentals summed over `body` (the costs of its fused
// instructions, nested fusions already summed); B its operands and outputs.
// Unmodelled when a fused instruction is.
HloCost FusionCost(const HloOp& fusion, const std::vector<HloCost>& body);

}  // namespace th::roofline
