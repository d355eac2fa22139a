#include "core/graph/hlo_index.h"

namespace th::hlo {

HloIndex::HloIndex(const std::vector<HloModule>* modules) : modules_(modules) {
  const auto module_count = static_cast<uint32_t>(modules->size());
  by_id_.resize(module_count);
  by_name_.resize(module_count);
  computation_by_id_.resize(module_count);
  for (uint32_t m = 0; m < module_count; ++m) {
    const HloModule& mod = (*modules)[m];
    if (!module_by_id_.count(mod.id)) module_by_id_[mod.id] = static_cast<int32_t>(m);
    modules_by_name_[mod.name].push_back(m);
    for (uint32_t c = 0; c < mod.computations.size(); ++c) {
      const HloComputation& comp = mod.computations[c];
      if (comp.has_id) computation_by_id_[m].emplace(comp.id, static_cast<int32_t>(c));
      for (uint32_t i = 0; i < comp.instructions.size(); ++i) {
        auto flat = static_cast<uint32_t>(refs_.size());
        refs_.push_back({m, c, i});
        const HloInstruction& ins = comp.instructions[i];
        if (ins.has_id) by_id_[m].emplace(ins.id, flat);
        by_name_[m].emplace(ins.name, flat);
      }
    }
    module_begin_.push_back(static_cast<uint32_t>(refs_.size()));
  }

  // Operands (CSR) and, from them, users; callers of called computations.
  const size_t n = refs_.size();
  std::vector<uint32_t> user_count(n, 0);
  caller_.assign(n, kNoInstruction);
  for (uint32_t flat = 0; flat < n; ++flat) {
    const InstructionRef& r = refs_[flat];
    const HloInstruction& ins = instruction(flat);
    for (int64_t id : ins.operand_ids) {
      uint32_t op = FindById(r.module, id);
      if (op == kNoInstruction) {
        ++unresolved_;
        continue;
      }
      operand_rows_.push_back(op);
      ++user_count[op];
    }
    operand_offsets_.push_back(static_cast<uint32_t>(operand_rows_.size()));
  }
  user_offsets_.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) user_offsets_[i + 1] = user_offsets_[i] + user_count[i];
  user_rows_.resize(user_offsets_[n]);
  std::vector<uint32_t> fill(user_offsets_.begin(), user_offsets_.end() - 1);
  for (uint32_t flat = 0; flat < n; ++flat) {
    for (uint32_t op : operands(flat)) user_rows_[fill[op]++] = flat;
  }
  for (uint32_t flat = 0; flat < n; ++flat) {
    const InstructionRef& r = refs_[flat];
    for (int64_t cid : instruction(flat).called_computation_ids) {
      int32_t c = FindComputation(r.module, cid);
      if (c < 0) continue;
      const HloComputation& comp = (*modules_)[r.module].computations[static_cast<size_t>(c)];
      for (const HloInstruction& callee : comp.instructions) {
        uint32_t f = FindByName(r.module, callee.name);
        if (f != kNoInstruction && caller_[f] == kNoInstruction) caller_[f] = flat;
      }
    }
  }
}

const HloInstruction& HloIndex::instruction(uint32_t flat) const {
  const InstructionRef& r = refs_[flat];
  return (*modules_)[r.module].computations[r.computation].instructions[r.index];
}

const HloComputation& HloIndex::computation_of(uint32_t flat) const {
  const InstructionRef& r = refs_[flat];
  return (*modules_)[r.module].computations[r.computation];
}

std::span<const uint32_t> HloIndex::operands(uint32_t flat) const {
  return {operand_rows_.data() + operand_offsets_[flat],
          operand_offsets_[flat + 1] - operand_offsets_[flat]};
}

std::span<const uint32_t> HloIndex::users(uint32_t flat) const {
  return {user_rows_.data() + user_offsets_[flat], user_offsets_[flat + 1] - user_offsets_[flat]};
}

uint32_t HloIndex::caller(uint32_t flat) const { return caller_[flat]; }

uint32_t HloIndex::FindById(uint32_t module, int64_t id) const {
  auto it = by_id_[module].find(id);
  return it == by_id_[module].end() ? kNoInstruction : it->second;
}

uint32_t HloIndex::FindByName(uint32_t module, std::string_view name) const {
  auto it = by_name_[module].find(name);
  return it == by_name_[module].end() ? kNoInstruction : it->second;
}

int32_t HloIndex::FindComputation(uint32_t module, int64_t id) const {
  auto it = computation_by_id_[module].find(id);
  return it == computation_by_id_[module].end() ? -1 : it->second;
}

int32_t HloIndex::FindModuleById(int64_t id) const {
  auto it = module_by_id_.find(id);
  return it == module_by_id_.end() ? -1 : it->second;
}

std::span<const uint32_t> HloIndex::FindModulesByName(std::string_view name) const {
  auto it = modules_by_name_.find(name);
  if (it == modules_by_name_.end()) return {};
  return it->second;
}

uint32_t HloIndex::Fallback(uint32_t flat, bool want_source) const {
  auto has = [&](const HloInstruction& ins) {
    return want_source ? !ins.metadata.source_file.empty() : !ins.metadata.op_name.empty();
  };
  if (has(instruction(flat))) return flat;
  const InstructionRef& r = refs_[flat];
  for (int64_t cid : instruction(flat).called_computation_ids) {
    int32_t c = FindComputation(r.module, cid);
    if (c < 0) continue;
    const HloComputation& comp = (*modules_)[r.module].computations[static_cast<size_t>(c)];
    uint32_t root = FindById(r.module, comp.root_id);
    if (root != kNoInstruction && has(instruction(root))) return root;
    for (const HloInstruction& ins : comp.instructions) {
      if (has(ins)) return FindByName(r.module, ins.name);
    }
  }
  return kNoInstruction;
}

std::string HloIndex::SourceLine(uint32_t flat) const {
  uint32_t f = Fallback(flat, true);
  if (f == kNoInstruction) return {};
  const HloMetadata& md = instruction(f).metadata;
  return md.source_file + ":" + std::to_string(md.source_line);
}

const std::string& HloIndex::OpName(uint32_t flat) const {
  static const std::string kEmpty;
  uint32_t f = Fallback(flat, false);
  return f == kNoInstruction ? kEmpty : instruction(f).metadata.op_name;
}

}  // namespace th::hlo
