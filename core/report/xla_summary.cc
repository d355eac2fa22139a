#include "core/report/xla_summary.h"

#include <algorithm>
#include <map>
#include <set>

namespace th {
namespace {

template <typename Row>
void SortByTime(std::vector<Row>* rows) {
  std::sort(rows->begin(), rows->end(), [](const Row& a, const Row& b) {
    if (a.gpu_ns != b.gpu_ns) return a.gpu_ns > b.gpu_ns;
    if constexpr (requires { a.key; }) {
      return a.key < b.key;
    } else {
      return a.name < b.name;
    }
  });
}

struct Accumulator {
  int64_t events = 0, kernels = 0, gpu_ns = 0;
  std::set<uint32_t> instructions;
};

std::vector<XlaAttributedRow> Rows(const std::map<std::string, Accumulator>& acc) {
  std::vector<XlaAttributedRow> out;
  for (const auto& [key, a] : acc) {
    out.push_back(
        {key, a.events, a.kernels, a.gpu_ns, static_cast<int64_t>(a.instructions.size())});
  }
  SortByTime(&out);
  return out;
}

}  // namespace

XlaSummary SummarizeXla(const Trace& trace) {
  XlaSummary s;
  const XlaData& xla = trace.xla;
  if (!xla.attributed || !xla.index) return s;
  s.present = true;
  const EventGraph& g = trace.graph;
  const hlo::HloIndex& index = *xla.index;
  std::vector<XlaModuleRow> modules(xla.modules.size());
  for (size_t m = 0; m < xla.modules.size(); ++m) {
    modules[m].name = xla.modules[m].name;
    modules[m].id = xla.modules[m].id;
    modules[m].origin = xla.modules[m].origin;
    modules[m].instructions = static_cast<int64_t>(xla.modules[m].InstructionCount());
  }
  std::map<std::string, Accumulator> lines, ops;
  for (size_t r = 0; r < g.gpu_args.size(); ++r) {
    const int64_t dur = g.events.dur[g.gpu_args.event[r]];
    const int64_t kernel = g.events.kind[g.gpu_args.event[r]] == EventKind::kKernel ? 1 : 0;
    auto cls = static_cast<size_t>(xla.kernel_match[r]);
    ++s.by_class[cls].events;
    s.by_class[cls].kernels += kernel;
    s.by_class[cls].gpu_ns += dur;
    ++s.gpu_events;
    s.gpu_ns += dur;
    const uint32_t f = xla.kernel_instruction[r];
    if (f == hlo::kNoInstruction) continue;
    XlaModuleRow& mod = modules[index.ref(f).module];
    ++mod.events;
    mod.kernels += kernel;
    mod.gpu_ns += dur;
    // The profiler's own source label (TPU) wins over the compiler's.
    std::string line;
    uint32_t label = g.xla_labels.Find(g.gpu_args.event[r]);
    if (label != kNoRow && g.xla_labels.source[label] != kEmptyString)
      line = std::string(g.strings.Get(g.xla_labels.source[label]));
    if (line.empty()) line = index.SourceLine(f);
    if (line.empty()) {
      s.unattributed_line_ns += dur;
    } else {
      Accumulator& a = lines[line];
      ++a.events;
      a.kernels += kernel;
      a.gpu_ns += dur;
      a.instructions.insert(f);
    }
    const std::string& op = index.OpName(f);
    if (!op.empty()) {
      Accumulator& a = ops[op];
      ++a.events;
      a.kernels += kernel;
      a.gpu_ns += dur;
      a.instructions.insert(f);
    }
  }
  SortByTime(&modules);
  s.modules = std::move(modules);
  s.lines = Rows(lines);
  s.ops = Rows(ops);
  return s;
}

}  // namespace th
