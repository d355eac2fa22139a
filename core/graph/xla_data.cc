#include "core/graph/xla_data.h"

#include "core/graph/hlo_compute_dims.h"
#include "core/graph/hlo_text.h"

namespace th {

const char* HloMatchName(HloMatch m) {
  switch (m) {
    case HloMatch::kExact:
      return "exact";
    case HloMatch::kName:
      return "name";
    case HloMatch::kOrder:
      return "order";
    case HloMatch::kNone:
      break;
  }
  return "none";
}

void XlaData::BuildIndex(StringPool* strings) {
  index = std::make_unique<hlo::HloIndex>(&modules);
  HloColumns c;
  for (const hlo::HloModule& m : modules) {
    c.module_name.push_back(strings->Intern(m.name));
    c.module_id.push_back(m.id);
  }
  const auto n = static_cast<uint32_t>(index->size());
  c.operand_offsets.push_back(0);
  c.user_offsets.push_back(0);
  for (uint32_t f = 0; f < n; ++f) {
    const hlo::HloInstruction& ins = index->instruction(f);
    c.module.push_back(index->ref(f).module);
    c.name.push_back(strings->Intern(ins.name));
    c.opcode.push_back(strings->Intern(ins.opcode));
    c.shape.push_back(ins.has_shape ? strings->Intern(hlo::ShapeText(ins.shape)) : kEmptyString);
    c.op_name.push_back(strings->Intern(ins.metadata.op_name));
    c.source_file.push_back(strings->Intern(ins.metadata.source_file));
    c.source_line.push_back(ins.metadata.source_line);
    c.custom_call_target.push_back(strings->Intern(ins.custom_call_target));
    c.fusion_kind.push_back(strings->Intern(ins.fusion_kind));
    const hlo::HloComputation& comp = index->computation_of(f);
    c.computation.push_back(strings->Intern(comp.name));
    c.parameter_number.push_back(static_cast<int32_t>(ins.parameter_number));
    c.tuple_index.push_back(static_cast<int32_t>(ins.tuple_index));
    c.in_entry.push_back(&comp == index->module_of(f).EntryComputation());
    c.caller.push_back(index->caller(f));
    c.dot_dims.push_back(strings->Intern(hlo::InstructionDotDimsText(ins)));
    c.window.push_back(strings->Intern(hlo::WindowText(ins.window)));
    c.dim_labels.push_back(ins.has_conv_dims ? strings->Intern(hlo::DimLabelsText(ins.conv_dims))
                                             : kEmptyString);
    c.feature_group_count.push_back(ins.feature_group_count);
    c.batch_group_count.push_back(ins.batch_group_count);
    c.custom_call_config.push_back(strings->Intern(hlo::ModelledCustomCallConfig(ins)));
    for (uint32_t o : index->operands(f)) c.operands.push_back(o);
    c.operand_offsets.push_back(static_cast<uint32_t>(c.operands.size()));
    for (uint32_t u : index->users(f)) c.users.push_back(u);
    c.user_offsets.push_back(static_cast<uint32_t>(c.users.size()));
  }
  columns = std::move(c);
}

}  // namespace th
