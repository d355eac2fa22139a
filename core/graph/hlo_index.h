// HloIndex: one flat numbering of every instruction of a trace's HLO modules,
// with what the proto leaves implicit: users, the fusion instruction that
// calls a fused computation, and lookups by module id, module name and
// instruction name. Built once after the modules are loaded; read-only after.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/graph/hlo_model.h"

namespace th::hlo {

inline constexpr uint32_t kNoInstruction = 0xffffffffu;

struct InstructionRef {
  uint32_t module = 0;
  uint32_t computation = 0;  // index in HloModule::computations
  uint32_t index = 0;        // index in HloComputation::instructions
};

class HloIndex {
 public:
  HloIndex() = default;
  // `modules` must outlive the index and not change.
  explicit HloIndex(const std::vector<HloModule>* modules);

  size_t size() const { return refs_.size(); }
  const std::vector<HloModule>& modules() const { return *modules_; }
  const InstructionRef& ref(uint32_t flat) const { return refs_[flat]; }
  const HloInstruction& instruction(uint32_t flat) const;
  const HloComputation& computation_of(uint32_t flat) const;
  const HloModule& module_of(uint32_t flat) const { return (*modules_)[refs_[flat].module]; }
  // First flat index of module m's instructions (they are contiguous).
  uint32_t module_begin(uint32_t m) const { return module_begin_[m]; }
  uint32_t module_end(uint32_t m) const { return module_begin_[m + 1]; }

  // Operands and users as flat indices (ids that resolve to nothing are
  // dropped and counted in unresolved_operands()).
  std::span<const uint32_t> operands(uint32_t flat) const;
  std::span<const uint32_t> users(uint32_t flat) const;
  // The fusion/call instruction whose called computations include the
  // computation of `flat`, or kNoInstruction (entry or unreferenced).
  uint32_t caller(uint32_t flat) const;
  // Flat index of the instruction with this id / name in module m.
  uint32_t FindById(uint32_t module, int64_t id) const;
  uint32_t FindByName(uint32_t module, std::string_view name) const;
  // Computation index (in module m) with this id, or -1.
  int32_t FindComputation(uint32_t module, int64_t id) const;
  // Module index by HloModuleProto.id (the profiler's program_id), or -1.
  int32_t FindModuleById(int64_t id) const;
  // Module indices with this name (a program compiled twice has two ids).
  std::span<const uint32_t> FindModulesByName(std::string_view name) const;

  // "file:line" of the instruction's metadata; for a fusion without its own,
  // the called computation's root, else its first instruction that has one.
  // Empty when nothing is recorded.
  std::string SourceLine(uint32_t flat) const;
  // op_name of the metadata, with the same fallback as SourceLine.
  const std::string& OpName(uint32_t flat) const;

  uint64_t unresolved_operands() const { return unresolved_; }

 private:
  uint32_t Fallback(uint32_t flat, bool want_source) const;

  const std::vector<HloModule>* modules_ = nullptr;
  std::vector<InstructionRef> refs_;
  std::vector<uint32_t> module_begin_{0};
  std::vector<uint32_t> operand_offsets_{0}, operand_rows_;
  std::vector<uint32_t> user_offsets_{0}, user_rows_;
  std::vector<uint32_t> caller_;  // per flat instruction
  std::vector<std::unordered_map<int64_t, uint32_t>> by_id_;
  std::vector<std::unordered_map<std::string_view, uint32_t>> by_name_;
  std::vector<std::unordered_map<int64_t, int32_t>> computation_by_id_;
  std::unordered_map<int64_t, int32_t> module_by_id_;
  std::unordered_map<std::string_view, std::vector<uint32_t>> modules_by_name_;
  uint64_t unresolved_ = 0;
};

}  // namespace th::hlo
