// The HLO detectors on one module of 100k instructions (issue 7 target: each
// under 1 s). The module is written with libprotobuf (tests/support), embedded
// in an XSpace capture, imported once; each detector then runs on it.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/hlo_fixture.h"
#include "tests/support/xspace_fixture.h"

namespace {

using th::testing::AddComputation;
using th::testing::AddInstruction;
using tracehound::hlo::HloInstructionProto;

void SetShape(HloInstructionProto* ins, int64_t type, std::vector<int64_t> dims,
              std::vector<int64_t> layout) {
  auto* s = ins->mutable_shape();
  s->Clear();
  s->set_element_type(type);
  for (int64_t d : dims) s->add_dimensions(d);
  for (int64_t m : layout) s->mutable_layout()->add_minor_to_major(m);
}

// 10,000 groups of 10 instructions: dot -> layout-changing copy -> large
// standalone transpose -> the next group's dot; bf16 -> f32 convert -> x*x ->
// reduce (own reducer: 3 instructions) -> convert back. Every group is a
// finding of each detector.
tracehound::hlo::HloModuleProto BigModule(int groups) {
  tracehound::hlo::HloModuleProto m;
  m.set_name("jit_big");
  m.set_id(1);
  auto* e = AddComputation(&m, 1, "main");
  m.set_entry_computation_id(1);
  SetShape(AddInstruction(e, 1, "p0", "parameter"), 11, {256, 256}, {1, 0});
  SetShape(AddInstruction(e, 2, "pb", "parameter"), 16, {1024}, {0});
  e->mutable_instructions(1)->set_parameter_number(1);
  SetShape(AddInstruction(e, 3, "zero", "constant"), 11, {}, {});
  int64_t prev = 1, id = 10;
  for (int g = 0; g < groups; ++g) {
    const std::string k = std::to_string(g);
    int64_t reducer = 1000000 + g;
    auto* r = AddComputation(&m, reducer, "sum." + k);
    SetShape(AddInstruction(r, id++, "a." + k, "parameter"), 11, {}, {});
    SetShape(AddInstruction(r, id++, "b." + k, "parameter"), 11, {}, {});
    r->mutable_instructions(1)->set_parameter_number(1);
    SetShape(AddInstruction(r, id, "add." + k, "add", {id - 2, id - 1}), 11, {}, {});
    ++id;
    const int64_t dot = id++, copy = id++, transpose = id++, cvt = id++, mul = id++, red = id++,
                  down = id++;
    SetShape(AddInstruction(e, dot, "dot." + k, "dot", {prev, 1}), 11, {256, 256}, {1, 0});
    // The previous group's transpose feeds this dot (copy and transpose sandwiched).
    SetShape(AddInstruction(e, copy, "copy." + k, "copy", {dot}), 11, {256, 256}, {0, 1});
    SetShape(AddInstruction(e, transpose, "transpose." + k, "transpose", {copy}), 11, {2048, 2048},
             {0, 1});
    SetShape(AddInstruction(e, cvt, "convert." + k, "convert", {2}), 11, {1024}, {0});
    SetShape(AddInstruction(e, mul, "multiply." + k, "multiply", {cvt, cvt}), 11, {1024}, {0});
    auto* reduce = AddInstruction(e, red, "reduce." + k, "reduce", {mul, 3});
    SetShape(reduce, 11, {}, {});
    reduce->add_called_computation_ids(reducer);
    SetShape(AddInstruction(e, down, "down." + k, "convert", {red}), 16, {}, {});
    prev = transpose;
  }
  return m;
}

struct Loaded {
  std::unique_ptr<th::TraceSet> set;
  size_t instructions = 0;
};

const Loaded& Capture() {
  static const Loaded loaded = [] {
    Loaded l;
    std::string dir = std::filesystem::temp_directory_path() / "th_hlo_bench";
    std::filesystem::create_directories(dir);
    th::testing::XSpaceBuilder b;
    b.EmbedHlo(BigModule(10000));
    b.AddPlane(0, "/device:GPU:0");
    b.WriteTo(dir + "/big.xplane.pb");
    auto set = th::LoadTraceSet({dir + "/big.xplane.pb"}, th::LoadOptions{});
    if (!set.ok()) std::abort();
    l.instructions = set->traces[0]->xla.index->size();
    l.set = std::make_unique<th::TraceSet>(std::move(*set));
    return l;
  }();
  return loaded;
}

void RunDetector(benchmark::State& state, const char* library) {
  const Loaded& c = Capture();
  auto plugin = th::LoadPluginLibrary(std::string(TRACEHOUND_PLUGIN_DIR) + "/" + library);
  if (!plugin.ok()) {
    state.SkipWithError(plugin.status().message().c_str());
    return;
  }
  size_t findings = 0;
  for (auto _ : state) {
    th::PluginResults results;
    th::Status s = th::RunPlugin(**plugin, *c.set, {}, &results);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
    findings = results.findings.size();
  }
  state.counters["findings"] = static_cast<double>(findings);
  state.counters["instructions"] = static_cast<double>(c.instructions);
  state.counters["instr/s"] = benchmark::Counter(static_cast<double>(c.instructions),
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

void BM_LayoutMismatchCopies(benchmark::State& s) {
  RunDetector(s, "th_layout_mismatch_copies.so");
}
void BM_UnfusedReshapes(benchmark::State& s) { RunDetector(s, "th_unfused_reshapes.so"); }
void BM_ConvertReduce(benchmark::State& s) { RunDetector(s, "th_convert_reduce.so"); }
BENCHMARK(BM_LayoutMismatchCopies)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_UnfusedReshapes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ConvertReduce)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
