// Small HLO modules for tests, written with libprotobuf from the project's
// own core/import/hlo/hlo.proto, serialized as XProf stores them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hlo.pb.h"

namespace th::testing {

using tracehound::hlo::HloComputationProto;
using tracehound::hlo::HloInstructionProto;
using tracehound::hlo::HloModuleProto;

// Adds a computation with this id to the module.
HloComputationProto* AddComputation(HloModuleProto* m, int64_t id, const std::string& name,
                                    bool fusion = false);

// Adds an instruction (f32[16] shape, layout {0}) with op_name and source
// line metadata when given.
HloInstructionProto* AddInstruction(HloComputationProto* c, int64_t id, const std::string& name,
                                    const std::string& opcode,
                                    const std::vector<int64_t>& operands = {},
                                    const std::string& op_name = "",
                                    const std::string& source_file = "", int source_line = 0);

// Sets the schedule of computation `c` to `ids`.
void SetSchedule(HloModuleProto* m, int64_t computation_id, const std::vector<int64_t>& ids);

// The module wrapped in an xla.HloProto, serialized.
std::string SerializeHloProto(const HloModuleProto& m);

}  // namespace th::testing
