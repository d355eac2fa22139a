// HLO text spellings of the dimension facts of dots and convolutions (as XLA
// prints them), and the dot dimensions of cuBLAS GEMM custom-calls, which
// XLA:GPU keeps in the instruction's backend_config rather than in field 30.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/hlo_model.h"

namespace th::hlo {

// "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0},
// rhs_contracting_dims={1}": the batch lists only when not empty.
std::string DotDimsText(const HloDotDims& d);

// "size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=2x2 rhs_dilate=2x2
// rhs_reversal=0x1": size always, each other part only when some dimension
// differs from the default (stride 1, no padding, dilation 1, no reversal);
// "" for no window.
std::string WindowText(const std::vector<HloWindowDim>& w);

// "b01f_01io->b01f": per dimension of the input, kernel and output, its role
// (b batch, f feature, i/o kernel input/output feature, a digit the spatial
// dimension's number). "" when the numbers do not describe a valid labeling
// (a dimension out of range or named twice, more than 10 spatial dimensions).
std::string DimLabelsText(const HloConvDims& c);

// The dot dimensions in a GEMM custom-call's backend_config JSON
// ({"gemm_backend_config": {"dot_dimension_numbers": {...}}}); nullopt when
// absent or unreadable.
std::optional<HloDotDims> GemmConfigDotDims(std::string_view backend_config);

// The dot dimensions of an instruction: field 30, else those of a
// `__cublas$...` GEMM custom-call's backend_config. "" when it has none.
std::string InstructionDotDimsText(const HloInstruction& ins);

// The backend_config of a custom-call whose cost is read from it:
// TransformerEngine's fused attention (targets te_fused_attn_*; an attribute
// dictionary "{attn_heads = 16 : i64, input_batch = 2 : i64, ...}"). "" for
// any other instruction, so the catalog does not carry every kernel's config.
std::string_view ModelledCustomCallConfig(const HloInstruction& ins);

}  // namespace th::hlo
