// Hand-written Kineto traces shared by tests of several plugins and of the
// CLI, each small enough that every figure is computed by hand in the test
// that reads it. Kernel names are the real ones (demangled as Kineto writes
// them).
#pragma once

namespace th::testing {

// A MoE training step on one rank (µs): expert GEMMs on the compute stream 7
// while DeepEP moves tokens on stream 20, NVSHMEM, MSCCL++ and NCCL kernels on
// stream 21, and a one-sided peer copy on stream 22.
//
//   stream 7   get_dispatch_layout [10,30)   gemm [100,400)   gemm [500,800)   Memcpy HtoD
//   [960,980) stream 20  internode::notify_dispatch [30,60)  internode::dispatch [60,160)
//              internode::combine [350,450)  intranode::dispatch [450,520)
//              intranode::combine [700,760)
//   stream 21  nvshmemi_proxy_rma_entrypoint [780,820)  mscclpp::executionKernel [850,900)
//              ncclDevKernel_AllGather [900,950)
//   stream 22  Memcpy PtoP [200,260)
//
// Every kernel and copy is launched 5 µs before it starts (correlation = its
// order). One ProfilerStep [0, 1000).
inline constexpr const char* kMoeTrainingTrace = R"json({
  "distributedInfo": {"rank": 0, "world_size": 8},
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132, "totalGlobalMem": 85520809984}],
  "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5, "dur": 3, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 25, "dur": 3, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 1, "tid": 1, "ts": 55, "dur": 3, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 95, "dur": 3, "args": {"correlation": 4}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyPeerAsync", "pid": 1, "tid": 1, "ts": 195, "dur": 3, "args": {"correlation": 5}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 1, "tid": 1, "ts": 345, "dur": 3, "args": {"correlation": 6}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 1, "tid": 1, "ts": 445, "dur": 3, "args": {"correlation": 7}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 495, "dur": 3, "args": {"correlation": 8}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 1, "tid": 1, "ts": 695, "dur": 3, "args": {"correlation": 9}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 775, "dur": 3, "args": {"correlation": 10}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 845, "dur": 3, "args": {"correlation": 11}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 895, "dur": 3, "args": {"correlation": 12}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 955, "dur": 3, "args": {"correlation": 13}},
  {"ph": "X", "cat": "kernel", "name": "void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)", "pid": 0, "tid": 7, "ts": 10, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "void deep_ep::internode::notify_dispatch<8>(int const*, int*, int, int const*, int*, int, int, int, int, bool const*, int*, int*, int*, int*, int, int, void*, int, void**, int, int, bool)", "pid": 0, "tid": 20, "ts": 30, "dur": 30, "args": {"device": 0, "stream": 20, "correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "void deep_ep::internode::dispatch<false, 8, 3, 4, 64, 4>(int4*, float*, long*, float*, SourceMeta*, int4 const*, float const*, long const*, float const*, int*, int*, int*, int*, int const*, int const*, int const*, int const*, int, int, int, int, bool const*, void*, int, int, void**, int, int, int)", "pid": 0, "tid": 20, "ts": 60, "dur": 100, "args": {"device": 0, "stream": 20, "correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": 100, "dur": 300, "args": {"device": 0, "stream": 7, "correlation": 4}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy PtoP (Device -> Device)", "pid": 0, "tid": 22, "ts": 200, "dur": 60, "args": {"device": 0, "stream": 22, "correlation": 5, "bytes": 67108864}},
  {"ph": "X", "cat": "kernel", "name": "void deep_ep::internode::combine<__nv_bfloat16, 8, 3, 4>(int4*, float*, bool const*, int4 const*, float const*, int const*, int const*, int const*, SourceMeta const*, int const*, int const*, int const*, int, int, int, int, void*, int, int, void**, int, int, int)", "pid": 0, "tid": 20, "ts": 350, "dur": 100, "args": {"device": 0, "stream": 20, "correlation": 6}},
  {"ph": "X", "cat": "kernel", "name": "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*, int*, int*, int4 const*, float const*, long const*, float const*, bool const*, int const*, int, int, int, int, int, void**, int, int, int)", "pid": 0, "tid": 20, "ts": 450, "dur": 70, "args": {"device": 0, "stream": 20, "correlation": 7}},
  {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": 500, "dur": 300, "args": {"device": 0, "stream": 7, "correlation": 8}},
  {"ph": "X", "cat": "kernel", "name": "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768, 4096>(int4*, float*, int4 const*, float const*, float const*, float const*, int const*, int const*, int const*, int, int, int, int, void**, int, int, int)", "pid": 0, "tid": 20, "ts": 700, "dur": 60, "args": {"device": 0, "stream": 20, "correlation": 9}},
  {"ph": "X", "cat": "kernel", "name": "void nvshmemi_proxy_rma_entrypoint<(nvshmemi_op_t)1, 1>(void*, void*, rma_bytesdesc_t, int)", "pid": 0, "tid": 21, "ts": 780, "dur": 40, "args": {"device": 0, "stream": 21, "correlation": 10}},
  {"ph": "X", "cat": "kernel", "name": "void mscclpp::executionKernel<__nv_bfloat16, false>(int, __nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, void*, unsigned int, mscclpp::DeviceExecutionPlan*, unsigned long, unsigned long)", "pid": 0, "tid": 21, "ts": 850, "dur": 50, "args": {"device": 0, "stream": 21, "correlation": 11}},
  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 21, "ts": 900, "dur": 50, "args": {"device": 0, "stream": 21, "correlation": 12}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 960, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 13, "bytes": 1048576}}
]})json";

// An inference server capturing CUDA graphs (µs). Before the profiler step,
// a warm-up forward runs two kernels on stream 7 ([20, 60) and [60, 90)).
// Inside ProfilerStep#1 [200, 1200) the host thread begins capture on the
// stream, launches five kernels and a memset into the graph (their work never
// runs: no GPU event carries their correlation ids), asks for the capture
// state, ends the capture, and instantiates the graph.
inline constexpr const char* kGraphCaptureTrace = R"json({
  "distributedInfo": {"rank": 0, "world_size": 1},
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132, "totalGlobalMem": 85520809984}],
  "traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 4, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 16, "dur": 4, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::BFloat16>, std::array<char*, 1ul> >(int, at::native::FillFunctor<c10::BFloat16>, std::array<char*, 1ul>)", "pid": 0, "tid": 7, "ts": 20, "dur": 40, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": 60, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 2}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 200, "dur": 1000},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamBeginCapture", "pid": 1, "tid": 1, "ts": 210, "dur": 5, "args": {"correlation": 9}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 220, "dur": 4, "args": {"correlation": 10}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 300, "dur": 4, "args": {"correlation": 11}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamGetCaptureInfo_v2", "pid": 1, "tid": 1, "ts": 350, "dur": 1, "args": {"correlation": 12}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 1, "tid": 1, "ts": 400, "dur": 4, "args": {"correlation": 13}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 1, "tid": 1, "ts": 500, "dur": 4, "args": {"correlation": 14}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 600, "dur": 4, "args": {"correlation": 15}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 700, "dur": 4, "args": {"correlation": 16}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamEndCapture", "pid": 1, "tid": 1, "ts": 800, "dur": 5, "args": {"correlation": 17}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphInstantiateWithFlags", "pid": 1, "tid": 1, "ts": 810, "dur": 90, "args": {"correlation": 18}}
]})json";

}  // namespace th::testing
