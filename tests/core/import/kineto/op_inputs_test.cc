// The op_inputs table (Kineto record_shapes): one row per event with
// "Input Dims" and/or "Input type", their JSON text without whitespace.
#include <gtest/gtest.h>

#include <sstream>

#include "core/graph/core_tables.h"
#include "core/import/common/byte_source.h"
#include "core/import/kineto/kineto_importer.h"
#include "core/synth/kineto_generator.h"
#include "tests/support/test_files.h"

namespace th::kineto {
namespace {

StatusOr<std::unique_ptr<Trace>> Import(const std::string& json, size_t chunk_bytes) {
  auto src = MakeMemorySource("fixture.json", json);
  ImportOptions opt;
  opt.chunk_bytes = chunk_bytes;
  return ImportKinetoJson(*src, opt);
}

// Occurrences of `needle` in `text` (the test's own count of the args).
int64_t CountOf(std::string_view text, std::string_view needle) {
  int64_t n = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + needle.size()))
    ++n;
  return n;
}

// The rows as "event|dims|types" lines.
std::vector<std::string> Rows(const EventGraph& g) {
  std::vector<std::string> out;
  const OpInputsTable& o = g.op_inputs;
  for (size_t r = 0; r < o.size(); ++r) {
    out.push_back(std::to_string(o.event[r]) + "|" + std::string(g.strings.Get(o.input_dims[r])) +
                  "|" + std::string(g.strings.Get(o.input_types[r])));
  }
  return out;
}

constexpr const char* kTrace = R"JSON({
  "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
   "ts": 100.000, "dur": 100.000},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 101.000, "dur": 5.000,
   "args": {"External id": 1, "Input Dims": [[4096, 4096],
      [4096, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 110.000, "dur": 5.000,
   "args": {"Input Dims": [ [2, 3], [], [] ] }},
  {"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": 1, "tid": 1, "ts": 120.000, "dur": 5.000,
   "args": {"Input type": ["a b", "x\"y ", ""]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 130.000,
   "dur": 1.000, "args": {"External id": 4}},
  {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "s": "t",
   "ts": 131.000, "args": {"Device Type": 1, "Bytes": 16}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 140.000, "dur": 9.000,
   "args": {"device": 0, "stream": 7, "Input Dims": [[1]], "Input type": ["float"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::cat", "pid": 1, "tid": 1, "ts": 150.000, "dur": 5.000,
   "args": {"Input Dims": [[[1, 559, 32], [1, 559, 32]], []], "Input type": ["TensorList", "Scalar"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 160.000, "dur": 5.000,
   "args": {"Input Dims": [[4096,4096],[4096,4096]], "Input type": ["c10::BFloat16","c10::BFloat16"]}}
  ]
})JSON";

TEST(OpInputs, OneRowPerEventWithInputArgsWhitespaceRemoved) {
  for (size_t chunk : {size_t{64}, size_t{1} << 20}) {
    SCOPED_TRACE(chunk);
    auto t = Import(kTrace, chunk);
    ASSERT_TRUE(t.ok()) << t.status().message();
    const EventGraph& g = (*t)->graph;
    EXPECT_EQ(Rows(g), (std::vector<std::string>{
                           R"(1|[[4096,4096],[4096,4096]]|["c10::BFloat16","c10::BFloat16"])",
                           R"(2|[[2,3],[],[]]|)",
                           R"(3||["a b","x\"y ",""])",
                           R"(6|[[1]]|["float"])",
                           R"(7|[[[1,559,32],[1,559,32]],[]]|["TensorList","Scalar"])",
                           R"(8|[[4096,4096],[4096,4096]]|["c10::BFloat16","c10::BFloat16"])",
                       }));
    // Equal text is one string.
    EXPECT_EQ(g.op_inputs.input_dims[0], g.op_inputs.input_dims[5]);
    EXPECT_EQ(g.op_inputs.input_types[0], g.op_inputs.input_types[5]);
    // args_row: op_inputs for CPU ops; the kernel keeps its gpu_args row and
    // the allocator event its memory_args row.
    const EventColumns& e = g.events;
    EXPECT_EQ(e.args_row[0], kNoRow);
    EXPECT_EQ(e.args_row[1], 0u);
    EXPECT_EQ(e.args_row[2], 1u);
    EXPECT_EQ(e.args_row[3], 2u);
    EXPECT_EQ(e.args_row[4], kNoRow);
    EXPECT_EQ(e.args_row[5], 0u);
    EXPECT_EQ(g.memory_args.event[0], 5u);
    EXPECT_EQ(e.args_row[6], 0u);
    EXPECT_EQ(g.gpu_args.event[0], 6u);
    EXPECT_EQ(e.args_row[7], 4u);
    EXPECT_EQ(e.args_row[8], 5u);
  }
}

TEST(OpInputs, CatalogTableHoldsTheRows) {
  auto t = Import(kTrace, 1 << 20);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const EventGraph& g = (*t)->graph;
  TraceTables tables;
  AddGraphTables(**t, &tables);
  const CatalogTable* c = tables.Find("op_inputs");
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->rows, 6u);
  ASSERT_EQ(c->columns.size(), 4u);
  const auto* event = static_cast<const uint32_t*>(c->columns[0]);
  const auto* dims = static_cast<const uint32_t*>(c->columns[1]);
  const auto* types = static_cast<const uint32_t*>(c->columns[2]);
  EXPECT_EQ(event[4], 7u);
  EXPECT_EQ(g.strings.Get(dims[4]), "[[[1,559,32],[1,559,32]],[]]");
  EXPECT_EQ(g.strings.Get(types[1]), "");
}

// A file holding two ranks (merged_ranks.h): each rank's trace keeps its
// ops' rows, args_row pointing at them.
TEST(OpInputs, MergedRanksKeepTheirRows) {
  const std::string json = R"JSON({"traceEvents": [
  {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "RANK 0 - CPU"}},
  {"ph": "M", "name": "process_name", "pid": 2, "tid": 0, "args": {"name": "RANK 1 - CPU"}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5,
   "args": {"Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 2, "tid": 1, "ts": 2, "dur": 1},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 2, "tid": 1, "ts": 3, "dur": 5,
   "args": {"Input Dims": [[7], [7], []], "Input type": ["c10::Half", "c10::Half", "Scalar"],
    "Concrete Inputs": ["", "", "2"]}}
  ]})JSON";
  auto src = MakeMemorySource("merged.json", json);
  auto ranks = ImportKinetoJsonRanks(*src, ImportOptions{});
  ASSERT_TRUE(ranks.ok()) << ranks.status().message();
  ASSERT_EQ(ranks->size(), 2u);
  std::vector<std::string> rows;
  for (const auto& t : *ranks) {
    const EventGraph& g = t->graph;
    for (const std::string& r : Rows(g)) rows.push_back(r);
    for (size_t r = 0; r < g.op_inputs.size(); ++r)
      rows.push_back(std::string(g.strings.Get(g.op_inputs.concrete_inputs[r])));
    for (size_t r = 0; r < g.op_inputs.size(); ++r)
      EXPECT_EQ(g.events.args_row[g.op_inputs.event[r]], r);
  }
  EXPECT_EQ(rows, (std::vector<std::string>{R"(1|[[2,3],[3,4]]|["float","float"])", "",
                                            R"(2|[[7],[7],[]]|["c10::Half","c10::Half","Scalar"])",
                                            R"(["","","2"])"}));
}

// "Concrete Inputs" (scalar argument values as text) is kept as compact JSON
// text like the other two; an event with only it gets a row.
TEST(OpInputs, ConcreteInputsKeptAsCompactText) {
  const std::string json = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 1, "dur": 9,
   "args": {"Input Dims": [[1, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], []],
    "Input type": ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
    "Concrete Inputs": ["", "",  "", "[2, 2]", "[1, 1]", "[1, 1]", "1"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
   "args": {"Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::full", "pid": 1, "tid": 1, "ts": 30, "dur": 5,
   "args": {"Concrete Inputs": [ "[2]" , "0.5", "" ]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 40, "dur": 9,
   "args": {"Input Dims": [[1, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], []],
    "Input type": ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
    "Concrete Inputs": ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "1"]}}
  ]})JSON";
  for (size_t chunk : {size_t{64}, size_t{1} << 20}) {
    SCOPED_TRACE(chunk);
    auto t = Import(json, chunk);
    ASSERT_TRUE(t.ok()) << t.status().message();
    const EventGraph& g = (*t)->graph;
    std::vector<std::string> rows;
    for (size_t r = 0; r < g.op_inputs.size(); ++r)
      rows.push_back(std::to_string(g.op_inputs.event[r]) + "|" +
                     std::string(g.strings.Get(g.op_inputs.concrete_inputs[r])));
    EXPECT_EQ(rows, (std::vector<std::string>{
                        R"(0|["","","","[2, 2]","[1, 1]","[1, 1]","1"])",
                        R"(1|)",
                        R"(2|["[2]","0.5",""])",
                        R"(3|["","","","[2, 2]","[1, 1]","[1, 1]","1"])",
                    }));
    // The same text is one string id.
    EXPECT_EQ(g.op_inputs.concrete_inputs[0], g.op_inputs.concrete_inputs[3]);
    TraceTables tables;
    AddGraphTables(**t, &tables);
    const CatalogTable* c = tables.Find("op_inputs");
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->columns.size(), 4u);
    const auto* concrete = static_cast<const uint32_t*>(c->columns[3]);
    EXPECT_EQ(g.strings.Get(concrete[2]), R"(["[2]","0.5",""])");
  }
}

TEST(OpInputs, MalformedInputArgsAreAnError) {
  // Each after a valid value that shares its start (text seen before is not
  // checked again: the malformed one must be).
  for (const char* bad :
       {R"([[1, 2], [3 4]])", R"([[1, 2],, []])", R"(["a", "b\q"])", R"([[1, 2], [3, 4])",
        R"([[1, 2], [3, 4]]])", R"([tru])", R"([[1, 2], [3, 4x]])", R"([[1, 2], [3, 4]] x)"}) {
    for (const char* key : {"Input Dims", "Input type", "Concrete Inputs"}) {
      SCOPED_TRACE(std::string(key) + ": " + bad);
      auto event = [&](const std::string& value) {
        return std::string(R"({"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1,)") +
               R"( "ts": 1, "dur": 1, "args": {")" + key + "\": " + value + "}}";
      };
      const std::string json = "{\"traceEvents\": [" + event("[[1, 2], [3, 4]]") + ",\n" +
                               event(R"(["a", "b"])") + ",\n" + event(bad) + "]}";
      auto t = Import(json, 1 << 20);
      ASSERT_FALSE(t.ok());
      // Unbalanced brackets are found by the event boundary scan, the rest
      // by the value check: an error naming the file and the offset either way.
      const std::string& m = t.status().message();
      EXPECT_EQ(m.rfind("fixture.json: ", 0), 0u) << m;
      EXPECT_NE(m.find(" text offset "), std::string::npos) << m;
    }
  }
}

TEST(OpInputs, GeneratedTraceHasARowPerOpWithShapes) {
  synth::Scenario s;
  s.ranks = 1;
  s.steps = 2;
  std::ostringstream out;
  ASSERT_TRUE(synth::WriteKinetoTrace(s, 0, out, nullptr).ok());
  const std::string json = out.str();
  const int64_t with_dims = CountOf(json, "\"Input Dims\"");
  ASSERT_GT(with_dims, 0);
  EXPECT_EQ(CountOf(json, "\"Input type\""), with_dims);  // the generator writes both
  for (size_t chunk : {size_t{1} << 16, size_t{1} << 22}) {
    auto t = Import(json, chunk);
    ASSERT_TRUE(t.ok()) << t.status().message();
    const EventGraph& g = (*t)->graph;
    ASSERT_EQ(static_cast<int64_t>(g.op_inputs.size()), with_dims);
    int64_t addmm_qkv = 0;
    for (size_t r = 0; r < g.op_inputs.size(); ++r) {
      const EventId ev = g.op_inputs.event[r];
      EXPECT_EQ(g.events.args_row[ev], r);
      if (g.strings.Get(g.events.name[ev]) != "aten::addmm") continue;
      if (g.strings.Get(g.op_inputs.input_dims[r]) != "[[6144],[1024,2048],[2048,6144],[],[]]")
        continue;
      ++addmm_qkv;
      EXPECT_EQ(g.strings.Get(g.op_inputs.input_types[r]),
                R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])");
    }
    EXPECT_GT(addmm_qkv, 0);
  }
}

// A real record_shapes trace: the rows equal the file's "Input Dims" args
// (counted here over the decompressed text; `zcat FILE | grep -o '"Input
// Dims"' | wc -l` gave the same figures when this test was written), and
// known ops' text byte for byte.
struct RealCase {
  const char* path;   // under the shared data folder
  int64_t rows;       // zcat | grep -o '"Input Dims"' | wc -l
  EventId event;      // a known op's row (its index in traceEvents)
  int64_t ts_ns;      // its ts
  const char* name;   // its name
  const char* dims;   // its Input Dims, compact
  const char* types;  // its Input type, compact
};

TEST(OpInputs, RealRecordShapesTraces) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: real record_shapes traces skipped";
  const RealCase cases[] = {
      {"hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz", 108545, 342, 3605057477686547,
       "aten::mm", "[[1024,1],[1,128]]", R"(["float","float"])"},
      {"tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 4186, 54,
       1428625746997177, "aten::cat", "[[[1,559,32],[1,559,32]],[]]", R"(["TensorList","Scalar"])"},
      {"tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 4186, 89,
       1428625747586227, "aten::addmm", "[[1024],[8944,1024],[1024,1024],[],[]]",
       R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"])"},
  };
  for (const RealCase& c : cases) {
    SCOPED_TRACE(c.path);
    const std::string path = data + "/" + c.path;
    auto raw = OpenFileSource(path);
    ASSERT_TRUE(raw.ok()) << raw.status().message();
    auto decoded = OpenDecoded(std::move(*raw));
    ASSERT_TRUE(decoded.ok()) << decoded.status().message();
    auto text = ReadAll(**decoded);
    ASSERT_TRUE(text.ok()) << text.status().message();
    EXPECT_EQ(CountOf(*text, "\"Input Dims\""), c.rows);

    auto t = Import(*text, 1 << 20);
    ASSERT_TRUE(t.ok()) << t.status().message();
    const EventGraph& g = (*t)->graph;
    ASSERT_EQ(static_cast<int64_t>(g.op_inputs.size()), c.rows);
    ASSERT_LT(c.event, g.events.size());
    EXPECT_EQ(g.strings.Get(g.events.name[c.event]), c.name);
    EXPECT_EQ(g.events.ts[c.event], c.ts_ns);
    const uint32_t r = g.events.args_row[c.event];
    ASSERT_LT(r, g.op_inputs.size());
    EXPECT_EQ(g.op_inputs.event[r], c.event);
    EXPECT_EQ(g.strings.Get(g.op_inputs.input_dims[r]), c.dims);
    EXPECT_EQ(g.strings.Get(g.op_inputs.input_types[r]), c.types);
  }
}

}  // namespace
}  // namespace th::kineto
