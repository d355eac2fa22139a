#include "core/synth/kineto_generator.h"

#include <libdeflate.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "core/graph/text_escape.h"

namespace th::synth {
namespace {

// ---------------------------------------------------------------------------
// Deterministic randomness (own generators: std distributions differ by libc).

uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(Mix(seed)) {}
  uint64_t Next() {
    state_ += 0x9E3779B97F4A7C15ull;
    return Mix(state_);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  int64_t Int(int64_t lo, int64_t hi) {                                       // [lo, hi]
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  double Normal() {
    const double u1 = 1.0 - Uniform(), u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  // Nanoseconds uniformly in [lo_us, hi_us] microseconds.
  int64_t Us(double lo_us, double hi_us) {
    return static_cast<int64_t>(std::llround((lo_us + (hi_us - lo_us) * Uniform()) * 1000.0));
  }
  double LogNormal(double median, double sigma) { return median * std::exp(sigma * Normal()); }

 private:
  uint64_t state_;
};

// ---------------------------------------------------------------------------
// Text helpers.

void AppendInt(std::string& b, int64_t v) {
  char tmp[24];
  auto r = std::to_chars(tmp, tmp + sizeof(tmp), v);
  b.append(tmp, r.ptr);
}

// ns -> "<µs>.<3 digits>", Kineto's fixed 3-decimal form.
void AppendUs(std::string& b, int64_t ns) {
  if (ns < 0) {
    b += '-';
    ns = -ns;
  }
  AppendInt(b, ns / 1000);
  const int frac = static_cast<int>(ns % 1000);
  const char digits[4] = {'.', static_cast<char>('0' + frac / 100),
                          static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10)};
  b.append(digits, 4);
}

void AppendShortest(std::string& b, double v) {  // like fmt "{}" for a double
  char tmp[40];
  auto r = std::to_chars(tmp, tmp + sizeof(tmp), v);
  b.append(tmp, r.ptr);
}

void AppendFixed6(std::string& b, double v) {  // printf "%f", as Kineto writes blocks/warps per SM
  char tmp[48];
  const int n = std::snprintf(tmp, sizeof(tmp), "%f", v);
  b.append(tmp, static_cast<size_t>(n));
}

void AppendJsonString(std::string& b, std::string_view s) { th::AppendJsonString(&b, s); }

// ---------------------------------------------------------------------------
// Catalog: kernels and the aten:: ops that launch them (H100 / bf16 training).

struct KernelSpec {
  const char* name;
  double median_us;
  double sigma;  // spread across op instances (log space)
  int grid[3];
  int block[3];
  int regs;
  int smem;
};

// clang-format off
constexpr KernelSpec kGemmQkv{
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    165, 0.30, {48, 2, 1}, {384, 1, 1}, 168, 213248};
constexpr KernelSpec kGemmProj{
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    62, 0.30, {56, 2, 1}, {384, 1, 1}, 168, 231424};
constexpr KernelSpec kGemmMlp{
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_warpgroupsize2x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    240, 0.25, {132, 1, 1}, {384, 1, 1}, 168, 231424};
constexpr KernelSpec kGemmDgrad{
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    205, 0.30, {64, 2, 1}, {384, 1, 1}, 168, 213248};
constexpr KernelSpec kGemmWgrad{
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_on_kernel__5x_cublas",
    225, 0.30, {66, 2, 1}, {384, 1, 1}, 168, 231424};
constexpr KernelSpec kFlashFwd{
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, "
    "false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, "
    "cutlass::bfloat16_t> >, false, true, false, false, true, true, false, "
    "false>(pytorch_flash::Flash_fwd_params)",
    140, 0.20, {8, 16, 8}, {128, 1, 1}, 255, 49152};
constexpr KernelSpec kFlashBwdDot{
    "void pytorch_flash::flash_bwd_dot_do_o_kernel<true, "
    "pytorch_flash::Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, "
    "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> "
    "> >(pytorch_flash::Flash_bwd_params)",
    9, 0.20, {16, 16, 8}, {256, 1, 1}, 30, 0};
constexpr KernelSpec kFlashBwd{
    "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_"
    "kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, "
    "pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >, true, false, "
    "false, false, true, true, false, false>(pytorch_flash::Flash_bwd_params)",
    385, 0.20, {16, 8, 16}, {256, 1, 1}, 255, 114688};
constexpr KernelSpec kFlashBwdConvert{
    "void pytorch_flash::flash_bwd_convert_dq_kernel<pytorch_flash::Flash_bwd_kernel_traits<128, "
    "64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, "
    "pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> > "
    ">(pytorch_flash::Flash_bwd_params, int)",
    12, 0.20, {16, 16, 8}, {256, 1, 1}, 40, 32768};
constexpr KernelSpec kLayerNorm{
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, "
    "float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, "
    "float*, c10::BFloat16*)",
    14, 0.20, {8192, 1, 1}, {256, 1, 1}, 30, 0};
constexpr KernelSpec kLayerNormBwdInput{
    "void at::native::(anonymous "
    "namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, "
    "float>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 "
    "const*, c10::BFloat16*, int)",
    22, 0.20, {8192, 1, 1}, {256, 1, 1}, 32, 1024};
constexpr KernelSpec kLayerNormBwdGamma{
    "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<c10::BFloat16, "
    "float>(long, long, c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, "
    "c10::BFloat16*, c10::BFloat16*)",
    18, 0.20, {64, 1, 1}, {32, 32, 1}, 64, 8448};
constexpr KernelSpec kAdd{
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "at::detail::Array<char*, 3>)",
    9, 0.25, {16384, 1, 1}, {128, 1, 1}, 26, 0};
constexpr KernelSpec kGelu{
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> >(int, "
    "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2>)",
    19, 0.20, {65536, 1, 1}, {128, 1, 1}, 28, 0};
constexpr KernelSpec kGeluBwd{
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(c10::BFloat16, c10::BFloat16)#1}, at::detail::Array<char*, 3> >(int, "
    "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
    "const::{lambda(c10::BFloat16, c10::BFloat16)#1}, at::detail::Array<char*, 3>)",
    27, 0.20, {65536, 1, 1}, {128, 1, 1}, 32, 0};
constexpr KernelSpec kAccumulate{
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3>)",
    11, 0.40, {8192, 1, 1}, {128, 1, 1}, 26, 0};
constexpr KernelSpec kLogSoftmax{
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
    46, 0.15, {8192, 1, 1}, {1024, 1, 1}, 38, 0};
constexpr KernelSpec kNllLoss{
    "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, "
    "long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
    6, 0.15, {1, 1, 1}, {32, 1, 1}, 24, 2048};
constexpr KernelSpec kFill{
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, "
    "1>)",
    1.6, 0.10, {1, 1, 1}, {128, 1, 1}, 16, 0};
constexpr KernelSpec kLogSoftmaxBwd{
    "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, "
    "at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float "
    "const*, long)",
    41, 0.15, {8192, 1, 1}, {1024, 1, 1}, 40, 0};
constexpr KernelSpec kForeachMul{
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<1>, at::native::(anonymous "
    "namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, "
    "float>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous "
    "namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float)",
    36, 0.30, {1320, 1, 1}, {512, 1, 1}, 32, 0};
constexpr KernelSpec kForeachAdd{
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<2>, at::native::(anonymous "
    "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, "
    "float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous "
    "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)",
    44, 0.30, {1320, 1, 1}, {512, 1, 1}, 40, 0};
constexpr KernelSpec kForeachAddcmul{
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<3>, at::native::(anonymous "
    "namespace)::PointwiseOpScalarFunctor<float, 3, 3, 0>, std::multiplies<float>, "
    "float>(at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::(anonymous "
    "namespace)::PointwiseOpScalarFunctor<float, 3, 3, 0>, std::multiplies<float>, float)",
    55, 0.30, {1320, 1, 1}, {512, 1, 1}, 48, 0};
constexpr KernelSpec kForeachSqrt{
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<float, "
    "2, "
    "1, 1>, at::native::(anonymous namespace)::Sqrt<float> >(at::native::(anonymous "
    "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<float, "
    "2, "
    "1, 1>, at::native::(anonymous namespace)::Sqrt<float>)",
    40, 0.30, {1320, 1, 1}, {512, 1, 1}, 32, 0};
constexpr KernelSpec kForeachAddcdiv{
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<3>, at::native::(anonymous "
    "namespace)::PointwiseOpScalarFunctor<float, 3, 3, 0>, std::divides<float>, "
    "float>(at::native::(anonymous namespace)::TensorListMetadata<3>, at::native::(anonymous "
    "namespace)::PointwiseOpScalarFunctor<float, 3, 3, 0>, std::divides<float>, float)",
    57, 0.30, {1320, 1, 1}, {512, 1, 1}, 48, 0};
// clang-format on

// NCCL kernels share launch geometry; durations come from the collective model.
constexpr int kNcclGrid[3] = {16, 1, 1};
constexpr int kNcclBlock[3] = {640, 1, 1};
constexpr int kNcclRegs = 96;
constexpr int kNcclSmem = 87568;

constexpr const char* kBf16x1 = R"(["c10::BFloat16"])";
constexpr const char* kBf16Ln =
    R"(["c10::BFloat16", "ScalarList", "c10::BFloat16", "c10::BFloat16", "Scalar"])";
constexpr const char* kBf16Mm = R"(["c10::BFloat16", "c10::BFloat16"])";
constexpr const char* kBf16Addmm =
    R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])";
constexpr const char* kBf16Bin = R"(["c10::BFloat16", "c10::BFloat16", "Scalar"])";
constexpr const char* kTensorList = R"(["TensorList", "Scalar"])";

struct Leaf {
  const char* wrapper;  // optional op between the chain and the leaf
  const char* op;
  const char* dims;   // "Input Dims" (record_shapes), may be null
  const char* types;  // "Input type"
  const KernelSpec* kernels[3];
  int n_kernels;
  int64_t bytes;  // output (forward) / gradient (backward) / temporary (optimizer)
};

enum class Phase { kForward, kBackward, kOptimizer };

struct OpTemplate {
  const char* chain[3];  // outer ops, outermost first
  int chain_len;
  bool transpose_prelude;  // aten::t > aten::transpose > aten::as_strided before the leaf
  Leaf leaves[2];
  int n_leaves;
  Phase phase;

  int Kernels() const {
    int n = 0;
    for (int i = 0; i < n_leaves; ++i) n += leaves[i].n_kernels;
    return n;
  }
};

constexpr int64_t kMiB = 1 << 20;

// Op templates. Fields: chain (outer ops), chain length, transpose prelude,
// leaves {wrapper, op, "Input Dims", "Input type", {kernels}, kernel count,
// bytes}, leaf count, phase. The recorded shapes are one GPT layer of 2 x 512
// tokens (hidden 2048, MLP 8192, 16 heads of 128, vocabulary 32000), sized so
// that the kernels' times stay within the H100's peaks the roofline reads
// (tests/plugins/roofline/roofline_generated_test.cc); `bytes` (allocations)
// keep their own, larger model.
// clang-format off
constexpr OpTemplate kLayerNormFwd{
    {"aten::layer_norm"}, 1, false,
    {{nullptr, "aten::native_layer_norm", "[[2, 512, 2048], [], [2048], [2048], []]", kBf16Ln,
      {&kLayerNorm}, 1, 32 * kMiB}},
    1, Phase::kForward};
constexpr OpTemplate kLinearQkv{
    {"aten::linear"}, 1, true,
    {{nullptr, "aten::addmm", "[[6144], [1024, 2048], [2048, 6144], [], []]", kBf16Addmm,
      {&kGemmQkv}, 1, 96 * kMiB}},
    1, Phase::kForward};
constexpr OpTemplate kAttention{
    {"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention"}, 2, false,
    {{nullptr, "aten::_flash_attention_forward",
      "[[2, 512, 16, 128], [2, 512, 16, 128], [2, 512, 16, 128], [], [], [], [], [], []]",
      R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "", "", "Scalar", "Scalar", "Scalar", "Scalar"])",
      {&kFlashFwd}, 1, 32 * kMiB}},
    1, Phase::kForward};
constexpr OpTemplate kLinearProj{
    {"aten::linear"}, 1, true,
    {{nullptr, "aten::addmm", "[[2048], [1024, 2048], [2048, 2048], [], []]", kBf16Addmm,
      {&kGemmProj}, 1, 32 * kMiB}},
    1, Phase::kForward};
constexpr OpTemplate kResidualAdd{
    {}, 0, false,
    {{nullptr, "aten::add", "[[2, 512, 2048], [2, 512, 2048], []]", kBf16Bin,
      {&kAdd}, 1, 32 * kMiB}},
    1, Phase::kForward};
constexpr OpTemplate kLinearUp{
    {"aten::linear"}, 1, true,
    {{nullptr, "aten::addmm", "[[8192], [1024, 2048], [2048, 8192], [], []]", kBf16Addmm,
      {&kGemmMlp}, 1, 128 * kMiB}},
    1, Phase::kForward};
constexpr OpTemplate kGeluFwd{
    {}, 0, false,
    {{nullptr, "aten::gelu", "[[2, 512, 8192], []]", R"(["c10::BFloat16", ""])",
      {&kGelu}, 1, 128 * kMiB}},
    1, Phase::kForward};
constexpr OpTemplate kLinearDown{
    {"aten::linear"}, 1, true,
    {{nullptr, "aten::addmm", "[[2048], [1024, 8192], [8192, 2048], [], []]", kBf16Addmm,
      {&kGemmMlp}, 1, 32 * kMiB}},
    1, Phase::kForward};
constexpr OpTemplate kCrossEntropy{
    {"aten::cross_entropy_loss"}, 1, false,
    {{"aten::log_softmax", "aten::_log_softmax", "[[1024, 32000], [], []]",
      R"(["float", "Scalar", "Scalar"])", {&kLogSoftmax}, 1, 1000 * kMiB},
     {"aten::nll_loss_nd", "aten::nll_loss_forward", "[[1024, 32000], [1024], [], [], []]",
      R"(["float", "long int", "", "Scalar", "Scalar"])", {&kNllLoss}, 1, 512}},
    2, Phase::kForward};
constexpr const OpTemplate* kForwardCycle[] = {
    &kLayerNormFwd, &kLinearQkv, &kAttention, &kLinearProj, &kResidualAdd,
    &kLayerNormFwd, &kLinearUp, &kGeluFwd, &kLinearDown, &kResidualAdd};

constexpr OpTemplate kLossGradSeed{
    {"aten::ones_like"}, 1, false,
    {{"aten::empty_like", "aten::fill_", "[[], []]", R"(["float", "Scalar"])",
      {&kFill}, 1, 512}},
    1, Phase::kBackward};
constexpr OpTemplate kLogSoftmaxBackward{
    {"autograd::engine::evaluate_function: LogSoftmaxBackward0", "LogSoftmaxBackward0"}, 2, false,
    {{nullptr, "aten::_log_softmax_backward_data", "[[1024, 32000], [1024, 32000], [], []]",
      R"(["float", "float", "Scalar", "Scalar"])", {&kLogSoftmaxBwd}, 1, 1000 * kMiB}},
    1, Phase::kBackward};
constexpr OpTemplate kAddmmBackwardMlp{
    {"autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0"}, 2, true,
    {{nullptr, "aten::mm", "[[1024, 2048], [2048, 8192]]", kBf16Mm, {&kGemmDgrad}, 1, 128 * kMiB},
     {nullptr, "aten::mm", "[[2048, 1024], [1024, 8192]]", kBf16Mm, {&kGemmWgrad}, 1, 32 * kMiB}},
    2, Phase::kBackward};
constexpr OpTemplate kGeluBackward{
    {"autograd::engine::evaluate_function: GeluBackward0", "GeluBackward0"}, 2, false,
    {{nullptr, "aten::gelu_backward", "[[2, 512, 8192], [2, 512, 8192], []]",
      R"(["c10::BFloat16", "c10::BFloat16", ""])", {&kGeluBwd}, 1, 128 * kMiB}},
    1, Phase::kBackward};
constexpr OpTemplate kAddmmBackwardProj{
    {"autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0"}, 2, true,
    {{nullptr, "aten::mm", "[[1024, 2048], [2048, 2048]]", kBf16Mm, {&kGemmDgrad}, 1, 32 * kMiB},
     {nullptr, "aten::mm", "[[2048, 1024], [1024, 2048]]", kBf16Mm, {&kGemmWgrad}, 1, 8 * kMiB}},
    2, Phase::kBackward};
constexpr OpTemplate kLayerNormBackward{
    {"autograd::engine::evaluate_function: NativeLayerNormBackward0", "NativeLayerNormBackward0"},
    2, false,
    {{nullptr, "aten::native_layer_norm_backward",
      "[[2, 512, 2048], [2, 512, 2048], [], [2, 512, 1], [2, 512, 1], [2048], [2048], []]",
      R"(["c10::BFloat16", "c10::BFloat16", "ScalarList", "float", "float", "c10::BFloat16", "c10::BFloat16", "ScalarList"])",
      {&kLayerNormBwdInput, &kLayerNormBwdGamma}, 2, 32 * kMiB}},
    1, Phase::kBackward};
constexpr OpTemplate kAttentionBackward{
    {"autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0",
     "ScaledDotProductFlashAttentionBackward0", "aten::_scaled_dot_product_flash_attention_backward"},
    3, false,
    {{nullptr, "aten::_flash_attention_backward",
      "[[2, 512, 16, 128], [2, 512, 16, 128], [2, 512, 16, 128], [2, 512, 16, 128], "
      "[2, 16, 512], [], [], [], [], [], [], [], []]",
      R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "float", "", "", "Scalar", "Scalar", "Scalar", "Scalar", "", ""])",
      {&kFlashBwdDot, &kFlashBwd, &kFlashBwdConvert}, 3, 96 * kMiB}},
    1, Phase::kBackward};
constexpr OpTemplate kAddmmBackwardQkv{
    {"autograd::engine::evaluate_function: AddmmBackward0", "AddmmBackward0"}, 2, true,
    {{nullptr, "aten::mm", "[[1024, 6144], [6144, 2048]]", kBf16Mm, {&kGemmDgrad}, 1, 32 * kMiB},
     {nullptr, "aten::mm", "[[6144, 1024], [1024, 2048]]", kBf16Mm, {&kGemmWgrad}, 1, 24 * kMiB}},
    2, Phase::kBackward};
constexpr OpTemplate kAccumulateGrad{
    {"autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
     "torch::autograd::AccumulateGrad"}, 2, false,
    {{nullptr, "aten::add_", "[[2048], [2048], []]", R"(["float", "float", "Scalar"])",
      {&kAccumulate}, 1, 0}},
    1, Phase::kBackward};
constexpr const OpTemplate* kBackwardCycle[] = {
    &kAddmmBackwardMlp, &kGeluBackward, &kAddmmBackwardMlp, &kAccumulateGrad,
    &kLayerNormBackward, &kAddmmBackwardProj, &kAttentionBackward, &kAddmmBackwardQkv,
    &kLayerNormBackward, &kAccumulateGrad};

constexpr OpTemplate kForeachOps[] = {
    {{}, 0, false, {{nullptr, "aten::_foreach_mul_", "[[], []]", kTensorList,
                     {&kForeachMul}, 1, 0}}, 1, Phase::kOptimizer},
    {{}, 0, false, {{nullptr, "aten::_foreach_add_", "[[], [], []]",
                     R"(["TensorList", "TensorList", "Scalar"])", {&kForeachAdd}, 1, 0}},
     1, Phase::kOptimizer},
    {{}, 0, false, {{nullptr, "aten::_foreach_addcmul_", "[[], [], [], []]",
                     R"(["TensorList", "TensorList", "TensorList", "Scalar"])", {&kForeachAddcmul}, 1, 0}},
     1, Phase::kOptimizer},
    {{}, 0, false, {{nullptr, "aten::_foreach_sqrt", "[[]]", R"(["TensorList"])",
                     {&kForeachSqrt}, 1, 512 * kMiB}}, 1, Phase::kOptimizer},
    {{}, 0, false, {{nullptr, "aten::_foreach_div_", "[[], []]", kTensorList,
                     {&kForeachMul}, 1, 0}}, 1, Phase::kOptimizer},
    {{}, 0, false, {{nullptr, "aten::_foreach_addcdiv_", "[[], [], [], []]",
                     R"(["TensorList", "TensorList", "TensorList", "Scalar"])", {&kForeachAddcdiv}, 1, 0}},
     1, Phase::kOptimizer},
};
// clang-format on

// ---------------------------------------------------------------------------
// Collectives.

enum class CollKind { kAllReduce, kAllGather, kReduceScatter };

struct CollectiveInfo {
  const char* op;          // c10d:: cpu op
  const char* name;        // "Collective name"
  const char* annotation;  // nccl:* user annotation
  const char* kernel;
  const char* dtype;
  int elem_bytes;
};

const CollectiveInfo& Info(CollKind k) {
  static const CollectiveInfo kInfo[] = {
      {"c10d::allreduce_", "allreduce", "nccl:all_reduce",
       "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "Float",
       4},
      {"c10d::_allgather_base_", "_allgather_base", "nccl:_all_gather_base",
       "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "BFloat16", 2},
      {"c10d::_reduce_scatter_base_", "_reduce_scatter_base", "nccl:_reduce_scatter_base",
       "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
       "BFloat16", 2},
  };
  return kInfo[static_cast<int>(k)];
}

struct Collective {
  CollKind kind = CollKind::kAllReduce;
  int64_t in_nelems = 0, out_nelems = 0;
};

// ---------------------------------------------------------------------------
// Step plan: the same op sequence every step, on every rank.

enum class ItemType {
  kAnnotation,    // CPU-only user annotation
  kSectionBegin,  // opens a user annotation (Optimizer.step)
  kSectionEnd,
  kOp,
  kMemcpyHtoD,
  kMemcpyDtoD,
  kMemsetOp,  // standalone memset (only when the plan has no kernel to attach it to)
  kCollective,
  kWaitComm,  // compute streams wait for the comm stream (DDP before optimizer)
  kLossItem,  // loss.item(): DtoH memcpy + stream sync
  kDeviceSync,
};

struct LeafPlan {
  int64_t base_ns[3] = {0, 0, 0};
  int64_t bytes = 0;
  int64_t memset_bytes = 0;  // > 0: cudaMemsetAsync before the first kernel
};

struct PlanItem {
  ItemType type = ItemType::kOp;
  const OpTemplate* op = nullptr;
  LeafPlan leaves[2];
  int stream = 0;  // compute stream index
  const char* name = nullptr;
  int64_t cpu_ns = 0;
  int64_t bytes = 0;
  Collective coll;
};

struct Plan {
  std::vector<PlanItem> items;
  int collectives = 0;
};

int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

Plan BuildPlan(const Scenario& s) {
  Rng rng(Mix(s.seed ^ 0x706C616E5EEDull));
  Plan plan;
  auto& items = plan.items;
  auto make_op = [&](const OpTemplate* t) {
    PlanItem it;
    it.type = ItemType::kOp;
    it.op = t;
    it.stream =
        (s.streams > 1 && rng.Uniform() < 0.3) ? static_cast<int>(rng.Int(1, s.streams - 1)) : 0;
    for (int l = 0; l < t->n_leaves; ++l) {
      for (int k = 0; k < t->leaves[l].n_kernels; ++k) {
        const KernelSpec* spec = t->leaves[l].kernels[k];
        it.leaves[l].base_ns[k] = std::max<int64_t>(
            900, std::llround(rng.LogNormal(spec->median_us, spec->sigma) * 1000));
      }
      it.leaves[l].bytes =
          t->leaves[l].bytes == 0
              ? 0
              : RoundUp(static_cast<int64_t>(t->leaves[l].bytes * (0.8 + 0.4 * rng.Uniform())),
                        512);
    }
    return it;
  };
  auto annotation = [&](const char* name, double lo_us, double hi_us) {
    PlanItem it;
    it.type = ItemType::kAnnotation;
    it.name = name;
    it.cpu_ns = rng.Us(lo_us, hi_us);
    items.push_back(it);
  };

  const int k_total = s.kernels_per_step;
  int fwd_budget = static_cast<int>(std::lround(k_total * 0.3));
  int bwd_budget = static_cast<int>(std::lround(k_total * 0.5));
  int opt_budget = k_total - fwd_budget - bwd_budget;

  annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 180, 420);
  annotation("Optimizer.zero_grad#AdamW.zero_grad", 25, 60);

  const int memcpy_dtoh = s.memcpy_per_step >= 1 ? 1 : 0;
  const int memcpy_htod = std::min(2, std::max(0, s.memcpy_per_step - 1));
  const int memcpy_dtod = std::max(0, s.memcpy_per_step - memcpy_dtoh - memcpy_htod);
  for (int i = 0; i < memcpy_htod; ++i) {
    PlanItem it;
    it.type = ItemType::kMemcpyHtoD;
    it.bytes = RoundUp(static_cast<int64_t>((2 + 14 * rng.Uniform()) * kMiB), 4096);
    items.push_back(it);
  }

  // Forward (+ loss), backward with collectives, optimizer.
  std::vector<PlanItem> fwd, bwd, opt;
  for (size_t i = 0; fwd_budget > 0; ++i) {
    const OpTemplate* t = kForwardCycle[i % std::size(kForwardCycle)];
    if (fwd_budget <= 2 && fwd_budget == kCrossEntropy.Kernels()) t = &kCrossEntropy;
    if (t->Kernels() > fwd_budget) t = &kResidualAdd;
    fwd.push_back(make_op(t));
    fwd_budget -= t->Kernels();
  }
  if (bwd_budget > 0) {
    bwd.push_back(make_op(&kLossGradSeed));
    --bwd_budget;
  }
  if (bwd_budget > 0) {
    bwd.push_back(make_op(&kLogSoftmaxBackward));
    --bwd_budget;
  }
  for (size_t i = 0; bwd_budget > 0; ++i) {
    const OpTemplate* t = kBackwardCycle[i % std::size(kBackwardCycle)];
    if (t->Kernels() > bwd_budget) t = &kAccumulateGrad;
    bwd.push_back(make_op(t));
    bwd_budget -= t->Kernels();
  }
  for (int i = 0; i < opt_budget; ++i)
    opt.push_back(make_op(&kForeachOps[i % std::size(kForeachOps)]));

  // Memsets ride on evenly spaced leaves (cuBLAS split-K workspace zeroing).
  std::vector<std::pair<PlanItem*, int>> leaves;
  for (auto* group : {&fwd, &bwd, &opt})
    for (auto& it : *group)
      for (int l = 0; l < it.op->n_leaves; ++l) leaves.emplace_back(&it, l);
  int standalone_memsets = 0;
  for (int m = 0; m < s.memset_per_step; ++m) {
    if (leaves.empty() || s.memset_per_step > static_cast<int>(leaves.size())) {
      ++standalone_memsets;
      continue;
    }
    const size_t pos = (2 * static_cast<size_t>(m) + 1) * leaves.size() / (2 * s.memset_per_step);
    leaves[pos].first->leaves[leaves[pos].second].memset_bytes =
        RoundUp(static_cast<int64_t>((4 + 1020 * rng.Uniform()) * 1024), 256);
  }
  for (int m = 0; m < standalone_memsets; ++m) {
    PlanItem it;
    it.type = ItemType::kMemsetOp;
    it.bytes = RoundUp(static_cast<int64_t>((4 + 1020 * rng.Uniform()) * 1024), 256);
    items.push_back(it);
  }

  // DtoD copies: evenly spread over forward and backward.
  std::vector<PlanItem> dtod;
  for (int i = 0; i < memcpy_dtod; ++i) {
    PlanItem it;
    it.type = ItemType::kMemcpyDtoD;
    it.bytes = RoundUp(static_cast<int64_t>((4 + 60 * rng.Uniform()) * kMiB), 4096);
    it.stream = 0;
    dtod.push_back(it);
  }
  const size_t fb = fwd.size() + bwd.size();
  auto dtod_after = [&](size_t index) {  // how many DtoD copies go after fwd/bwd item `index`
    if (dtod.empty()) return std::pair<size_t, size_t>{0, 0};
    auto first = [&](size_t idx) { return fb == 0 ? 0 : (idx * dtod.size() + fb - 1) / fb; };
    return std::pair<size_t, size_t>{first(index), first(index + 1)};
  };

  // Collectives: evenly spaced over backward, the last one closes it.
  std::vector<PlanItem> colls;
  const int w = s.world_size > 0 ? s.world_size : s.ranks;
  for (int c = 0; c < s.collectives_per_step; ++c) {
    PlanItem it;
    it.type = ItemType::kCollective;
    const int mod = c % 4;
    it.coll.kind = mod == 2   ? CollKind::kAllGather
                   : mod == 3 ? CollKind::kReduceScatter
                              : CollKind::kAllReduce;
    const int64_t n = RoundUp(static_cast<int64_t>((0.5 + 0.7 * rng.Uniform()) * 6553600), 1024);
    it.coll.in_nelems = n;
    it.coll.out_nelems = n;
    if (it.coll.kind == CollKind::kAllGather) it.coll.out_nelems = n * w;
    if (it.coll.kind == CollKind::kReduceScatter) it.coll.in_nelems = n * w;
    colls.push_back(it);
  }
  plan.collectives = s.collectives_per_step;

  if (dtod.size() > 0 && fb == 0) items.insert(items.end(), dtod.begin(), dtod.end());
  size_t index = 0;
  for (auto& it : fwd) {
    items.push_back(it);
    auto [a, b] = dtod_after(index++);
    for (size_t d = a; d < b; ++d) items.push_back(dtod[d]);
  }
  const size_t nb = bwd.size();
  size_t next_coll = 0;
  for (size_t i = 0; i < nb; ++i) {
    items.push_back(bwd[i]);
    auto [a, b] = dtod_after(index++);
    for (size_t d = a; d < b; ++d) items.push_back(dtod[d]);
    while (next_coll < colls.size() && (next_coll + 1) * nb <= (i + 1) * colls.size())
      items.push_back(colls[next_coll++]);
  }
  while (next_coll < colls.size()) items.push_back(colls[next_coll++]);

  PlanItem begin;
  begin.type = ItemType::kSectionBegin;
  begin.name = "Optimizer.step#AdamW.step";
  items.push_back(begin);
  if (!colls.empty()) {
    PlanItem wait;
    wait.type = ItemType::kWaitComm;
    items.push_back(wait);
  }
  items.insert(items.end(), opt.begin(), opt.end());
  PlanItem end;
  end.type = ItemType::kSectionEnd;
  items.push_back(end);
  if (memcpy_dtoh > 0) {
    PlanItem it;
    it.type = ItemType::kLossItem;
    it.bytes = 4;
    items.push_back(it);
  }
  PlanItem sync;
  sync.type = ItemType::kDeviceSync;
  items.push_back(sync);
  return plan;
}

// ---------------------------------------------------------------------------
// GPU properties.

struct GpuProps {
  int64_t total_mem;
  int major, minor, num_sms, smem_optin, smem_per_mp;
};

GpuProps PropsFor(const std::string& name) {
  if (name.find("A100") != std::string::npos) return {85899345920, 8, 0, 108, 166912, 167936};
  return {85018279936, 9, 0, 132, 232448, 233472};
}

// ---------------------------------------------------------------------------
// Events of one step, formatted when the step ends.

enum class CpuCat { kCpuOp, kAnnotation, kMemory };

struct CpuEvent {
  CpuCat cat = CpuCat::kCpuOp;
  const char* name = nullptr;
  int step_number = -1;  // ProfilerStep#<n> when >= 0
  int64_t ts = 0, dur = 0;
  int64_t ext = 0, ev_idx = 0;
  const Leaf* leaf = nullptr;                                            // shapes
  const Collective* coll = nullptr;                                      // record_param_comms args
  int64_t addr = 0, bytes = 0, total_allocated = 0, total_reserved = 0;  // [memory]
};

enum class GpuKind { kNone, kKernel, kMemcpy, kMemset };

struct Launch {
  const char* rt_name = nullptr;
  int cbid = 0;
  int64_t rt_ts = 0, rt_dur = 0, corr = 0, ext = -1;
  GpuKind gpu = GpuKind::kNone;
  const char* gpu_name = nullptr;
  int stream_id = 0;
  int64_t gpu_ts = 0, gpu_dur = 0, bytes = 0;
  const KernelSpec* spec = nullptr;
  const Collective* coll = nullptr;
};

// ---------------------------------------------------------------------------
// Output + manifest accounting for one rank.

class TraceWriter {
 public:
  TraceWriter(std::ostream* out, Manifest* manifest, bool relative, int64_t base_ns)
      : out_(out), m_(manifest), relative_(relative), base_ns_(base_ns) {
    buf_.reserve(kFlushBytes + 64 * 1024);
  }

  std::string& buf() { return buf_; }
  Manifest& manifest() { return *m_; }

  void Ts(int64_t abs_ns) { AppendUs(buf_, relative_ ? abs_ns - base_ns_ : abs_ns); }

  // Starts an event object: separator, brace, accounting.
  void Begin(const char* ph, const char* cat) {
    if (events_ > 0) buf_ += ",\n";
    buf_ += "  {\n";
    ++events_;
    ++m_->events;
    ++m_->events_by_phase[ph];
    if (cat != nullptr) ++m_->events_by_category[cat];
  }
  void End() {
    buf_ += "\n  }";
    MaybeFlush();
  }
  void GpuStream(int64_t pid, int64_t tid) {
    if (streams_.insert({pid, tid}).second) m_->gpu_streams = static_cast<int64_t>(streams_.size());
  }

  void MaybeFlush() {
    if (buf_.size() >= kFlushBytes) Flush();
  }
  void Flush() {
    if (!buf_.empty()) out_->write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }
  bool ok() const { return static_cast<bool>(*out_); }

 private:
  static constexpr size_t kFlushBytes = 1 << 20;
  std::ostream* out_;
  Manifest* m_;
  bool relative_;
  int64_t base_ns_;
  std::string buf_;
  int64_t events_ = 0;
  std::set<std::pair<int64_t, int64_t>> streams_;
};

// ---------------------------------------------------------------------------
// Timing shared by all ranks.

struct JobClock {
  int64_t start_ns;  // profiler window start (epoch ns)
  int64_t base_ns;   // baseTimeNanoseconds
};

JobClock MakeClock(uint64_t seed) {
  constexpr int64_t kEpochS = 1751410836;  // July 2025
  constexpr int64_t kQuarterS = 7889238;   // Kineto's base-time granularity
  const int64_t start_ns =
      kEpochS * 1000000000LL +
      static_cast<int64_t>(Mix(seed ^ 0xC10C4ull) % (86400ull * 1000000000ull));
  return {start_ns, start_ns / 1000000000LL / kQuarterS * kQuarterS * 1000000000LL};
}

int StreamId(int index) { return index == 0 ? 7 : 16 + 4 * index; }

// ---------------------------------------------------------------------------
// One rank: CPU thread cursor, GPU streams, memory allocator, event buffers.

class RankSim {
 public:
  RankSim(const Scenario& s, const Plan& plan, int rank, const JobClock& clock, TraceWriter* writer)
      : s_(s),
        plan_(plan),
        rank_(rank),
        world_(s.world_size > 0 ? s.world_size : s.ranks),
        device_(rank % s.gpus_per_node),
        writer_(writer),
        rng_(Mix(s.seed * 0x100000001B3ull + static_cast<uint64_t>(rank) + 1)),
        props_(PropsFor(s.gpu_name)) {
    pid_ = 100000 + static_cast<int64_t>(Mix(s.seed * 131 + static_cast<uint64_t>(rank)) % 3000000);
    tid_ = pid_;
    gpu_scale_ = rank == s.straggler_rank ? s.straggler_slowdown : 1.0;
    window_start_ = clock.start_ns + rng_.Us(0, 40);
    stream_free_.assign(static_cast<size_t>(s.streams), window_start_);
    comm_free_ = window_start_;
    comm_stream_ = StreamId(s.streams) + 3;
    next_corr_ = 40000 + static_cast<int64_t>(Mix(s.seed + 77) % 100000);
    next_ext_ = 1;
    allocated_ = RoundUp(
        static_cast<int64_t>((5.5 + 1.5 * (Mix(s.seed) % 1000) / 1000.0) * 1024 * kMiB), 512);
    reserved_ = RoundUp(allocated_ + allocated_ / 16, 20 * kMiB);
    next_addr_ = 0x7F4380000000LL + static_cast<int64_t>(rank) * 0x100000000LL;
    t_ = window_start_ + rng_.Us(35, 90);
  }

  void WriteHeader(const std::string& trace_name) {
    trace_name_ = trace_name;
    if (writer_ == nullptr) return;
    std::string& b = writer_->buf();
    b += "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n";
    for (int d = 0; d < s_.gpus_per_node; ++d) {
      b += "    {\n      \"id\": ";
      AppendInt(b, d);
      b += ", \"name\": ";
      AppendJsonString(b, s_.gpu_name);
      b += ", \"totalGlobalMem\": ";
      AppendInt(b, props_.total_mem);
      b += ",\n      \"computeMajor\": ";
      AppendInt(b, props_.major);
      b += ", \"computeMinor\": ";
      AppendInt(b, props_.minor);
      b += ",\n      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
           "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
           "      \"sharedMemPerBlock\": 49152, \"numSms\": ";
      AppendInt(b, props_.num_sms);
      b += "\n    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": ";
      AppendInt(b, props_.smem_optin);
      b += ", \"sharedMemPerMultiprocessor\": ";
      AppendInt(b, props_.smem_per_mp);
      b += d + 1 < s_.gpus_per_node ? "\n    },\n" : "\n    }\n";
    }
    b += "  ],\n  \"cupti_version\": 24,\n  \"cuda_runtime_version\": 12040,\n"
         "  \"cuda_driver_version\": 12080,\n  \"trace_id\": \"";
    char hex[40];
    std::snprintf(hex, sizeof(hex), "%016llX%016llX",
                  static_cast<unsigned long long>(Mix(s_.seed ^ (0xABCDull + rank_))),
                  static_cast<unsigned long long>(Mix(s_.seed + 0x1234ull * (rank_ + 1))));
    b += hex;
    b += "\",\n";
    if (s_.memory_events) b += "  \"profile_memory\": 1,\n";
    b += "  \"record_shapes\": 1,\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ";
    AppendInt(b, rank_);
    b += ", \"world_size\": ";
    AppendInt(b, world_);
    b += ", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
         "\"backend_config\": \"cuda:nccl\", \"pg_size\": ";
    AppendInt(b, world_);
    b += ", \"ranks\": ";
    b += RanksList();
    b += "}], \"nccl_version\": \"2.21.5\"},\n  \"displayTimeUnit\": \"ms\",\n";
    if (s_.relative_timestamps) {
      b += "  \"baseTimeNanoseconds\": ";
      AppendInt(b, MakeClock(s_.seed).base_ns);
      b += ",\n";
    }
    b += "  \"traceEvents\": [\n";
    WriteMetadata();
  }

  // Kernels still running from before the window: no runtime event, no flow.
  void PreCapture() {
    int64_t t = window_start_ + rng_.Us(1, 4);
    for (int i = 0; i < s_.pre_capture_kernels; ++i) {
      Launch l;
      l.gpu = GpuKind::kKernel;
      l.spec = kForeachOps[i % std::size(kForeachOps)].leaves[0].kernels[0];
      l.gpu_name = l.spec->name;
      l.corr = next_corr_ - 1000 + i;  // below every captured launch
      l.stream_id = StreamId(0);
      l.gpu_ts = t;
      l.gpu_dur = rng_.Us(20, 60);
      t = l.gpu_ts + l.gpu_dur + rng_.Us(1, 2);
      stream_free_[0] = t;
      WriteGpu(l);
    }
  }

  void BeginStep(int step) {
    item_ = 0;
    cpu_.clear();
    launches_.clear();
    frames_.clear();
    step_jitter_ = std::exp(0.02 * rng_.Normal());  // whole-step speed wobble
    Open(CpuCat::kAnnotation, "ProfilerStep#");
    cpu_.back().step_number = s_.first_step + step;
    t_ += rng_.Us(8, 20);
  }

  // Runs plan items up to the next collective; launches it; returns its GPU arrival.
  int64_t RunToCollective() {
    while (plan_.items[item_].type != ItemType::kCollective) Exec(plan_.items[item_++]);
    return LaunchCollective(plan_.items[item_++]);
  }
  // Shared end of the pending collective (plus this rank's jitter).
  void CompleteCollective(int64_t end_ns) {
    Launch& l = launches_[pending_];
    l.gpu_ts = pending_arrival_;
    l.gpu_dur = end_ns + rng_.Us(0, 1.5) - pending_arrival_;
    comm_free_ = l.gpu_ts + l.gpu_dur;
  }

  void FinishStep() {
    while (item_ < plan_.items.size()) Exec(plan_.items[item_++]);
    t_ += rng_.Us(4, 12);
    Close();
    FlushStep();
    t_ += rng_.Us(25, 90);  // profiler.step() and loop overhead between steps
  }

  Status WriteTrailer() {
    if (writer_ == nullptr) return Ok();
    int64_t end = t_;
    for (int64_t f : stream_free_) end = std::max(end, f);
    end = std::max(end, comm_free_) + rng_.Us(5, 20);
    TraceWriter& w = *writer_;
    std::string& b = w.buf();
    w.Begin("X", "Trace");
    b += "    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ";
    w.Ts(window_start_);
    b += ", \"dur\": ";
    AppendUs(b, end - window_start_);
    b += ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch "
         "Profiler "
         "(0)\",\n    \"args\": {\n      \"Op count\": 0\n    }";
    w.End();
    w.Begin("M", nullptr);
    b += "    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": ";
    w.Ts(window_start_);
    b += ",\n    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n      \"sort_index\": "
         "536870912\n    }";
    w.End();
    w.Begin("i", nullptr);
    b += "    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
         "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ";
    w.Ts(window_start_);
    w.End();
    w.Begin("i", nullptr);
    b += "    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
         "    \"pid\": \"\", \"tid\": \"\", \"ts\": ";
    w.Ts(end);
    w.End();
    b += "\n  ],\n  \"traceName\": ";
    AppendJsonString(b, trace_name_);
    b += "\n}\n";
    w.Flush();
    return w.ok() ? Ok() : IoError("cannot write trace for rank " + std::to_string(rank_));
  }

 private:
  // --- CPU cursor -----------------------------------------------------------
  void Open(CpuCat cat, const char* name, const Leaf* leaf = nullptr) {
    CpuEvent e;
    e.cat = cat;
    e.name = name;
    e.ts = t_;
    e.ext = next_ext_++;
    e.ev_idx = next_ev_++;
    e.leaf = leaf;
    frames_.push_back(cpu_.size());
    cpu_.push_back(e);
    t_ += rng_.Us(0.8, 2.5);
  }
  void Close() {
    t_ += rng_.Us(0.6, 2.0);
    CpuEvent& e = cpu_[frames_.back()];
    e.dur = t_ - e.ts;
    frames_.pop_back();
  }
  int64_t LinkedExt() const {  // innermost cpu_op: user annotations do not link launches
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (cpu_[*it].cat == CpuCat::kCpuOp) return cpu_[*it].ext;
    return -1;
  }
  size_t Runtime(const char* name, int cbid, int64_t dur) {
    Launch l;
    l.rt_name = name;
    l.cbid = cbid;
    l.rt_ts = t_;
    l.rt_dur = dur;
    l.corr = next_corr_++;
    l.ext = LinkedExt();
    launches_.push_back(l);
    t_ += dur;
    return launches_.size() - 1;
  }

  // --- GPU ------------------------------------------------------------------
  int64_t Schedule(int stream, int64_t earliest, int64_t dur) {
    const int64_t start = std::max(earliest, stream_free_[stream] + rng_.Us(0.8, 2.2));
    stream_free_[stream] = start + dur;
    return start;
  }
  int64_t KernelDur(int64_t base_ns) const {
    return std::max<int64_t>(
        800, std::llround(static_cast<double>(base_ns) * step_jitter_ * gpu_scale_));
  }
  void LaunchKernel(const KernelSpec* spec, int64_t base_ns, int stream) {
    const size_t i = Runtime("cudaLaunchKernel", 211, rng_.Us(2.4, 6.5));
    Launch& l = launches_[i];
    l.gpu = GpuKind::kKernel;
    l.spec = spec;
    l.gpu_name = spec->name;
    l.stream_id = StreamId(stream);
    const double jitter = std::exp(0.04 * rng_.Normal());
    l.gpu_dur =
        std::max<int64_t>(800, std::llround(static_cast<double>(KernelDur(base_ns)) * jitter));
    l.gpu_ts = Schedule(stream, l.rt_ts + rng_.Us(2.0, 5.0), l.gpu_dur);
  }
  void LaunchMemset(int64_t bytes, int stream) {
    const size_t i = Runtime("cudaMemsetAsync", 51, rng_.Us(2.5, 5.5));
    Launch& l = launches_[i];
    l.gpu = GpuKind::kMemset;
    l.gpu_name = "Memset (Device)";
    l.stream_id = StreamId(stream);
    l.bytes = bytes;
    l.gpu_dur = 1000 + bytes / 800 + rng_.Us(0, 0.6);
    l.gpu_ts = Schedule(stream, l.rt_ts + rng_.Us(2.0, 4.0), l.gpu_dur);
  }
  void LaunchMemcpy(const char* name, int64_t bytes, double bytes_per_ns, int stream) {
    const size_t i = Runtime("cudaMemcpyAsync", 41, rng_.Us(4, 11));
    Launch& l = launches_[i];
    l.gpu = GpuKind::kMemcpy;
    l.gpu_name = name;
    l.stream_id = StreamId(stream);
    l.bytes = bytes;
    l.gpu_dur = 1200 + std::llround(static_cast<double>(bytes) /
                                    (bytes_per_ns * (0.9 + 0.2 * rng_.Uniform())));
    l.gpu_ts = Schedule(stream, l.rt_ts + rng_.Us(2.0, 4.0), l.gpu_dur);
  }

  // --- Memory (caching-allocator view) ------------------------------------
  struct Block {
    int64_t addr, bytes;
  };
  void Mem(int64_t addr, int64_t bytes) {
    if (!s_.memory_events) return;
    CpuEvent e;
    e.cat = CpuCat::kMemory;
    e.name = "[memory]";
    e.ts = t_;
    e.ev_idx = next_ev_++;
    e.addr = addr;
    e.bytes = bytes;
    e.total_allocated = allocated_;
    e.total_reserved = reserved_;
    cpu_.push_back(e);
    t_ += rng_.Us(0.1, 0.4);
  }
  Block Alloc(int64_t bytes) {
    Block blk{next_addr_, bytes};
    next_addr_ += RoundUp(bytes, 512);
    allocated_ += bytes;
    if (allocated_ > reserved_) reserved_ = RoundUp(allocated_, 20 * kMiB);
    Mem(blk.addr, bytes);
    return blk;
  }
  void Free(const Block& blk) {
    allocated_ -= blk.bytes;
    Mem(blk.addr, -blk.bytes);
  }
  void FreeAll(std::vector<Block>* blocks) {
    while (!blocks->empty()) {
      Free(blocks->back());
      blocks->pop_back();
    }
  }

  // --- Plan items -----------------------------------------------------------
  void Exec(const PlanItem& it) {
    switch (it.type) {
      case ItemType::kAnnotation:
        Open(CpuCat::kAnnotation, it.name);
        t_ += std::llround(static_cast<double>(it.cpu_ns) * (0.9 + 0.2 * rng_.Uniform()));
        Close();
        t_ += rng_.Us(3, 10);
        break;
      case ItemType::kSectionBegin:
        Open(CpuCat::kAnnotation, it.name);
        t_ += rng_.Us(4, 12);
        FreeAll(&activations_);  // end of backward: activations and grads are released
        if (pending_grad_.bytes > 0) Free(pending_grad_);
        pending_grad_ = {0, 0};
        FreeAll(&inputs_);
        break;
      case ItemType::kSectionEnd:
        t_ += rng_.Us(4, 12);
        Close();
        t_ += rng_.Us(5, 15);
        break;
      case ItemType::kOp:
        ExecOp(it);
        break;
      case ItemType::kMemcpyHtoD:
        Open(CpuCat::kCpuOp, "aten::to");
        Open(CpuCat::kCpuOp, "aten::_to_copy");
        Open(CpuCat::kCpuOp, "aten::empty_strided");
        inputs_.push_back(Alloc(it.bytes));
        Close();
        Open(CpuCat::kCpuOp, "aten::copy_");
        LaunchMemcpy("Memcpy HtoD (Pinned -> Device)", it.bytes, 45.0, 0);
        Close();
        Close();
        Close();
        t_ += rng_.Us(3, 10);
        break;
      case ItemType::kMemcpyDtoD:
        Open(CpuCat::kCpuOp, "aten::contiguous");
        Open(CpuCat::kCpuOp, "aten::clone");
        activations_.push_back(Alloc(it.bytes));
        Open(CpuCat::kCpuOp, "aten::copy_");
        LaunchMemcpy("Memcpy DtoD (Device -> Device)", it.bytes, 1800.0, it.stream);
        Close();
        Close();
        Close();
        t_ += rng_.Us(3, 10);
        break;
      case ItemType::kMemsetOp:
        Open(CpuCat::kCpuOp, "aten::zero_");
        LaunchMemset(it.bytes, 0);
        Close();
        t_ += rng_.Us(3, 10);
        break;
      case ItemType::kWaitComm: {
        Runtime("cudaStreamWaitEvent", 147, rng_.Us(1.0, 2.6));
        for (auto& f : stream_free_) f = std::max(f, comm_free_);
        t_ += rng_.Us(2, 6);
        break;
      }
      case ItemType::kLossItem: {
        Open(CpuCat::kCpuOp, "aten::item");
        Open(CpuCat::kCpuOp, "aten::_local_scalar_dense");
        const size_t i = Runtime("cudaMemcpyAsync", 41, 0);
        Launch& l = launches_[i];
        l.gpu = GpuKind::kMemcpy;
        l.gpu_name = "Memcpy DtoH (Device -> Pageable)";
        l.stream_id = StreamId(0);
        l.bytes = it.bytes;
        l.gpu_dur = rng_.Us(1.2, 1.9);
        l.gpu_ts = Schedule(0, l.rt_ts + rng_.Us(2.0, 4.0), l.gpu_dur);
        l.rt_dur = l.gpu_ts + l.gpu_dur + rng_.Us(2, 5) - l.rt_ts;  // pageable copy blocks the host
        t_ = l.rt_ts + l.rt_dur;
        Runtime("cudaStreamSynchronize", 131, rng_.Us(1.5, 3.5));
        Close();
        Close();
        t_ += rng_.Us(3, 10);
        break;
      }
      case ItemType::kDeviceSync: {
        const size_t i = Runtime("cudaDeviceSynchronize", 165, 0);
        int64_t done = launches_[i].rt_ts;
        for (int64_t f : stream_free_) done = std::max(done, f);
        done = std::max(done, comm_free_);
        launches_[i].rt_dur = done + rng_.Us(2, 6) - launches_[i].rt_ts;
        t_ = launches_[i].rt_ts + launches_[i].rt_dur;
        break;
      }
      case ItemType::kCollective:
        break;  // handled by RunToCollective
    }
  }

  void ExecOp(const PlanItem& it) {
    const OpTemplate& op = *it.op;
    for (int c = 0; c < op.chain_len; ++c) Open(CpuCat::kCpuOp, op.chain[c]);
    if (op.transpose_prelude) {
      Open(CpuCat::kCpuOp, "aten::t");
      Open(CpuCat::kCpuOp, "aten::transpose");
      Open(CpuCat::kCpuOp, "aten::as_strided");
      Close();
      Close();
      Close();
    }
    for (int li = 0; li < op.n_leaves; ++li) {
      const Leaf& leaf = op.leaves[li];
      const LeafPlan& lp = it.leaves[li];
      if (leaf.wrapper != nullptr) Open(CpuCat::kCpuOp, leaf.wrapper);
      Open(CpuCat::kCpuOp, leaf.op, &leaf);
      t_ += rng_.Us(1.0, 4.0);
      Block out{0, 0};
      if (lp.bytes > 0) out = Alloc(lp.bytes);
      if (lp.memset_bytes > 0) LaunchMemset(lp.memset_bytes, it.stream);
      for (int k = 0; k < leaf.n_kernels; ++k) {
        LaunchKernel(leaf.kernels[k], lp.base_ns[k], it.stream);
        t_ += rng_.Us(0.5, 2.0);
      }
      if (out.bytes > 0) {
        switch (op.phase) {
          case Phase::kForward:
            activations_.push_back(out);
            break;
          case Phase::kBackward:  // grad replaces the previous one; an activation dies
            if (pending_grad_.bytes > 0) Free(pending_grad_);
            pending_grad_ = out;
            if (!activations_.empty()) {
              Free(activations_.back());
              activations_.pop_back();
            }
            break;
          case Phase::kOptimizer:
            Free(out);
            break;
        }
      }
      Close();
      if (leaf.wrapper != nullptr) Close();
    }
    for (int c = 0; c < op.chain_len; ++c) Close();
    t_ += rng_.Us(3, 12);  // Python between ops
  }

  int64_t LaunchCollective(const PlanItem& it) {
    const CollectiveInfo& info = Info(it.coll.kind);
    Open(CpuCat::kCpuOp, info.op);
    t_ += rng_.Us(3, 8);
    Open(CpuCat::kCpuOp, "record_param_comms");
    cpu_.back().coll = &it.coll;
    Runtime("cudaEventRecord", 135, rng_.Us(1.4, 3.0));
    t_ += rng_.Us(0.5, 2.0);
    Runtime("cudaStreamWaitEvent", 147, rng_.Us(1.0, 2.5));
    const int64_t compute_ready = stream_free_[0];  // comm stream waits on stream 7's event
    Open(CpuCat::kAnnotation, info.annotation);
    t_ += rng_.Us(5, 15);
    pending_ = Runtime("cudaLaunchKernelExC", 430, rng_.Us(6, 14));
    Launch& l = launches_[pending_];
    l.gpu = GpuKind::kKernel;
    l.gpu_name = info.kernel;
    l.stream_id = comm_stream_;
    l.coll = &it.coll;
    pending_arrival_ = std::max(
        {l.rt_ts + rng_.Us(3, 6), comm_free_ + rng_.Us(0.8, 2.0), compute_ready + rng_.Us(1, 3)});
    t_ += rng_.Us(2, 5);
    Close();
    t_ += rng_.Us(10, 30);
    Close();
    t_ += rng_.Us(4, 10);
    Close();
    t_ += rng_.Us(3, 10);
    return pending_arrival_;
  }

  // --- Writing --------------------------------------------------------------
  std::string RanksList() const {
    std::string r = "[";
    for (int i = 0; i < world_; ++i) {
      if (i > 0) r += ", ";
      r += std::to_string(i);
    }
    return r + "]";
  }

  void MetaEvent(const char* name, int64_t pid, int64_t tid, const char* key,
                 const std::string& value, bool quoted) {
    TraceWriter& w = *writer_;
    std::string& b = w.buf();
    w.Begin("M", nullptr);
    b += "    \"name\": \"";
    b += name;
    b += "\", \"ph\": \"M\", \"ts\": ";
    w.Ts(window_start_);
    b += ", \"pid\": ";
    AppendInt(b, pid);
    b += ", \"tid\": ";
    AppendInt(b, tid);
    b += ",\n    \"args\": {\n      \"";
    b += key;
    b += "\": ";
    if (quoted) {
      AppendJsonString(b, value);
    } else {
      b += value;
    }
    b += "\n    }";
    w.End();
  }

  void WriteMetadata() {
    MetaEvent("process_name", pid_, 0, "name", "python3", true);
    MetaEvent("process_labels", pid_, 0, "labels", "CPU", true);
    MetaEvent("process_sort_index", pid_, 0, "sort_index", std::to_string(pid_), false);
    for (int d = 0; d < s_.gpus_per_node; ++d) {
      MetaEvent("process_name", d, 0, "name", "python3", true);
      MetaEvent("process_labels", d, 0, "labels", "GPU " + std::to_string(d), true);
      MetaEvent("process_sort_index", d, 0, "sort_index", std::to_string(5000000 + d), false);
    }
    std::vector<int> streams;
    for (int i = 0; i < s_.streams; ++i) streams.push_back(StreamId(i));
    if (plan_.collectives > 0) streams.push_back(comm_stream_);
    for (int id : streams) {
      MetaEvent("thread_name", device_, id, "name", "stream " + std::to_string(id) + " ", true);
      MetaEvent("thread_sort_index", device_, id, "sort_index", std::to_string(id), false);
    }
    MetaEvent("thread_name", pid_, tid_, "name", "thread " + std::to_string(tid_) + " (python3)",
              true);
    MetaEvent("thread_sort_index", pid_, tid_, "sort_index", std::to_string(tid_), false);
  }

  void WriteCpu(const CpuEvent& e) {
    TraceWriter& w = *writer_;
    std::string& b = w.buf();
    Manifest& m = w.manifest();
    if (e.cat == CpuCat::kMemory) {
      w.Begin("i", "cpu_instant_event");
      b += "    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": "
           "\"[memory]\",\n"
           "    \"pid\": ";
      AppendInt(b, pid_);
      b += ", \"tid\": ";
      AppendInt(b, tid_);
      b += ",\n    \"ts\": ";
      w.Ts(e.ts);
      b += ",\n    \"args\": {\n      \"Total Reserved\": ";
      AppendInt(b, e.total_reserved);
      b += ", \"Total Allocated\": ";
      AppendInt(b, e.total_allocated);
      b += ", \"Bytes\": ";
      AppendInt(b, e.bytes);
      b += ", \"Addr\": ";
      AppendInt(b, e.addr);
      b += ", \"Device Id\": ";
      AppendInt(b, device_);
      b += ", \"Device Type\": 1, \"Ev Idx\": ";
      AppendInt(b, e.ev_idx);
      b += "\n    }";
      w.End();
      ++m.memory_events;
      m.peak_total_allocated = std::max(m.peak_total_allocated, e.total_allocated);
      return;
    }
    const char* cat = e.cat == CpuCat::kCpuOp ? "cpu_op" : "user_annotation";
    w.Begin("X", cat);
    b += "    \"ph\": \"X\", \"cat\": \"";
    b += cat;
    b += "\", \"name\": ";
    if (e.step_number >= 0) {
      b += "\"ProfilerStep#";
      AppendInt(b, e.step_number);
      b += '"';
      ++m.steps;
    } else {
      AppendJsonString(b, e.name);
    }
    b += ", \"pid\": ";
    AppendInt(b, pid_);
    b += ", \"tid\": ";
    AppendInt(b, tid_);
    b += ",\n    \"ts\": ";
    w.Ts(e.ts);
    b += ", \"dur\": ";
    AppendUs(b, e.dur);
    b += ",\n    \"args\": {\n      \"External id\": ";
    AppendInt(b, e.ext);
    b += ",\"Record function id\": 0";
    if (e.coll != nullptr) {
      const CollectiveInfo& info = Info(e.coll->kind);
      b += ", \"Process Group Name\": \"0\", \"Global rank stride\": 1, \"Out msg nelems\": ";
      AppendInt(b, e.coll->out_nelems);
      b += ", \"Process Group Ranks\": ";
      AppendJsonString(b, RanksList());
      b += ", \"Group size\": ";
      AppendInt(b, world_);
      b += ", \"Global rank start\": 0, \"Ev Idx\": ";
      AppendInt(b, e.ev_idx);
      b += ", \"In msg nelems\": ";
      AppendInt(b, e.coll->in_nelems);
      b += ", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"dtype\": \"";
      b += info.dtype;
      b += "\", \"Process Group Description\": \"default_pg\", \"Collective name\": \"";
      b += info.name;
      b += '"';
    } else {
      if (e.leaf != nullptr && e.leaf->dims != nullptr) {
        b += ", \"Input Dims\": ";
        b += e.leaf->dims;
        b += ", \"Input type\": ";
        b += e.leaf->types;
      }
      b += ", \"Ev Idx\": ";
      AppendInt(b, e.ev_idx);
    }
    b += "\n    }";
    w.End();
    if (e.cat == CpuCat::kCpuOp) ++m.cpu_ops;
  }

  void WriteGpu(const Launch& l) {
    if (writer_ == nullptr) return;
    TraceWriter& w = *writer_;
    std::string& b = w.buf();
    Manifest& m = w.manifest();
    const char* cat = l.gpu == GpuKind::kKernel   ? "kernel"
                      : l.gpu == GpuKind::kMemcpy ? "gpu_memcpy"
                                                  : "gpu_memset";
    w.Begin("X", cat);
    b += "    \"ph\": \"X\", \"cat\": \"";
    b += cat;
    b += "\", \"name\": ";
    AppendJsonString(b, l.gpu_name);
    b += ", \"pid\": ";
    AppendInt(b, device_);
    b += ", \"tid\": ";
    AppendInt(b, l.stream_id);
    b += ",\n    \"ts\": ";
    w.Ts(l.gpu_ts);
    b += ", \"dur\": ";
    AppendUs(b, l.gpu_dur);
    b += ",\n    \"args\": {\n      ";
    if (l.ext >= 0) {
      b += "\"External id\": ";
      AppendInt(b, l.ext);
      b += ",      ";
    }
    if (l.gpu == GpuKind::kKernel) {
      b += "\"queued\": 0, ";
    }
    b += "\"device\": ";
    AppendInt(b, device_);
    b += ", \"context\": 1,      \"stream\": ";
    AppendInt(b, l.stream_id);
    b += ", \"correlation\": ";
    AppendInt(b, l.corr);
    if (l.gpu == GpuKind::kKernel) {
      const int* grid = l.spec != nullptr ? l.spec->grid : kNcclGrid;
      const int* block = l.spec != nullptr ? l.spec->block : kNcclBlock;
      const int regs = l.spec != nullptr ? l.spec->regs : kNcclRegs;
      const int smem = l.spec != nullptr ? l.spec->smem : kNcclSmem;
      const double blocks = static_cast<double>(grid[0]) * grid[1] * grid[2];
      const double warps_per_block =
          std::ceil(static_cast<double>(block[0]) * block[1] * block[2] / 32.0);
      const double blocks_per_sm = blocks / props_.num_sms;
      const double warps_per_sm = blocks_per_sm * warps_per_block;
      const int occupancy =
          l.coll != nullptr ? 0 : static_cast<int>(std::min(100.0, warps_per_sm / 64.0 * 100.0));
      b += ",      \"registers per thread\": ";
      AppendInt(b, regs);
      b += ",      \"shared memory\": ";
      AppendInt(b, smem);
      b += ",      \"blocks per SM\": ";
      AppendFixed6(b, blocks_per_sm);
      b += ",      \"warps per SM\": ";
      AppendFixed6(b, warps_per_sm);
      b += ",      \"grid\": [";
      AppendInt(b, grid[0]);
      b += ", ";
      AppendInt(b, grid[1]);
      b += ", ";
      AppendInt(b, grid[2]);
      b += "],      \"block\": [";
      AppendInt(b, block[0]);
      b += ", ";
      AppendInt(b, block[1]);
      b += ", ";
      AppendInt(b, block[2]);
      b += "],      \"est. achieved occupancy %\": ";
      AppendInt(b, occupancy);
      if (l.coll != nullptr) {
        const CollectiveInfo& info = Info(l.coll->kind);
        b += ", \"Collective name\": \"";
        b += info.name;
        b += "\", \"In msg nelems\": ";
        AppendInt(b, l.coll->in_nelems);
        b += ", \"Out msg nelems\": ";
        AppendInt(b, l.coll->out_nelems);
        b += ", \"Group size\": ";
        AppendInt(b, world_);
        b += ", \"dtype\": \"";
        b += info.dtype;
        b += "\", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"Process Group Name\": "
             "\"0\", "
             "\"Process Group Description\": \"default_pg\", \"Process Group Ranks\": ";
        AppendJsonString(b, RanksList());
        ++m.nccl_kernels;
        m.nccl_total_ns += l.gpu_dur;
      }
      ++m.kernels;
      m.kernel_total_ns += l.gpu_dur;
      if (l.rt_name != nullptr) ++m.kernels_with_launch;
    } else {
      b += ",      \"bytes\": ";
      AppendInt(b, l.bytes);
      b += ", \"memory bandwidth (GB/s)\": ";
      AppendShortest(b, static_cast<double>(l.bytes) / static_cast<double>(l.gpu_dur));
      if (l.gpu == GpuKind::kMemcpy) {
        ++m.memcpy;
        m.memcpy_total_ns += l.gpu_dur;
      } else {
        ++m.memset;
        m.memset_total_ns += l.gpu_dur;
      }
    }
    b += "\n    }";
    w.End();
    w.GpuStream(device_, l.stream_id);
  }

  void WriteFlow(const char* ph, int64_t id, int64_t pid, int64_t tid, int64_t ts) {
    TraceWriter& w = *writer_;
    std::string& b = w.buf();
    w.Begin(ph, "ac2g");
    b += "    \"ph\": \"";
    b += ph;
    b += "\", \"id\": ";
    AppendInt(b, id);
    b += ", \"pid\": ";
    AppendInt(b, pid);
    b += ", \"tid\": ";
    AppendInt(b, tid);
    b += ", \"ts\": ";
    w.Ts(ts);
    b += ph[0] == 'f' ? ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\""
                      : ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"";
    w.End();
    ++w.manifest().flows;
  }

  void WriteRuntime(const Launch& l) {
    TraceWriter& w = *writer_;
    std::string& b = w.buf();
    w.Begin("X", "cuda_runtime");
    b += "    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"";
    b += l.rt_name;
    b += "\", \"pid\": ";
    AppendInt(b, pid_);
    b += ", \"tid\": ";
    AppendInt(b, tid_);
    b += ",\n    \"ts\": ";
    w.Ts(l.rt_ts);
    b += ", \"dur\": ";
    AppendUs(b, l.rt_dur);
    b += ",\n    \"args\": {\n      ";
    if (l.ext >= 0) {
      b += "\"External id\": ";
      AppendInt(b, l.ext);
      b += ",      ";
    }
    b += "\"cbid\": ";
    AppendInt(b, l.cbid);
    b += ", \"correlation\": ";
    AppendInt(b, l.corr);
    b += "\n    }";
    w.End();
    ++w.manifest().launches;
  }

  // CPU events in start order (parents before children), then GPU activities
  // with their runtime events in launch order, as Kineto groups them.
  void FlushStep() {
    if (writer_ == nullptr) return;
    std::stable_sort(cpu_.begin(), cpu_.end(), [](const CpuEvent& a, const CpuEvent& b) {
      return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;
    });
    for (const CpuEvent& e : cpu_) WriteCpu(e);
    for (const Launch& l : launches_) {
      if (l.gpu != GpuKind::kNone) {
        WriteGpu(l);
        WriteFlow("f", l.corr, device_, l.stream_id, l.gpu_ts);
      }
      WriteRuntime(l);
      if (l.gpu != GpuKind::kNone) WriteFlow("s", l.corr, pid_, tid_, l.rt_ts);
    }
  }

  const Scenario& s_;
  const Plan& plan_;
  const int rank_, world_, device_;
  TraceWriter* writer_;
  Rng rng_;
  GpuProps props_;
  std::string trace_name_;
  int64_t pid_ = 0, tid_ = 0;
  double gpu_scale_ = 1.0, step_jitter_ = 1.0;
  int64_t window_start_ = 0, t_ = 0;
  std::vector<int64_t> stream_free_;
  int64_t comm_free_ = 0;
  int comm_stream_ = 0;
  int64_t next_corr_ = 0, next_ext_ = 0, next_ev_ = 0;
  int64_t allocated_ = 0, reserved_ = 0, next_addr_ = 0;
  std::vector<Block> activations_, inputs_;
  Block pending_grad_{0, 0};
  size_t item_ = 0;
  std::vector<CpuEvent> cpu_;
  std::vector<Launch> launches_;
  std::vector<size_t> frames_;
  size_t pending_ = 0;
  int64_t pending_arrival_ = 0;
};

// ---------------------------------------------------------------------------

Status Validate(const Scenario& s) {
  auto bad = [](const std::string& m) { return InvalidInput("synth scenario: " + m); };
  if (s.ranks < 1 || s.ranks > 4096) return bad("ranks must be in [1, 4096]");
  if (s.steps < 0 || s.steps > 1000000) return bad("steps must be in [0, 1000000]");
  if (s.streams < 1 || s.streams > 64) return bad("streams must be in [1, 64]");
  if (s.kernels_per_step < 0 || s.kernels_per_step > 1000000)
    return bad("kernels_per_step out of range");
  if (s.collectives_per_step < 0 || s.collectives_per_step > 100000)
    return bad("collectives_per_step out of range");
  if (s.memcpy_per_step < 0 || s.memcpy_per_step > 100000)
    return bad("memcpy_per_step out of range");
  if (s.memset_per_step < 0 || s.memset_per_step > 100000)
    return bad("memset_per_step out of range");
  if (s.world_size != 0 && s.world_size < s.ranks) return bad("world_size must be 0 or >= ranks");
  if (s.straggler_rank < -1 || s.straggler_rank >= s.ranks)
    return bad("straggler_rank must be -1 or a rank");
  if (!(s.straggler_slowdown >= 1.0 && s.straggler_slowdown <= 100.0))
    return bad("straggler_slowdown must be in [1, 100]");
  if (s.gpus_per_node < 1 || s.gpus_per_node > 16) return bad("gpus_per_node must be in [1, 16]");
  if (s.first_step < 0) return bad("first_step must be >= 0");
  if (s.pre_capture_kernels < 0 || s.pre_capture_kernels > 100)
    return bad("pre_capture_kernels must be in [0, 100]");
  return Ok();
}

struct RankOutput {
  int rank;
  std::ostream* out;
  Manifest* manifest;
  std::string trace_name;
};

// Simulates every rank in lockstep (collective by collective); writes `outputs`.
Status Generate(const Scenario& s, std::vector<RankOutput>& outputs) {
  TH_RETURN_IF_ERROR(Validate(s));
  const Plan plan = BuildPlan(s);
  const JobClock clock = MakeClock(s.seed);
  const int world = s.world_size > 0 ? s.world_size : s.ranks;

  std::vector<std::unique_ptr<TraceWriter>> writers(static_cast<size_t>(s.ranks));
  std::vector<std::string> names(static_cast<size_t>(s.ranks));
  for (auto& o : outputs) {
    *o.manifest = Manifest();
    writers[o.rank] =
        std::make_unique<TraceWriter>(o.out, o.manifest, s.relative_timestamps, clock.base_ns);
    names[o.rank] = o.trace_name;
  }
  std::vector<std::unique_ptr<RankSim>> sims;
  for (int r = 0; r < s.ranks; ++r) {
    sims.push_back(std::make_unique<RankSim>(s, plan, r, clock, writers[r].get()));
    sims.back()->WriteHeader(names[r]);
    sims.back()->PreCapture();
  }
  for (int step = 0; step < s.steps; ++step) {
    for (auto& sim : sims) sim->BeginStep(step);
    size_t item = 0;
    for (int c = 0; c < plan.collectives; ++c) {
      while (plan.items[item].type != ItemType::kCollective) ++item;
      const Collective& coll = plan.items[item++].coll;
      int64_t last_arrival = 0;
      for (auto& sim : sims) last_arrival = std::max(last_arrival, sim->RunToCollective());
      const CollectiveInfo& info = Info(coll.kind);
      const double bytes =
          static_cast<double>(std::max(coll.in_nelems, coll.out_nelems)) * info.elem_bytes;
      const double factor = world <= 1 ? 0.0
                            : coll.kind == CollKind::kAllReduce
                                ? 2.0 * (world - 1) / world
                                : static_cast<double>(world - 1) / world;
      const int64_t transfer =
          6000 + std::llround(bytes * factor / 150.0);  // ~150 GB/s bus bandwidth
      for (auto& sim : sims) sim->CompleteCollective(last_arrival + transfer);
    }
    for (auto& sim : sims) sim->FinishStep();
  }
  for (auto& sim : sims) TH_RETURN_IF_ERROR(sim->WriteTrailer());
  return Ok();
}

}  // namespace

Status WriteKinetoTrace(const Scenario& s, int rank, std::ostream& out, Manifest* manifest) {
  TH_RETURN_IF_ERROR(Validate(s));
  if (rank < 0 || rank >= s.ranks)
    return InvalidInput("synth: rank " + std::to_string(rank) + " out of range");
  Manifest local;
  std::vector<RankOutput> outputs{
      {rank, &out, manifest != nullptr ? manifest : &local,
       s.trace_name.empty() ? "rank" + std::to_string(rank) + ".pt.trace.json" : s.trace_name}};
  return Generate(s, outputs);
}

StatusOr<std::vector<std::string>> WriteKinetoTraces(const Scenario& s, const std::string& dir,
                                                     bool gzip, std::vector<Manifest>* manifests) {
  TH_RETURN_IF_ERROR(Validate(s));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError("cannot create directory " + dir + ": " + ec.message());

  const size_t n = static_cast<size_t>(s.ranks);
  std::vector<std::string> paths(n);
  std::vector<Manifest> local(n);
  std::vector<std::ofstream> files(n);
  std::vector<std::ostringstream> buffers(gzip ? n : 0);
  std::vector<RankOutput> outputs;
  for (size_t r = 0; r < n; ++r) {
    paths[r] = (std::filesystem::path(dir) /
                ("rank" + std::to_string(r) + ".pt.trace.json" + (gzip ? ".gz" : "")))
                   .string();
    std::ostream* out = nullptr;
    if (gzip) {
      out = &buffers[r];
    } else {
      files[r].open(paths[r], std::ios::binary | std::ios::trunc);
      if (!files[r]) return IoError("cannot open " + paths[r] + " for writing");
      out = &files[r];
    }
    outputs.push_back(
        {static_cast<int>(r), out, &local[r], s.trace_name.empty() ? paths[r] : s.trace_name});
  }
  TH_RETURN_IF_ERROR(Generate(s, outputs));

  for (size_t r = 0; r < n; ++r) {
    if (!gzip) {
      files[r].close();
      if (!files[r]) return IoError("cannot write " + paths[r]);
      continue;
    }
    const std::string text = std::move(buffers[r]).str();
    libdeflate_compressor* c = libdeflate_alloc_compressor(6);
    if (c == nullptr) return Internal("libdeflate_alloc_compressor failed");
    std::string packed(libdeflate_gzip_compress_bound(c, text.size()), '\0');
    const size_t size =
        libdeflate_gzip_compress(c, text.data(), text.size(), packed.data(), packed.size());
    libdeflate_free_compressor(c);
    if (size == 0) return Internal("gzip compression failed for " + paths[r]);
    std::ofstream f(paths[r], std::ios::binary | std::ios::trunc);
    f.write(packed.data(), static_cast<std::streamsize>(size));
    f.close();
    if (!f) return IoError("cannot write " + paths[r]);
  }
  if (manifests != nullptr) *manifests = std::move(local);
  return paths;
}

}  // namespace th::synth
