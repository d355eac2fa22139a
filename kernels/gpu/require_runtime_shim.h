// Included by every shared GPU engine header: they are written against the
// names of a runtime shim, which the translation unit includes first.
#pragma once

#ifndef TH_GPU_RUNTIME_SHIM
#error "include kernels/gpu/cuda_runtime_shim.h or hip_runtime_shim.h first"
#endif
