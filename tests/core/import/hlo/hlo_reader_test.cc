#include "core/import/hlo/hlo_reader.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/support/test_files.h"

namespace th::hlo {
namespace {

namespace fs = std::filesystem;

constexpr char kSuffix[] = ".oracle.json";

// ---- hand-built wire bytes ----
void Varint(std::string* s, uint64_t v) {
  while (v >= 0x80) {
    s->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  s->push_back(static_cast<char>(v));
}
void Tag(std::string* s, uint32_t field, uint32_t wt) { Varint(s, (field << 3) | wt); }
void VarintField(std::string* s, uint32_t field, uint64_t v) {
  Tag(s, field, 0);
  Varint(s, v);
}
void LenField(std::string* s, uint32_t field, std::string_view payload) {
  Tag(s, field, 2);
  Varint(s, payload.size());
  s->append(payload);
}
std::string Packed(const std::vector<uint64_t>& vs) {
  std::string s;
  for (uint64_t v : vs) Varint(&s, v);
  return s;
}

std::string ArrayShape(uint64_t type, const std::vector<uint64_t>& dims,
                       const std::vector<uint64_t>& m2m) {
  std::string layout, shape;
  LenField(&layout, 1, Packed(m2m));
  VarintField(&shape, 2, type);
  LenField(&shape, 3, Packed(dims));
  LenField(&shape, 5, layout);
  return shape;
}

std::string Instruction(std::string_view name, std::string_view opcode, uint64_t id,
                        const std::vector<uint64_t>& operands) {
  std::string ins;
  LenField(&ins, 1, name);
  LenField(&ins, 2, opcode);
  LenField(&ins, 3, ArrayShape(11, {2, 3}, {1, 0}));
  VarintField(&ins, 35, id);
  if (!operands.empty()) LenField(&ins, 36, Packed(operands));
  return ins;
}

// A module: computation "fused" (id 7, fusion) with one parameter, and entry
// "main" (id 9) with a parameter, a fusion calling 7 with metadata, and a copy.
std::string SampleModule() {
  std::string fused;
  LenField(&fused, 1, "fused");
  LenField(&fused, 2, Instruction("p0", "parameter", 1, {}));
  VarintField(&fused, 5, 7);
  VarintField(&fused, 7, 1);

  std::string md;
  LenField(&md, 1, "add");
  LenField(&md, 2, "jit(f)/jit(main)/add");
  LenField(&md, 3, "/src/model.py");
  VarintField(&md, 4, 42);
  std::string fusion = Instruction("fusion.1", "fusion", 11, {10});
  LenField(&fusion, 7, md);
  LenField(&fusion, 11, "kLoop");
  LenField(&fusion, 38, Packed({7}));

  std::string copy;
  LenField(&copy, 1, "copy.2");
  LenField(&copy, 2, "copy");
  LenField(&copy, 3, ArrayShape(11, {2, 3}, {0, 1}));
  VarintField(&copy, 35, 12);
  VarintField(&copy, 36, 11);  // unpacked operand id

  std::string main;
  LenField(&main, 1, "main");
  LenField(&main, 2, Instruction("p0.main", "parameter", 10, {}));
  LenField(&main, 2, fusion);
  LenField(&main, 2, copy);
  VarintField(&main, 5, 9);
  VarintField(&main, 6, 12);

  std::string module;
  LenField(&module, 1, "jit_f");
  LenField(&module, 2, "main");
  LenField(&module, 3, fused);
  LenField(&module, 3, main);
  VarintField(&module, 5, 5);
  VarintField(&module, 6, 9);
  return module;
}

TEST(HloReaderTest, DecodesBareModule) {
  auto r = ReadHloProto(SampleModule(), "mem");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  const HloModule& m = r->front();
  EXPECT_EQ(m.container, "HloModuleProto");
  EXPECT_EQ(m.name, "jit_f");
  EXPECT_EQ(m.id, 5);
  EXPECT_EQ(m.entry_computation_name, "main");
  EXPECT_TRUE(m.has_entry_computation_id);
  EXPECT_EQ(m.entry_computation_id, 9);
  EXPECT_FALSE(m.has_buffer_assignment);
  ASSERT_EQ(m.computations.size(), 2u);
  EXPECT_EQ(m.InstructionCount(), 4u);
  EXPECT_TRUE(m.computations[0].is_fusion_computation);
  EXPECT_EQ(m.computations[0].id, 7);
  const HloComputation* entry = m.EntryComputation();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name, "main");
  EXPECT_EQ(entry->root_id, 12);
  ASSERT_EQ(entry->instructions.size(), 3u);
  const HloInstruction& fusion = entry->instructions[1];
  EXPECT_EQ(fusion.name, "fusion.1");
  EXPECT_EQ(fusion.opcode, "fusion");
  EXPECT_EQ(fusion.id, 11);
  EXPECT_EQ(fusion.fusion_kind, "kLoop");
  EXPECT_EQ(fusion.operand_ids, std::vector<int64_t>({10}));
  EXPECT_EQ(fusion.called_computation_ids, std::vector<int64_t>({7}));
  EXPECT_EQ(fusion.metadata.op_type, "add");
  EXPECT_EQ(fusion.metadata.op_name, "jit(f)/jit(main)/add");
  EXPECT_EQ(fusion.metadata.source_file, "/src/model.py");
  EXPECT_EQ(fusion.metadata.source_line, 42);
  ASSERT_TRUE(fusion.has_shape);
  EXPECT_EQ(fusion.shape.element_type, 11);
  EXPECT_EQ(fusion.shape.dimensions, std::vector<int64_t>({2, 3}));
  EXPECT_TRUE(fusion.shape.has_layout);
  EXPECT_EQ(fusion.shape.minor_to_major, std::vector<int64_t>({1, 0}));
  const HloInstruction& copy = entry->instructions[2];
  EXPECT_EQ(copy.operand_ids, std::vector<int64_t>({11}));
  EXPECT_EQ(copy.shape.minor_to_major, std::vector<int64_t>({0, 1}));
  EXPECT_FALSE(copy.lenient_decode_failed);
}

TEST(HloReaderTest, DecodesHloProtoWrapper) {
  std::string wrapper;
  LenField(&wrapper, 1, SampleModule());
  LenField(&wrapper, 3, "");
  auto r = ReadHloProto(wrapper, "mem");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(r->front().container, "HloProto");
  EXPECT_TRUE(r->front().has_buffer_assignment);
  EXPECT_EQ(r->front().name, "jit_f");
  EXPECT_EQ(r->front().InstructionCount(), 4u);
}

TEST(HloReaderTest, ModuleWithOnlyNameIsBare) {
  // Field 1 holding a plain name does not decode as a module with
  // computations or an entry name, so this is a bare HloModuleProto.
  std::string module;
  LenField(&module, 1, "jit_g");
  auto r = ReadHloProto(module, "mem");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->front().container, "HloModuleProto");
  EXPECT_EQ(r->front().name, "jit_g");
}

TEST(HloReaderTest, MalformedMetadataDoesNotFail) {
  std::string ins = Instruction("x", "add", 1, {});
  LenField(&ins, 7, std::string("\x08\xff", 2));  // truncated varint inside metadata
  std::string comp;
  LenField(&comp, 1, "main");
  LenField(&comp, 2, ins);
  std::string module;
  LenField(&module, 1, "m");
  LenField(&module, 3, comp);
  auto r = ReadHloProto(module, "mem");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->front().computations[0].instructions[0].lenient_decode_failed);
}

// Fields 15 (window), 16 (convolution dimension numbers), 30 (dot dimension
// numbers), 50 and 58 (group counts), packed and unpacked.
TEST(HloReaderTest, DecodesDotAndConvolutionDimensions) {
  std::string dot = Instruction("dot.1", "dot", 1, {});
  std::string dnums;
  LenField(&dnums, 1, Packed({2}));  // lhs_contracting, packed
  VarintField(&dnums, 2, 1);         // rhs_contracting, unpacked
  LenField(&dnums, 3, Packed({0}));
  LenField(&dnums, 4, Packed({0}));
  LenField(&dot, 30, dnums);

  std::string conv = Instruction("conv.2", "convolution", 2, {});
  std::string window;
  for (uint64_t pad : {1, 0}) {
    std::string dim;
    VarintField(&dim, 1, 3);
    VarintField(&dim, 2, 2);
    VarintField(&dim, 3, pad);
    VarintField(&dim, 4, pad);
    VarintField(&dim, 5, 1);
    VarintField(&dim, 6, 1);
    VarintField(&dim, 7, pad);  // reversal on the first dimension
    LenField(&window, 1, dim);
  }
  LenField(&conv, 15, window);
  std::string cd;
  VarintField(&cd, 7, 0);  // input batch
  VarintField(&cd, 8, 3);  // input feature
  LenField(&cd, 11, Packed({1, 2}));
  VarintField(&cd, 3, 2);  // kernel input feature
  VarintField(&cd, 4, 3);  // kernel output feature
  LenField(&cd, 6, Packed({0, 1}));
  VarintField(&cd, 9, 0);
  VarintField(&cd, 10, 3);
  LenField(&cd, 12, Packed({1, 2}));
  LenField(&conv, 16, cd);
  VarintField(&conv, 50, 4);
  VarintField(&conv, 58, 2);

  std::string comp;
  LenField(&comp, 1, "main");
  LenField(&comp, 2, dot);
  LenField(&comp, 2, conv);
  std::string module;
  LenField(&module, 1, "m");
  LenField(&module, 3, comp);
  auto r = ReadHloProto(module, "mem");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const HloInstruction& d = r->front().computations[0].instructions[0];
  ASSERT_TRUE(d.has_dot_dims);
  EXPECT_EQ(d.dot_dims.lhs_contracting, std::vector<int64_t>({2}));
  EXPECT_EQ(d.dot_dims.rhs_contracting, std::vector<int64_t>({1}));
  EXPECT_EQ(d.dot_dims.lhs_batch, std::vector<int64_t>({0}));
  EXPECT_EQ(d.dot_dims.rhs_batch, std::vector<int64_t>({0}));
  EXPECT_FALSE(d.has_conv_dims);
  EXPECT_TRUE(d.window.empty());
  EXPECT_EQ(d.feature_group_count, 1);
  const HloInstruction& c = r->front().computations[0].instructions[1];
  EXPECT_FALSE(c.has_dot_dims);
  ASSERT_EQ(c.window.size(), 2u);
  EXPECT_EQ(c.window[0].size, 3);
  EXPECT_EQ(c.window[0].stride, 2);
  EXPECT_EQ(c.window[0].padding_low, 1);
  EXPECT_EQ(c.window[0].padding_high, 1);
  EXPECT_TRUE(c.window[0].window_reversal);
  EXPECT_EQ(c.window[1].padding_low, 0);
  EXPECT_FALSE(c.window[1].window_reversal);
  ASSERT_TRUE(c.has_conv_dims);
  EXPECT_EQ(c.conv_dims.input_feature, 3);
  EXPECT_EQ(c.conv_dims.input_spatial, std::vector<int64_t>({1, 2}));
  EXPECT_EQ(c.conv_dims.kernel_input_feature, 2);
  EXPECT_EQ(c.conv_dims.kernel_output_feature, 3);
  EXPECT_EQ(c.conv_dims.kernel_spatial, std::vector<int64_t>({0, 1}));
  EXPECT_EQ(c.conv_dims.output_feature, 3);
  EXPECT_EQ(c.conv_dims.output_spatial, std::vector<int64_t>({1, 2}));
  EXPECT_EQ(c.feature_group_count, 4);
  EXPECT_EQ(c.batch_group_count, 2);
  EXPECT_FALSE(c.lenient_decode_failed);
}

TEST(HloReaderTest, MalformedDotDimensionsDoNotFail) {
  std::string ins = Instruction("dot.1", "dot", 1, {});
  LenField(&ins, 30, std::string("\x0a\x05\x01", 3));  // packed list longer than its message
  std::string comp;
  LenField(&comp, 1, "main");
  LenField(&comp, 2, ins);
  std::string module;
  LenField(&module, 1, "m");
  LenField(&module, 3, comp);
  auto r = ReadHloProto(module, "mem");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->front().computations[0].instructions[0].lenient_decode_failed);
}

TEST(HloReaderTest, InvalidUtf8NamesOffsetAndPath) {
  std::string comp;
  LenField(&comp, 1, "main");
  LenField(&comp, 2, Instruction("bad\xff", "add", 1, {}));
  std::string module;
  LenField(&module, 1, "m");
  LenField(&module, 3, comp);
  auto r = ReadHloProto(module, "mem");
  ASSERT_FALSE(r.ok());
  size_t bad = module.find("bad\xff") + 3;
  EXPECT_EQ(r.status().message(), "mem: invalid UTF-8 in string field at byte offset " +
                                      std::to_string(bad) +
                                      " (in HloModuleProto.computations[0].instructions[0])");
}

TEST(HloReaderTest, TruncatedHandBuiltNamesOffset) {
  std::string module = SampleModule();
  // Cut inside the first computation: its length runs past the end.
  size_t tag = module.find(std::string("\x1a", 1));  // field 3, wire type 2
  ASSERT_NE(tag, std::string::npos);
  std::string cut = module.substr(0, tag + 6);
  auto r = ReadHloProto(cut, "cut.pb");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cut.pb: length "), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find(" at byte offset " + std::to_string(tag + 1) +
                                      " (in HloModuleProto)"),
            std::string::npos)
      << r.status().message();
}

TEST(HloReaderTest, MatchesOracleOnEveryHloProto) {
  std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "shared data folder absent: no real HLO files to check";
  std::vector<std::string> files = testing::FilesWithOracle(".hlo_proto.pb", /*with_corrupt=*/true);
  ASSERT_FALSE(files.empty()) << "no expected/**/*.hlo_proto.pb.oracle.json under " << data;
  simdjson::dom::parser parser;
  size_t checked = 0;
  for (const std::string& rel : files) {
    SCOPED_TRACE(rel);
    std::string json_path = data + "/expected/" + rel + kSuffix;
    simdjson::dom::element o;
    ASSERT_EQ(parser.load(json_path).get(o), simdjson::SUCCESS) << json_path;
    auto r = ReadHloProtoFile(data + "/" + rel);
    std::string_view oracle_error;
    if (o["error"].get(oracle_error) == simdjson::SUCCESS) {
      ASSERT_FALSE(r.ok()) << "oracle says: " << oracle_error;
      EXPECT_NE(r.status().message().find(std::string(oracle_error)), std::string::npos)
          << r.status().message();
      ++checked;
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->size(), 1u);
    const HloModule& m = r->front();
    EXPECT_EQ(m.container, std::string_view(o["container"].get_string().value()));
    EXPECT_EQ(m.name, std::string_view(o["module_name"].get_string().value()));
    EXPECT_EQ(m.id, o["module_id"].get_int64().value());
    EXPECT_EQ(m.entry_computation_name,
              std::string_view(o["entry_computation_name"].get_string().value()));
    EXPECT_EQ(m.entry_computation_id, o["entry_computation_id"].get_int64().value());
    EXPECT_EQ(m.has_buffer_assignment, o["has_buffer_assignment"].get_bool().value());
    EXPECT_EQ(m.computations.size(), o["computations"].get_uint64().value());
    EXPECT_EQ(m.InstructionCount(), o["instructions"].get_uint64().value());

    size_t fusion_comps = 0;
    std::map<std::string, uint64_t> opcodes, fusion_kinds;
    for (const HloComputation& c : m.computations) {
      if (c.is_fusion_computation) ++fusion_comps;
      for (const HloInstruction& ins : c.instructions) {
        ++opcodes[ins.opcode];
        if (ins.opcode == "fusion") {
          ++fusion_kinds[ins.fusion_kind.empty() ? "<unset>" : ins.fusion_kind];
        }
      }
    }
    EXPECT_EQ(fusion_comps, o["fusion_computations"].get_uint64().value());
    std::map<std::string, uint64_t> want_opcodes, want_fusion_kinds;
    for (auto [k, v] : o["opcode_counts"].get_object()) {
      want_opcodes[std::string(k)] = v.get_uint64().value();
    }
    for (auto [k, v] : o["fusion_kind_counts"].get_object()) {
      want_fusion_kinds[std::string(k)] = v.get_uint64().value();
    }
    EXPECT_EQ(opcodes, want_opcodes);
    EXPECT_EQ(fusion_kinds, want_fusion_kinds);
    uint64_t entry_instructions;
    if (o["entry_instructions"].get(entry_instructions) == simdjson::SUCCESS) {
      const HloComputation* entry = m.EntryComputation();
      ASSERT_NE(entry, nullptr);
      EXPECT_EQ(entry->instructions.size(), entry_instructions);
    }
    ++checked;
  }
  EXPECT_EQ(checked, files.size());
}

TEST(HloReaderTest, TruncatedRealFileErrorsWithOffset) {
  std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "shared data folder absent: no real HLO files to truncate";
  std::vector<std::string> files = testing::FilesWithOracle(".hlo_proto.pb", /*with_corrupt=*/true);
  if (files.empty()) GTEST_SKIP() << "no .hlo_proto.pb with an oracle file under " << data;
  std::string bytes = th::testing::ReadFile(data + "/" + files.front());
  ASSERT_GT(bytes.size(), 16u);
  for (size_t keep : {bytes.size() - 1, bytes.size() / 2, size_t{3}}) {
    SCOPED_TRACE(keep);
    auto r = ReadHloProto(std::string_view(bytes).substr(0, keep), "trunc.hlo_proto.pb");
    ASSERT_FALSE(r.ok());
    const std::string& msg = r.status().message();
    EXPECT_EQ(msg.rfind("trunc.hlo_proto.pb: ", 0), 0u) << msg;
    size_t at = msg.find(" at byte offset ");
    ASSERT_NE(at, std::string::npos) << msg;
    uint64_t off = std::stoull(msg.substr(at + std::strlen(" at byte offset ")));
    EXPECT_LT(off, keep) << msg;
  }
}

TEST(HloReaderTest, MissingFileIsIoError) {
  auto r = ReadHloProtoFile("/nonexistent/dir/x.hlo_proto.pb");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), th::StatusCode::kIoError);
}

// Hardening issue, Part A item 4: a shape nesting tuple_shapes 50,000 deep
// overflowed the stack. It is an error naming the byte offset now.
TEST(HloReaderTest, DeeplyNestedTupleShapeIsAnErrorNotACrash) {
  // Written front to back (sizes first): nesting by copying would be quadratic.
  constexpr int kDepth = 50000;
  std::vector<uint64_t> size(kDepth + 1);
  size[0] = 2;  // element_type: 11
  auto varint_len = [](uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) v >>= 7, ++n;
    return n;
  };
  for (int k = 1; k <= kDepth; ++k) size[k] = 2 + 1 + varint_len(size[k - 1]) + size[k - 1];
  std::string shape;
  for (int k = kDepth; k >= 1; --k) {
    VarintField(&shape, 2, 13);  // TUPLE
    Tag(&shape, 4, 2);
    Varint(&shape, size[k - 1]);
  }
  VarintField(&shape, 2, 11);
  ASSERT_EQ(shape.size(), size[kDepth]);
  std::string ins;
  LenField(&ins, 1, "deep");
  LenField(&ins, 2, "tuple");
  LenField(&ins, 3, shape);
  VarintField(&ins, 35, 1);
  std::string comp;
  LenField(&comp, 1, "main");
  LenField(&comp, 2, ins);
  std::string module;
  LenField(&module, 1, "deep_module");
  LenField(&module, 2, "main");
  LenField(&module, 3, comp);
  auto r = ReadHloProto(module, "deep.hlo_proto.pb");
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("deep.hlo_proto.pb: shape nested deeper than 256 tuple levels"),
            std::string::npos)
      << msg.substr(0, 300);
  size_t at = msg.find(" at byte offset ");
  ASSERT_NE(at, std::string::npos) << msg.substr(0, 300);
  EXPECT_LT(std::stoull(msg.substr(at + 16)), module.size());
  // A real nesting depth still decodes.
  std::string ok_shape;
  VarintField(&ok_shape, 2, 11);
  for (int i = 0; i < 8; ++i) {
    std::string outer;
    VarintField(&outer, 2, 13);
    LenField(&outer, 4, ok_shape);
    ok_shape = std::move(outer);
  }
  std::string ok_ins;
  LenField(&ok_ins, 1, "t");
  LenField(&ok_ins, 2, "tuple");
  LenField(&ok_ins, 3, ok_shape);
  std::string ok_comp;
  LenField(&ok_comp, 1, "main");
  LenField(&ok_comp, 2, ok_ins);
  std::string ok_module;
  LenField(&ok_module, 1, "m");
  LenField(&ok_module, 2, "main");
  LenField(&ok_module, 3, ok_comp);
  EXPECT_TRUE(ReadHloProto(ok_module, "ok").ok());
}

}  // namespace
}  // namespace th::hlo
