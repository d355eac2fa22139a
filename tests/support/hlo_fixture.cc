#include "tests/support/hlo_fixture.h"

namespace th::testing {

HloComputationProto* AddComputation(HloModuleProto* m, int64_t id, const std::string& name,
                                    bool fusion) {
  HloComputationProto* c = m->add_computations();
  c->set_id(id);
  c->set_name(name);
  c->set_is_fusion_computation(fusion);
  return c;
}

HloInstructionProto* AddInstruction(HloComputationProto* c, int64_t id, const std::string& name,
                                    const std::string& opcode, const std::vector<int64_t>& operands,
                                    const std::string& op_name, const std::string& source_file,
                                    int source_line) {
  HloInstructionProto* ins = c->add_instructions();
  ins->set_id(id);
  ins->set_name(name);
  ins->set_opcode(opcode);
  ins->mutable_shape()->set_element_type(11);  // F32
  ins->mutable_shape()->add_dimensions(16);
  ins->mutable_shape()->mutable_layout()->add_minor_to_major(0);
  for (int64_t op : operands) ins->add_operand_ids(op);
  if (!op_name.empty()) ins->mutable_metadata()->set_op_name(op_name);
  if (!source_file.empty()) {
    ins->mutable_metadata()->set_source_file(source_file);
    ins->mutable_metadata()->set_source_line(source_line);
  }
  c->set_root_id(id);
  return ins;
}

void SetSchedule(HloModuleProto* m, int64_t computation_id, const std::vector<int64_t>& ids) {
  auto& seq = (*m->mutable_schedule()->mutable_sequences())[computation_id];
  seq.clear_instruction_ids();
  for (int64_t id : ids) seq.add_instruction_ids(id);
}

std::string SerializeHloProto(const HloModuleProto& m) {
  tracehound::hlo::HloProto p;
  *p.mutable_hlo_module() = m;
  return p.SerializeAsString();
}

}  // namespace th::testing
