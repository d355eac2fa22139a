// Plain data decoded from an XLA HLO module (`xla.HloModuleProto`, see
// ../shared/reference/formats.md 3.5). Only the subset the profiler needs:
// structure, opcodes, shapes with layouts, operands, callees, metadata and the
// schedule. Users are not in the proto; core/graph/hlo_index.h derives them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace th::hlo {

// xla.ShapeProto. An array shape has `dimensions`; a tuple shape (element type
// TUPLE = 13) has `tuple_shapes`. `has_layout` tells a present LayoutProto (an
// empty `minor_to_major` is then the valid rank-0 layout) from an absent one.
struct HloShape {
  static constexpr int64_t kTuple = 13;
  static constexpr int64_t kOpaque = 14;
  static constexpr int64_t kToken = 17;

  int64_t element_type = 0;  // xla.PrimitiveType value
  std::vector<int64_t> dimensions;
  std::vector<HloShape> tuple_shapes;
  bool has_layout = false;
  std::vector<int64_t> minor_to_major;
};

// xla.OpMetadata (subset).
struct HloMetadata {
  std::string op_type;
  std::string op_name;
  std::string source_file;
  int32_t source_line = 0;
  int32_t stack_frame_id = 0;  // 1-based into the module's stack frame index; 0 = unset
};

// xla.DotDimensionNumbers: dimension indices of the lhs / rhs operand.
struct HloDotDims {
  std::vector<int64_t> lhs_contracting, rhs_contracting, lhs_batch, rhs_batch;
};

// xla.WindowDimension, as on the wire (proto3: an absent field reads 0).
struct HloWindowDim {
  int64_t size = 0, stride = 0, padding_low = 0, padding_high = 0;
  int64_t window_dilation = 0, base_dilation = 0;
  bool window_reversal = false;
};

// xla.ConvolutionDimensionNumbers: dimension indices of the input (lhs),
// kernel (rhs) and output shapes.
struct HloConvDims {
  int64_t input_batch = 0, input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0, kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0, output_feature = 0;
  std::vector<int64_t> output_spatial;
};

// xla.HloInstructionProto (subset).
struct HloInstruction {
  std::string name;
  int64_t id = 0;
  bool has_id = false;
  std::string opcode;  // text spelling, e.g. "fusion", "copy"
  HloShape shape;
  bool has_shape = false;
  std::vector<int64_t> operand_ids;             // ids of instructions (same module)
  std::vector<int64_t> called_computation_ids;  // ids of computations (fusion bodies, ...)
  std::string fusion_kind;                      // "kLoop", "kInput", ... ("" when unset)
  int64_t parameter_number = -1;                // parameter only
  int64_t tuple_index = -1;                     // get-tuple-element only
  std::vector<int64_t> dimensions;              // transpose perm, reduce/broadcast dims
  std::string custom_call_target;               // custom-call only
  std::string backend_config;                   // raw bytes (JSON text on GPU)
  // dot (field 30), convolution (window 15, dimension numbers 16, group
  // counts 50 and 58; cuDNN/MIOpen convolution custom-calls carry them too).
  bool has_dot_dims = false;
  HloDotDims dot_dims;
  std::vector<HloWindowDim> window;  // empty when absent
  bool has_conv_dims = false;
  HloConvDims conv_dims;
  int64_t feature_group_count = 1;  // an absent or 0 field reads 1, as XLA does
  int64_t batch_group_count = 1;
  HloMetadata metadata;
  // The metadata or called_computation_ids payload was malformed. The oracle
  // does not decode those fields, so this does not fail the read; what decoded
  // before the fault is kept.
  bool lenient_decode_failed = false;
};

// xla.HloComputationProto (subset).
struct HloComputation {
  std::string name;
  int64_t id = 0;
  bool has_id = false;
  int64_t root_id = 0;
  bool is_fusion_computation = false;
  std::vector<HloInstruction> instructions;  // operands before users
};

// xla.HloModuleProto (subset), plus which container it came in.
struct HloModule {
  std::string name;
  int64_t id = 0;  // unique_id = profiler program_id; 0 when absent
  std::string entry_computation_name;
  int64_t entry_computation_id = 0;
  bool has_entry_computation_id = false;
  std::vector<HloComputation> computations;  // callees before callers
  // HloScheduleProto: computation id -> instruction ids in execution order.
  std::map<int64_t, std::vector<int64_t>> schedule;
  // "HloProto" (wrapped in xla.HloProto) or "HloModuleProto" (bare).
  std::string container;
  // Where it came from: "metadata plane" or the side file's path.
  std::string origin;
  bool has_buffer_assignment = false;  // HloProto field 3 present

  // The entry computation: by id when the module has one, else by name.
  // nullptr when not found.
  const HloComputation* EntryComputation() const {
    if (has_entry_computation_id) {
      for (const auto& c : computations) {
        if (c.has_id && c.id == entry_computation_id) return &c;
      }
    }
    for (const auto& c : computations) {
      if (c.name == entry_computation_name) return &c;
    }
    return nullptr;
  }

  size_t InstructionCount() const {
    size_t n = 0;
    for (const auto& c : computations) n += c.instructions.size();
    return n;
  }
};

}  // namespace th::hlo
