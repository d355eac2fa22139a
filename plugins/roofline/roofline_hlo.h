// The roofline's HLO path (XProf captures): the GPU activity the importer
// attributed to each HLO instruction (table gpu_hlo), and the per-execution
// cost of an instruction from the catalog (hlo_models.h), fusion bodies
// summed.
#pragma once

#include <tracehound/hlo.h>
#include <tracehound/sdk.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hlo_models.h"

namespace th::roofline {

// One HLO instruction's activity on one device of a trace (an SPMD program
// runs it on every device: each device's executions and busy time count
// apart, so T sums over devices as F does).
struct HloOccurrence {
  uint32_t instruction = 0;
  std::vector<std::pair<int64_t, int64_t>> intervals;  // its activity, [ts, end)
  // Executions: the most activities of one kernel name (an instruction
  // launching two kernels per execution counts once per pair).
  int64_t executions = 0;
  int32_t device = -1;  // gpu_args device
  int64_t first_ts = 0;
  // The runtime's costs (table xla_op_costs, TPU) summed over the activity
  // events that carry both `flops` and `bytes_accessed`, and how many do.
  int64_t events = 0, runtime_events = 0, runtime_flops = 0, runtime_bytes = 0;
  // Every activity event carries the runtime's costs.
  bool runtime_costed() const { return events > 0 && runtime_events == events; }
};

// Per attributed instruction and device, its activity, in (instruction,
// device) order; sets
// `claimed[event]` for every activity event it covers. Empty when the trace
// has no gpu_hlo rows.
std::vector<HloOccurrence> HloOccurrences(const th::sdk::Trace& t, std::vector<bool>* claimed);

// Whether the HLO model leaves instruction cost `c` out of the roofline by
// its kind (collectives, asynchronous starts and waits): their time is not
// the op's work, whatever F and B are.
bool NotARooflineOp(const HloCost& c);

// The peak table's dtype of instruction i's output ("" for a tuple) and its
// unit (matrix for dot and convolution, else vector): for an instruction the
// HLO model does not cost.
std::pair<std::string, std::string> DtypeAndUnit(const th::sdk::Trace& t, uint32_t i);

// One execution of instruction i: InstructionCost, or FusionCost over its
// fused instructions (nested fusions recursively).
HloCost CostOfInstruction(const th::sdk::hlo::Graph& g, uint32_t i);

// "module(program id)/instruction", e.g. "jit_dot(21)/custom-call.1".
std::string HloOpName(const th::sdk::Trace& t, uint32_t i);

// The operand shapes as HLO text, ", "-joined.
std::string OperandShapes(const th::sdk::Trace& t, uint32_t i);

}  // namespace th::roofline
