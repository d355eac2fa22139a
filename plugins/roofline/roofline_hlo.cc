#include "roofline_hlo.h"

#include <algorithm>
#include <climits>
#include <unordered_map>

namespace th::roofline {
namespace {

// The catalog's view of instruction i.
HloOp OpOf(const th::sdk::Trace& t, uint32_t i) {
  HloOp op;
  op.opcode = t.hlo_opcode(i);
  op.shape = t.hlo_shape(i);
  op.custom_call_target = t.hlo_custom_call_target(i);
  op.dot_dims = t.hlo_dot_dims(i);
  op.window = t.hlo_window(i);
  op.dim_labels = t.hlo_dim_labels(i);
  op.feature_group_count = t.hlo_feature_group_count(i);
  op.batch_group_count = t.hlo_batch_group_count(i);
  op.custom_call_config = t.hlo_custom_call_config(i);
  for (uint32_t o : t.hlo_operands(i)) op.operand_shapes.push_back(t.hlo_shape(o));
  return op;
}

// FLOPs of one application of a reduce's reducer: its element-wise ops (1
// when its computation is shared and listed under another caller).
int64_t ReducerFlops(const th::sdk::hlo::Graph& g, uint32_t i) {
  int64_t n = 0;
  for (uint32_t b : g.body(i)) {
    const std::string_view code = g.trace().hlo_opcode(b);
    if (IsElementwise(code) && !IsTranscendental(code)) ++n;
  }
  return g.body(i).empty() ? 1 : n;
}

HloCost Cost(const th::sdk::hlo::Graph& g, uint32_t i, int depth) {
  const th::sdk::Trace& t = g.trace();
  HloOp op = OpOf(t, i);
  if (op.opcode != "fusion") {
    if (op.opcode == "reduce" || op.opcode == "reduce-window")
      op.reducer_flops = ReducerFlops(g, i);
    return InstructionCost(op);
  }
  if (depth > 64) {
    HloCost c;
    c.why = "fusions nested too deep";
    return c;
  }
  std::vector<HloCost> body;
  for (uint32_t b : g.body(i)) body.push_back(Cost(g, b, depth + 1));
  return FusionCost(op, body);
}

}  // namespace

std::vector<HloOccurrence> HloOccurrences(const th::sdk::Trace& t, std::vector<bool>* claimed) {
  std::vector<HloOccurrence> out;
  if (!t.attributed()) return out;
  std::vector<uint32_t> cost_row;  // by event: its xla_op_costs row, kNoRow
  if (t.op_costs_count() > 0) {
    cost_row.assign(t.size(), th::sdk::kNoRow);
    for (uint64_t r = 0; r < t.op_costs_count(); ++r)
      if (t.op_cost_event(r) < t.size()) cost_row[t.op_cost_event(r)] = static_cast<uint32_t>(r);
  }
  std::unordered_map<uint64_t, size_t> slot;  // (instruction, device) -> out index
  std::vector<std::unordered_map<uint32_t, int64_t>> per_name;
  for (uint64_t r = 0; r < t.gpu_rows(); ++r) {
    const uint32_t i = t.gpu_hlo_instruction(r);
    const uint32_t e = t.gpu_event(r);
    if (i == th::sdk::kNoRow || i >= t.hlo_instruction_count() || !t.is_gpu_activity(e)) continue;
    const uint64_t key = (uint64_t{i} << 32) | static_cast<uint32_t>(t.gpu_device(r));
    auto [it, fresh] = slot.try_emplace(key, out.size());
    if (fresh) {
      out.push_back({i, {}, 0, t.gpu_device(r), t.ts(e)});
      per_name.emplace_back();
    }
    HloOccurrence& o = out[it->second];
    o.intervals.push_back({t.ts(e), t.end(e)});
    o.first_ts = std::min(o.first_ts, t.ts(e));
    o.executions = std::max(o.executions, ++per_name[it->second][t.name_id(e)]);
    (*claimed)[e] = true;
    ++o.events;
    const uint32_t c = cost_row.empty() ? th::sdk::kNoRow : cost_row[e];
    if (c != th::sdk::kNoRow && t.op_cost_flops(c) >= 0 && t.op_cost_bytes_accessed(c) >= 0) {
      ++o.runtime_events;
      if (__builtin_add_overflow(o.runtime_flops, t.op_cost_flops(c), &o.runtime_flops))
        o.runtime_flops = INT64_MAX;
      if (__builtin_add_overflow(o.runtime_bytes, t.op_cost_bytes_accessed(c), &o.runtime_bytes))
        o.runtime_bytes = INT64_MAX;
    }
  }
  std::sort(out.begin(), out.end(), [](const HloOccurrence& a, const HloOccurrence& b) {
    return std::pair(a.instruction, a.device) < std::pair(b.instruction, b.device);
  });
  return out;
}

HloCost CostOfInstruction(const th::sdk::hlo::Graph& g, uint32_t i) { return Cost(g, i, 0); }

bool NotARooflineOp(const HloCost& c) {
  const std::string_view why = c.why;
  return !c.modelled && (why.starts_with("collective:") || why.starts_with("asynchronous:"));
}

std::pair<std::string, std::string> DtypeAndUnit(const th::sdk::Trace& t, uint32_t i) {
  const std::string_view shape = t.hlo_shape(i), code = t.hlo_opcode(i);
  const size_t bracket = shape.find('[');
  std::string dtype;
  if (!shape.starts_with("(") && bracket != std::string_view::npos)
    dtype = PeakDtype(shape.substr(0, bracket));
  return {dtype, code == "dot" || code == "convolution" ? "matrix" : "vector"};
}

std::string HloOpName(const th::sdk::Trace& t, uint32_t i) {
  const uint32_t m = t.hlo_module(i);
  return std::string(t.hlo_module_name(m)) + "(" + std::to_string(t.hlo_module_id(m)) + ")/" +
         std::string(t.hlo_name(i));
}

std::string OperandShapes(const th::sdk::Trace& t, uint32_t i) {
  std::string out;
  for (uint32_t o : t.hlo_operands(i)) {
    if (!out.empty()) out += ", ";
    out += t.hlo_shape(o);
  }
  return out;
}

}  // namespace th::roofline
