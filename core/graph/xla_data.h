// XlaData: the compiler side of an XProf capture, joined to its event graph.
//
// Contract: `modules` are the distinct HLO modules of the capture (metadata
// plane first, then side files; a module seen twice, same id and name, is kept
// once). `index` numbers their instructions. After attribution, row r of
// `kernel_instruction` / `kernel_match` belongs to row r of
// EventGraph::gpu_args (kernels, memcpy, memset alike).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/graph/hlo_index.h"
#include "core/graph/hlo_model.h"
#include "core/graph/string_pool.h"

namespace th {

// How a GPU event was tied to an HLO instruction (seed 004):
// exact: the event's own hlo_op names an instruction of its module;
// name: the kernel's name is the unique candidate instruction in its window;
// order: the next unmatched instruction of the window in schedule order;
// none: no candidate is left (or no module).
enum class HloMatch : uint8_t { kNone = 0, kExact = 1, kName = 2, kOrder = 3 };
inline constexpr int kHloMatchCount = 4;
const char* HloMatchName(HloMatch m);

// The instructions of all modules as columns (catalog tables hlo_*), flat
// numbering as in HloIndex; strings are ids in the trace's StringPool.
struct HloColumns {
  std::vector<StringId> module_name;  // per module
  std::vector<int64_t> module_id;     // per module
  std::vector<uint32_t> module;       // per instruction: module index
  std::vector<StringId> name, opcode, shape, op_name, source_file;
  std::vector<int32_t> source_line;
  std::vector<StringId> custom_call_target, fusion_kind, computation;  // computation: its name
  std::vector<int32_t> parameter_number, tuple_index;                  // -1 when not one
  std::vector<uint8_t> in_entry;  // 1 when the instruction is in its module's entry computation
  std::vector<uint32_t> caller;   // fusion/call instruction of its computation, or none
  std::vector<uint32_t> operand_offsets, operands, user_offsets, users;  // CSR
  // Per instruction (table hlo_compute_dims), HLO text: dot dimensions, the
  // window, the convolution dim_labels ("" when not present); group counts.
  std::vector<StringId> dot_dims, window, dim_labels;
  std::vector<int64_t> feature_group_count, batch_group_count;
  // The backend_config of the custom-calls a cost model reads it from
  // (hlo::ModelledCustomCallConfig), "" for every other instruction.
  std::vector<StringId> custom_call_config;
};

struct XlaData {
  std::vector<hlo::HloModule> modules;
  std::unique_ptr<hlo::HloIndex> index;      // over `modules`, once they are final
  std::vector<uint32_t> kernel_instruction;  // flat instruction, hlo::kNoInstruction if none
  std::vector<HloMatch> kernel_match;
  bool attributed = false;  // the columns above are filled

  HloColumns columns;  // filled by BuildIndex

  // Builds `index` and `columns` (strings interned in `strings`); call once
  // `modules` stops changing.
  void BuildIndex(StringPool* strings);
};

}  // namespace th
