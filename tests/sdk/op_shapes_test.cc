#include <gtest/gtest.h>
#include <tracehound/op_shapes.h>

#include <random>

namespace th::sdk {
namespace {

using Dims = std::vector<int64_t>;

TEST(OpShapes, ParsesInputDims) {
  ParsedInputDims p = ParseInputDims("[[4096,4096],[4096,4096]]");
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(p.inputs.size(), 2u);
  EXPECT_EQ(p.inputs[0].dims, (Dims{4096, 4096}));
  EXPECT_EQ(p.inputs[1].dims, (Dims{4096, 4096}));
  EXPECT_FALSE(p.inputs[0].is_list);

  // Kineto's own spacing and line breaks are accepted too.
  p = ParseInputDims("[\n  [8, 1024, 2048],\n  [],\n  [2048]\n]\n");
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(p.inputs.size(), 3u);
  EXPECT_EQ(p.inputs[0].dims, (Dims{8, 1024, 2048}));
  EXPECT_TRUE(p.inputs[1].dims.empty());
  EXPECT_FALSE(p.inputs[1].is_list);
  EXPECT_EQ(p.inputs[2].dims, (Dims{2048}));

  p = ParseInputDims("[]");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_TRUE(p.inputs.empty());
}

TEST(OpShapes, TensorListEntriesAreListsOfShapes) {
  ParsedInputDims p = ParseInputDims("[[[1,559,32],[1,559,32]],[]]");
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(p.inputs.size(), 2u);
  EXPECT_TRUE(p.inputs[0].is_list);
  EXPECT_TRUE(p.inputs[0].dims.empty());
  EXPECT_EQ(p.inputs[0].tensors, (std::vector<Dims>{{1, 559, 32}, {1, 559, 32}}));
  EXPECT_FALSE(p.inputs[1].is_list);

  p = ParseInputDims("[[[]]]");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_TRUE(p.inputs[0].is_list);
  EXPECT_EQ(p.inputs[0].tensors, (std::vector<Dims>{Dims{}}));
}

TEST(OpShapes, ParsesInputTypesWithEscapes) {
  ParsedInputTypes p = ParseInputTypes(R"(["c10::BFloat16", "", "Scalar", "a\"b\\c\u00e9"])");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.types, (std::vector<std::string>{"c10::BFloat16", "", "Scalar", "a\"b\\c\xc3\xa9"}));
  p = ParseInputTypes(R"(["\ud83d\ude00"])");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.types[0], "\xf0\x9f\x98\x80");
}

TEST(OpShapes, JoinsDimsAndTypesIntoKinds) {
  ParsedOpInputs p =
      ParseOpInputs("[[8,1024,2048],[],[2048],[],[],[[2,3],[4]],[]]",
                    R"(["c10::BFloat16","float","c10::Half","Scalar","","TensorList","Int"])");
  ASSERT_TRUE(p.ok()) << p.error;
  ASSERT_EQ(p.inputs.size(), 7u);
  EXPECT_EQ(p.inputs[0].kind, InputKind::kTensor);
  EXPECT_EQ(p.inputs[0].dtype.name, "bf16");
  EXPECT_EQ(TensorBytes(p.inputs[0]), 8 * 1024 * 2048 * 2);
  EXPECT_EQ(p.inputs[1].kind, InputKind::kTensor);  // a 0-d float tensor: one element
  EXPECT_EQ(TensorBytes(p.inputs[1]), 4);
  EXPECT_EQ(TensorBytes(p.inputs[2]), 2048 * 2);
  EXPECT_EQ(p.inputs[3].kind, InputKind::kScalar);
  EXPECT_EQ(TensorBytes(p.inputs[3]), -1);
  EXPECT_EQ(p.inputs[4].kind, InputKind::kNone);
  EXPECT_EQ(p.inputs[5].kind, InputKind::kTensorList);
  EXPECT_EQ(p.inputs[5].shape.tensors.size(), 2u);
  EXPECT_EQ(p.inputs[6].kind, InputKind::kScalar);  // "Int" is an int argument here

  EXPECT_EQ(ClassifyInputType("GenericList"), InputKind::kList);
  EXPECT_EQ(ClassifyInputType("ScalarList"), InputKind::kList);
  EXPECT_EQ(ClassifyInputType("Device"), InputKind::kOther);
  EXPECT_EQ(ClassifyInputType("c10::Float8_e9m9"), InputKind::kOther);

  // One side absent.
  p = ParseOpInputs("[[2,3]]", "");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.inputs[0].kind, InputKind::kOther);
  EXPECT_EQ(p.inputs[0].shape.dims, (Dims{2, 3}));
  p = ParseOpInputs("", R"(["float"])");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.inputs[0].kind, InputKind::kTensor);
  // Different lengths.
  p = ParseOpInputs("[[1],[2]]", R"(["float"])");
  EXPECT_EQ(p.error, "Input Dims has 2 inputs, Input type 1");
  EXPECT_TRUE(p.inputs.empty());
}

// Concrete Inputs as aten::convolution writes them (owlv2's patch embedding).
TEST(OpShapes, ParsesConcreteInputsAndTheirValues) {
  const ParsedInputTypes c =
      ParseConcreteInputs(R"(["","","","[14, 14]","[0, 0]","[1, 1]","False","[0, 0]","1"])");
  ASSERT_TRUE(c.ok()) << c.error;
  ASSERT_EQ(c.types.size(), 9u);
  std::vector<int64_t> list;
  EXPECT_TRUE(ConcreteIntList(c.types[3], &list));
  EXPECT_EQ(list, Dims({14, 14}));
  EXPECT_TRUE(ConcreteIntList("[]", &list));
  EXPECT_EQ(list, Dims{});
  EXPECT_FALSE(ConcreteIntList("[1, 2", &list));
  EXPECT_FALSE(ConcreteIntList("[1.5]", &list));
  EXPECT_FALSE(ConcreteIntList("", &list));
  int64_t v = 7;
  EXPECT_TRUE(ConcreteInt(c.types[8], &v));
  EXPECT_EQ(v, 1);
  EXPECT_TRUE(ConcreteInt("-3", &v));
  EXPECT_EQ(v, -3);
  EXPECT_FALSE(ConcreteInt("1 2", &v));
  EXPECT_FALSE(ConcreteInt("", &v));
  EXPECT_FALSE(ConcreteInt("99999999999999999999", &v));
  EXPECT_EQ(v, -3);
  bool b = true;
  EXPECT_TRUE(ConcreteBool(c.types[6], &b));
  EXPECT_FALSE(b);
  EXPECT_TRUE(ConcreteBool("True", &b));
  EXPECT_TRUE(b);
  EXPECT_FALSE(ConcreteBool("1", &b));
  std::vector<bool> mask;
  EXPECT_TRUE(ConcreteBoolList("[True, True, False]", &mask));
  EXPECT_EQ(mask, (std::vector<bool>{true, true, false}));
  EXPECT_TRUE(ConcreteBoolList("[]", &mask));
  EXPECT_TRUE(mask.empty());
  EXPECT_TRUE(ConcreteBoolList("[false]", &mask));
  EXPECT_EQ(mask, std::vector<bool>{false});
  EXPECT_FALSE(ConcreteBoolList("[True, 1]", &mask));
  EXPECT_TRUE(mask.empty());
  EXPECT_FALSE(ConcreteBoolList("[True,, False]", &mask));
  EXPECT_FALSE(ConcreteBoolList("True", &mask));
  const ParsedInputTypes bad = ParseConcreteInputs(R"(["", 1])");
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(bad.types.empty());
  EXPECT_EQ(bad.error.rfind("Concrete Inputs: ", 0), 0u) << bad.error;
}

TEST(OpShapes, DtypesOfRealSpellings) {
  // Every spelling found in ../shared/data's record_shapes traces, and the
  // c10 float8 / ScalarType names.
  struct Case {
    const char* spelling;
    int bytes;
    const char* name;
  };
  for (const Case& c :
       {Case{"float", 4, "fp32"}, Case{"double", 8, "fp64"}, Case{"c10::Half", 2, "fp16"},
        Case{"c10::BFloat16", 2, "bf16"}, Case{"long int", 8, "int64"}, Case{"long", 8, "int64"},
        Case{"int", 4, "int32"}, Case{"bool", 1, "bool"}, Case{"unsigned char", 1, "uint8"},
        Case{"signed char", 1, "int8"}, Case{"c10::Float8_e4m3fn", 1, "fp8"},
        Case{"c10::Float8_e5m2", 1, "fp8"}, Case{"c10::Float8_e4m3fnuz", 1, "fp8"},
        Case{"c10::complex<float>", 8, "complex64"}, Case{"BFloat16", 2, "bf16"},
        Case{"Float", 4, "fp32"}, Case{"Long", 8, "int64"}}) {
    SCOPED_TRACE(c.spelling);
    const Dtype d = LookupDtype(c.spelling);
    EXPECT_EQ(d.bytes, c.bytes);
    EXPECT_EQ(d.name, c.name);
  }
  EXPECT_FALSE(LookupDtype("Scalar").known());
  EXPECT_EQ(LookupDtype("Scalar").name, "unknown");
  EXPECT_FALSE(LookupDtype("").known());
}

TEST(OpShapes, ElementCountsAndOverflow) {
  EXPECT_EQ(ElementCount({}), 1);
  EXPECT_EQ(ElementCount({0, 5}), 0);
  EXPECT_EQ(ElementCount({-1, 5}), -1);
  EXPECT_EQ(ElementCount({int64_t{1} << 40, int64_t{1} << 40}), -1);
  ParsedOpInputs p = ParseOpInputs("[[4611686018427387904]]", R"(["float"])");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(TensorBytes(p.inputs[0]), -1);  // 2^62 × 4 bytes overflows
}

TEST(OpShapes, MalformedTextIsAnErrorWithItsOffset) {
  EXPECT_EQ(ParseInputDims("[[1,2],[3 4]]").error, "Input Dims: expected ']' at offset 10");
  EXPECT_EQ(ParseInputDims("[[1.5]]").error, "Input Dims: expected an integer at offset 2");
  EXPECT_EQ(ParseInputDims("[[9223372036854775808]]").error,
            "Input Dims: integer out of range at offset 2");
  EXPECT_TRUE(ParseInputDims("[[-9223372036854775808]]").ok());
  EXPECT_EQ(ParseInputDims("[[1]] x").error, "Input Dims: text after the list at offset 6");
  EXPECT_EQ(ParseInputDims("[[[[1]]]]").error, "Input Dims: expected an integer at offset 3");
  EXPECT_EQ(ParseInputDims("[[01]]").error, "Input Dims: leading zero at offset 2");
  EXPECT_EQ(ParseInputTypes(R"(["a\q"])").error, "Input type: invalid escape at offset 4");
  EXPECT_EQ(ParseInputTypes(R"(["\ud800"])").error, "Input type: lone high surrogate at offset 8");
  EXPECT_EQ(ParseInputTypes("[\"a\nb\"]").error,
            "Input type: control character in a string at offset 3");
  EXPECT_EQ(ParseInputTypes(R"([1])").error, "Input type: expected '\"' at offset 1");
  EXPECT_FALSE(ParseOpInputs("[[1]", R"(["float"])").ok());
  EXPECT_FALSE(ParseOpInputs("[[1]]", R"(["float")").ok());
}

// Every prefix of valid text is an error (never a crash or a partial
// result), and random mutations either parse or give an error.
TEST(OpShapes, FuzzedTextNeverCrashes) {
  const std::string dims = "[[8,1024,2048],[],[[1,2],[3]],[-1],[]]";
  const std::string types = R"(["c10::BFloat16","","Scalar","\u0041\"","TensorList"])";
  for (size_t n = 0; n < dims.size(); ++n) {
    ParsedInputDims p = ParseInputDims(std::string_view(dims).substr(0, n));
    if (n > 0) {
      EXPECT_FALSE(p.ok()) << n;
    }
    EXPECT_TRUE(p.inputs.empty());
  }
  for (size_t n = 1; n < types.size(); ++n) EXPECT_FALSE(ParseInputTypes(types.substr(0, n)).ok());
  std::mt19937 rng(20);
  const std::string alphabet = "[]{},\"\\u0123456789-.eE \n:abcdef";
  int parsed = 0, errors = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string d = dims, t = types;
    for (std::string* s : {&d, &t}) {
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < edits; ++k) {
        const size_t at = rng() % (s->size() + 1);
        const char c = alphabet[rng() % alphabet.size()];
        switch (rng() % 3) {
          case 0:
            s->insert(s->begin() + static_cast<std::ptrdiff_t>(at), c);
            break;
          case 1:
            if (at < s->size()) s->erase(at, 1);
            break;
          default:
            if (at < s->size()) (*s)[at] = c;
        }
      }
    }
    ParsedOpInputs p = ParseOpInputs(d, t);
    if (p.ok()) {
      ++parsed;
    } else {
      ++errors;
      EXPECT_TRUE(p.inputs.empty());
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(parsed, 0);
  for (int i = 0; i < 2000; ++i) {  // random bytes
    std::string s(rng() % 40, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    EXPECT_TRUE(ParseInputDims(s).ok() || ParseInputDims(s).inputs.empty());
    EXPECT_TRUE(ParseInputTypes(s).ok() || ParseInputTypes(s).types.empty());
  }
}

}  // namespace
}  // namespace th::sdk
