// A small Kineto trace writer for diff tests: `steps` ProfilerSteps of one
// rank, each with two modules (`nn.Module: Encoder_0` holding two
// aten::linear ops, `nn.Module: Decoder_0` holding aten::add and
// aten::relu), every op launching one kernel on stream 7. The variations a
// diff must find are options.
#pragma once

#include <cstdint>
#include <string>

namespace th::testing {

struct DiffFixture {
  int steps = 4;
  bool double_gemm = false;      // the first linear's kernel (gemm) lasts 100 µs instead of 50
  bool insert_mul = false;       // aten::mul (with mul_kernel, 15 µs) inside Decoder_0
  int64_t address = 0x7f001000;  // written into the gemm kernel's name (masked by the diff)
  bool markers = true;           // ProfilerStep#N events (else steps are inferred)
  // record_shapes: every op carries "Input Dims" / "Input type"; the linears
  // (bf16) have `linear_dims`, add and relu fp32 [64, 64] tensors.
  bool shapes = false;
  std::string linear_dims = "[[8, 1024], [1024, 1024], [1024]]";
};

// The trace as Kineto JSON text (µs, whole numbers). Per step (base = 1000 µs
// × index): ProfilerStep [base, base + 1000); Encoder_0 [base + 10, base +
// 200) with aten::linear [+20, +60) and [+150, +190); Decoder_0 [base + 300,
// base + 600) with aten::add [+310, +350), aten::mul [+360, +400) when
// inserted, aten::relu [+420, +460). Each op holds a cudaLaunchKernel at
// its start + 10 (5 µs); the kernel starts 10 µs after the launch and lasts:
// gemm 50 (100 doubled), gemm2 30, elementwise 20, mul 15, relu 10 µs.
std::string DiffFixtureTrace(const DiffFixture& f);

}  // namespace th::testing
