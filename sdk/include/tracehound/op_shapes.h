// Header-only helpers for plugins that read the op_inputs table (Kineto
// record_shapes): the "Input Dims" and "Input type" texts parsed into inputs,
// and the element types (dtypes) PyTorch writes with their size and a short
// normalised name.
//
// What the texts hold (PyTorch's profiler writes one entry per op argument):
// - Input Dims: a list with one list per input. A tensor's entry is its sizes
//   ([4096, 4096]; [] for a 0-d tensor); a TensorList's entry is a list of the
//   tensors' sizes ([[1, 559, 32], [1, 559, 32]]); any other argument
//   (scalar, None, int list, ...) has [].
// - Input type: a list with one string per input: a tensor's dtype as c10
//   names it ("float", "c10::BFloat16", "long int"), "" for None or an
//   undefined tensor, or the argument's kind for the rest ("Scalar",
//   "TensorList", "ScalarList", "GenericList", "Int", "Double", "Bool", ...).
// So the dims text alone cannot tell a 0-d tensor from a scalar; the type
// can: ParseOpInputs joins both and gives each input a kind.
// - Concrete Inputs: a list with one string per input: a scalar argument's
//   value as text ("1", "False", "[14, 14]"), "" for tensors and None.
//   ParseConcreteInputs splits it; ConcreteInt / ConcreteIntList /
//   ConcreteBool / ConcreteBoolList read one value.
//
// Parsing never throws and never reads past the text: malformed text gives a
// result whose `error` says what and at which byte offset.
#ifndef TRACEHOUND_OP_SHAPES_H_
#define TRACEHOUND_OP_SHAPES_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace th::sdk {

// One entry of Input Dims.
struct InputDims {
  std::vector<int64_t> dims;  // a tensor's sizes; empty for [] and for a list
  // A list of lists ([[..], [..]], a TensorList's tensors): each one's sizes;
  // `is_list` is then true (also for [[]]).
  std::vector<std::vector<int64_t>> tensors;
  bool is_list = false;
};

// Input Dims parsed; `error` non-empty (and `inputs` empty) when malformed.
struct ParsedInputDims {
  std::vector<InputDims> inputs;
  std::string error;
  bool ok() const { return error.empty(); }
};

// Input type parsed; `error` non-empty (and `types` empty) when malformed.
struct ParsedInputTypes {
  std::vector<std::string> types;
  std::string error;
  bool ok() const { return error.empty(); }
};

// An element type: bytes per element (0 when unknown) and a normalised name:
// fp64 fp32 fp16 bf16 fp8 (every float8 format) fp4x2 (two fp4 values per
// byte) e8m0 int64 int32 int16 int8 uint64 uint32 uint16 uint8 bool
// complex128 complex64 complex32 qint8 quint8 qint32 quint4x2 quint2x4;
// "unknown" (bytes 0) for any other spelling.
struct Dtype {
  int bytes = 0;
  std::string_view name = "unknown";
  bool known() const { return bytes > 0; }
};

// The dtype of a spelling PyTorch writes: c10's type names as Input type has
// them ("float", "double", "c10::Half", "c10::BFloat16", "long int", "long",
// "int", "short int", "signed char", "unsigned char", "bool",
// "c10::Float8_e4m3fn", "c10::complex<float>", ...) and c10::ScalarType
// names as Kineto writes a collective's dtype ("Float", "BFloat16", "Long",
// "Byte", ...). Note that in Input type "Int", "Double" and "Bool" are
// scalar arguments, not tensors: use ClassifyInputType there.
Dtype LookupDtype(std::string_view spelling);

// What an argument of an op is, from its Input type entry.
enum class InputKind : uint8_t {
  kTensor,      // a dtype: the entry's dims are the tensor's sizes
  kTensorList,  // "TensorList": the entry's tensors
  kScalar,      // "Scalar", "Int", "Double", "Bool", "SymInt", ...
  kList,        // a list of non-tensors: "ScalarList", "GenericList", ...
  kNone,        // "" (None or an undefined tensor) or "None"
  kOther,       // any other kind ("String", "Device", ...) or an unknown dtype
};
InputKind ClassifyInputType(std::string_view type);

// One argument: its Input type entry, kind and Input Dims entry.
struct OpInput {
  InputKind kind = InputKind::kOther;
  std::string type;  // as written
  Dtype dtype;       // kTensor: its dtype
  InputDims shape;
};

struct ParsedOpInputs {
  std::vector<OpInput> inputs;
  std::string error;
  bool ok() const { return error.empty(); }
};

ParsedInputDims ParseInputDims(std::string_view text);
ParsedInputTypes ParseInputTypes(std::string_view text);
// Concrete Inputs parsed into its strings (the same grammar as Input type).
ParsedInputTypes ParseConcreteInputs(std::string_view text);
// One Concrete Inputs value: an integer ("1"), an int list ("[14, 14]",
// "[]"), a bool ("True"/"False", "true"/"false"), a bool list ("[True,
// False]": output_mask). false when the value is not one (out untouched or
// partly filled).
bool ConcreteInt(std::string_view value, int64_t* out);
bool ConcreteIntList(std::string_view value, std::vector<int64_t>* out);
bool ConcreteBool(std::string_view value, bool* out);
bool ConcreteBoolList(std::string_view value, std::vector<bool>* out);
// Both texts joined by position. An empty text (the arg was absent) leaves
// the other one's side default: with no types every input is kOther, with
// no dims every shape is empty. Two texts of different lengths are an error.
ParsedOpInputs ParseOpInputs(std::string_view dims_text, std::string_view types_text);

// Elements of a tensor of `dims` (1 for a 0-d tensor); -1 when a size is
// negative or the product overflows int64.
int64_t ElementCount(const std::vector<int64_t>& dims);
// Bytes of a kTensor input with a known dtype (elements × bytes per element);
// -1 for any other input or on overflow.
int64_t TensorBytes(const OpInput& input);

// ---------------------------------------------------------------------------

namespace op_shapes_detail {

inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A cursor over text with the first error kept.
struct Reader {
  std::string_view s;
  const char* what;  // "Input Dims" or "Input type"
  size_t pos = 0;
  std::string error;

  void Space() {
    while (pos < s.size() && IsSpace(s[pos])) ++pos;
  }
  bool Fail(std::string_view message) {
    if (error.empty())
      error = std::string(what) + ": " + std::string(message) + " at offset " + std::to_string(pos);
    return false;
  }
  bool Peek(char c) {
    Space();
    return pos < s.size() && s[pos] == c;
  }
  bool Expect(char c) {
    if (!Peek(c)) return Fail(std::string("expected '") + c + "'");
    ++pos;
    return true;
  }
  // A JSON integer (no fraction, no exponent) that fits int64.
  bool Int(int64_t* out) {
    Space();
    const bool neg = pos < s.size() && s[pos] == '-';
    size_t p = pos + (neg ? 1 : 0);
    if (p >= s.size() || s[p] < '0' || s[p] > '9') return Fail("expected an integer");
    if (s[p] == '0' && p + 1 < s.size() && s[p + 1] >= '0' && s[p + 1] <= '9')
      return Fail("leading zero");
    uint64_t v = 0;
    const uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    for (; p < s.size() && s[p] >= '0' && s[p] <= '9'; ++p) {
      const auto d = static_cast<uint64_t>(s[p] - '0');
      if (v > (limit - d) / 10) return Fail("integer out of range");
      v = v * 10 + d;
    }
    if (p < s.size() && (s[p] == '.' || s[p] == 'e' || s[p] == 'E'))
      return Fail("expected an integer");
    *out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    pos = p;
    return true;
  }
  // The rest of a list after its '[': item ("," item)* "]" or "]", each
  // item read into a new element of `out` by one(T*).
  template <typename T, typename ReadOne>
  bool ListThenClose(std::vector<T>* out, ReadOne one) {
    if (Peek(']')) return ++pos, true;
    while (true) {
      if (!one(&out->emplace_back())) return false;
      if (!Peek(',')) return Expect(']');
      ++pos;
    }
  }
  // The rest of an int list after its '['.
  bool IntsThenClose(std::vector<int64_t>* out) {
    return ListThenClose(out, [this](int64_t* v) { return Int(v); });
  }
  bool IntList(std::vector<int64_t>* out) { return Expect('[') && IntsThenClose(out); }
  // One Input Dims entry: an int list, or a list of int lists.
  bool Entry(InputDims* out) {
    if (!Expect('[')) return false;
    if (!Peek('[')) return IntsThenClose(&out->dims);
    out->is_list = true;
    return ListThenClose(&out->tensors, [this](std::vector<int64_t>* t) { return IntList(t); });
  }
  bool AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
    return true;
  }
  bool Hex4(uint32_t* out) {
    if (s.size() - pos < 4) return Fail("short \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s[pos + i];
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return Fail("bad \\u escape");
      v = v * 16 + static_cast<uint32_t>(d);
    }
    pos += 4;
    *out = v;
    return true;
  }
  bool Escape(std::string* out) {
    if (pos >= s.size()) return Fail("unterminated string");
    const char c = s[pos++];
    switch (c) {
      case '"':
      case '\\':
      case '/':
        out->push_back(c);
        return true;
      case 'b':
        out->push_back('\b');
        return true;
      case 'f':
        out->push_back('\f');
        return true;
      case 'n':
        out->push_back('\n');
        return true;
      case 'r':
        out->push_back('\r');
        return true;
      case 't':
        out->push_back('\t');
        return true;
      case 'u': {
        uint32_t cp = 0;
        if (!Hex4(&cp)) return false;
        if (cp >= 0xDC00 && cp < 0xE000) return Fail("lone low surrogate");
        if (cp >= 0xD800 && cp < 0xDC00) {
          uint32_t low = 0;
          if (s.substr(pos, 2) != "\\u") return Fail("lone high surrogate");
          pos += 2;
          if (!Hex4(&low)) return false;
          if (low < 0xDC00 || low >= 0xE000) return Fail("lone high surrogate");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        return AppendUtf8(cp, out);
      }
      default:
        --pos;
        return Fail("invalid escape");
    }
  }
  // A JSON string, unescaped.
  bool String(std::string* out) {
    if (!Expect('"')) return false;
    while (true) {
      if (pos >= s.size()) return Fail("unterminated string");
      const char c = s[pos];
      if (c == '"') return ++pos, true;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
      ++pos;
      if (c == '\\') {
        if (!Escape(out)) return false;
      } else {
        out->push_back(c);
      }
    }
  }
  bool End() {
    Space();
    if (pos != s.size()) return Fail("text after the list");
    return true;
  }
};

struct DtypeName {
  std::string_view spelling;
  Dtype dtype;
};

// c10 type names (caffe2::TypeMeta, demangled by gcc or clang) and
// c10::ScalarType names.
inline constexpr DtypeName kDtypes[] = {
    {"float", {4, "fp32"}},
    {"double", {8, "fp64"}},
    {"c10::Half", {2, "fp16"}},
    {"c10::BFloat16", {2, "bf16"}},
    {"c10::Float8_e4m3fn", {1, "fp8"}},
    {"c10::Float8_e4m3fnuz", {1, "fp8"}},
    {"c10::Float8_e5m2", {1, "fp8"}},
    {"c10::Float8_e5m2fnuz", {1, "fp8"}},
    {"c10::Float8_e8m0fnu", {1, "e8m0"}},
    {"c10::Float4_e2m1fn_x2", {1, "fp4x2"}},
    {"long int", {8, "int64"}},
    {"long", {8, "int64"}},
    {"long long", {8, "int64"}},
    {"long long int", {8, "int64"}},
    {"int64_t", {8, "int64"}},
    {"int", {4, "int32"}},
    {"short int", {2, "int16"}},
    {"short", {2, "int16"}},
    {"signed char", {1, "int8"}},
    {"unsigned char", {1, "uint8"}},
    {"unsigned short", {2, "uint16"}},
    {"unsigned short int", {2, "uint16"}},
    {"unsigned int", {4, "uint32"}},
    {"unsigned long", {8, "uint64"}},
    {"unsigned long int", {8, "uint64"}},
    {"bool", {1, "bool"}},
    {"c10::complex<double>", {16, "complex128"}},
    {"c10::complex<float>", {8, "complex64"}},
    {"c10::complex<c10::Half>", {4, "complex32"}},
    {"c10::qint8", {1, "qint8"}},
    {"c10::quint8", {1, "quint8"}},
    {"c10::qint32", {4, "qint32"}},
    {"c10::quint4x2", {1, "quint4x2"}},
    {"c10::quint2x4", {1, "quint2x4"}},
    // c10::ScalarType names (collective dtypes).
    {"Float", {4, "fp32"}},
    {"Double", {8, "fp64"}},
    {"Half", {2, "fp16"}},
    {"BFloat16", {2, "bf16"}},
    {"Float8_e4m3fn", {1, "fp8"}},
    {"Float8_e4m3fnuz", {1, "fp8"}},
    {"Float8_e5m2", {1, "fp8"}},
    {"Float8_e5m2fnuz", {1, "fp8"}},
    {"Float8_e8m0fnu", {1, "e8m0"}},
    {"Float4_e2m1fn_x2", {1, "fp4x2"}},
    {"Long", {8, "int64"}},
    {"Int", {4, "int32"}},
    {"Short", {2, "int16"}},
    {"Char", {1, "int8"}},
    {"Byte", {1, "uint8"}},
    {"UInt16", {2, "uint16"}},
    {"UInt32", {4, "uint32"}},
    {"UInt64", {8, "uint64"}},
    {"Bool", {1, "bool"}},
    {"ComplexDouble", {16, "complex128"}},
    {"ComplexFloat", {8, "complex64"}},
    {"ComplexHalf", {4, "complex32"}},
    {"QInt8", {1, "qint8"}},
    {"QUInt8", {1, "quint8"}},
    {"QInt32", {4, "qint32"}},
};

inline constexpr std::string_view kScalarTypes[] = {
    "Scalar", "Int", "Double", "Bool", "SymInt", "SymFloat", "SymBool", "ComplexDouble"};
inline constexpr std::string_view kListTypes[] = {"ScalarList", "GenericList", "IntList",
                                                  "DoubleList", "BoolList",    "SymIntList"};

}  // namespace op_shapes_detail

inline Dtype LookupDtype(std::string_view spelling) {
  for (const auto& d : op_shapes_detail::kDtypes)
    if (d.spelling == spelling) return d.dtype;
  return {};
}

inline InputKind ClassifyInputType(std::string_view type) {
  if (type.empty() || type == "None") return InputKind::kNone;
  if (type == "TensorList") return InputKind::kTensorList;
  for (std::string_view t : op_shapes_detail::kScalarTypes)
    if (t == type) return InputKind::kScalar;
  for (std::string_view t : op_shapes_detail::kListTypes)
    if (t == type) return InputKind::kList;
  return LookupDtype(type).known() ? InputKind::kTensor : InputKind::kOther;
}

inline ParsedInputDims ParseInputDims(std::string_view text) {
  ParsedInputDims out;
  op_shapes_detail::Reader r{text, "Input Dims", 0, {}};
  const bool ok = r.Expect('[') &&
                  r.ListThenClose(&out.inputs, [&r](InputDims* d) { return r.Entry(d); }) &&
                  r.End();
  if (!ok) {
    out.inputs.clear();
    out.error = r.error;
  }
  return out;
}

namespace op_shapes_detail {
inline ParsedInputTypes ParseStringList(std::string_view text, const char* what) {
  ParsedInputTypes out;
  Reader r{text, what, 0, {}};
  const bool ok = r.Expect('[') &&
                  r.ListThenClose(&out.types, [&r](std::string* t) { return r.String(t); }) &&
                  r.End();
  if (!ok) {
    out.types.clear();
    out.error = r.error;
  }
  return out;
}

}  // namespace op_shapes_detail

inline ParsedInputTypes ParseInputTypes(std::string_view text) {
  return op_shapes_detail::ParseStringList(text, "Input type");
}

inline ParsedInputTypes ParseConcreteInputs(std::string_view text) {
  return op_shapes_detail::ParseStringList(text, "Concrete Inputs");
}

inline bool ConcreteInt(std::string_view value, int64_t* out) {
  op_shapes_detail::Reader r{value, "Concrete Inputs", 0, {}};
  int64_t v = 0;
  if (!r.Int(&v) || !r.End()) return false;
  *out = v;
  return true;
}

inline bool ConcreteIntList(std::string_view value, std::vector<int64_t>* out) {
  op_shapes_detail::Reader r{value, "Concrete Inputs", 0, {}};
  out->clear();
  if (r.IntList(out) && r.End()) return true;
  out->clear();
  return false;
}

inline bool ConcreteBool(std::string_view value, bool* out) {
  if (value == "True" || value == "true") return *out = true, true;
  if (value == "False" || value == "false") return *out = false, true;
  return false;
}

inline bool ConcreteBoolList(std::string_view value, std::vector<bool>* out) {
  out->clear();
  if (value.size() < 2 || value.front() != '[' || value.back() != ']') return false;
  value = value.substr(1, value.size() - 2);
  const auto trim = [](std::string_view v) {
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    return v;
  };
  if (trim(value).empty()) return true;  // "[]"
  while (true) {
    const size_t comma = value.find(',');
    bool b = false;
    if (!ConcreteBool(trim(value.substr(0, comma)), &b)) {
      out->clear();
      return false;
    }
    out->push_back(b);
    if (comma == std::string_view::npos) return true;
    value = value.substr(comma + 1);
  }
}

inline ParsedOpInputs ParseOpInputs(std::string_view dims_text, std::string_view types_text) {
  ParsedOpInputs out;
  ParsedInputDims dims;
  ParsedInputTypes types;
  if (!dims_text.empty()) dims = ParseInputDims(dims_text);
  if (!types_text.empty()) types = ParseInputTypes(types_text);
  if (!dims.ok() || !types.ok()) {
    out.error = !dims.ok() ? dims.error : types.error;
    return out;
  }
  const bool have_dims = !dims_text.empty(), have_types = !types_text.empty();
  if (have_dims && have_types && dims.inputs.size() != types.types.size()) {
    out.error = "Input Dims has " + std::to_string(dims.inputs.size()) + " inputs, Input type " +
                std::to_string(types.types.size());
    return out;
  }
  const size_t n = have_dims ? dims.inputs.size() : types.types.size();
  out.inputs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    OpInput& in = out.inputs[i];
    if (have_dims) in.shape = std::move(dims.inputs[i]);
    if (!have_types) continue;
    in.type = std::move(types.types[i]);
    in.kind = ClassifyInputType(in.type);
    if (in.kind == InputKind::kTensor) in.dtype = LookupDtype(in.type);
  }
  return out;
}

inline int64_t ElementCount(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

inline int64_t TensorBytes(const OpInput& input) {
  if (input.kind != InputKind::kTensor || !input.dtype.known() || input.shape.is_list) return -1;
  const int64_t n = ElementCount(input.shape.dims);
  if (n < 0 || n > std::numeric_limits<int64_t>::max() / input.dtype.bytes) return -1;
  return n * input.dtype.bytes;
}

}  // namespace th::sdk

#endif  // TRACEHOUND_OP_SHAPES_H_
