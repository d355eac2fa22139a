#include "core/graph/hlo_compute_dims.h"

#include <cstdint>

namespace th::hlo {
namespace {

std::string List(const std::vector<int64_t>& v) {
  std::string out = "{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(v[i]);
  }
  return out + "}";
}

// "3x3" from one field of every window dimension.
template <typename F>
std::string Joined(const std::vector<HloWindowDim>& w, F field) {
  std::string out;
  for (size_t i = 0; i < w.size(); ++i) {
    if (i) out += "x";
    out += field(w[i]);
  }
  return out;
}

// One operand's labels: `roles` maps (dimension index, label); false when an
// index is out of range or used twice.
bool Labels(size_t rank, const std::vector<std::pair<int64_t, char>>& roles, std::string* out) {
  std::string s(rank, '\0');
  for (const auto& [dim, label] : roles) {
    if (dim < 0 || static_cast<size_t>(dim) >= rank || s[static_cast<size_t>(dim)] != '\0')
      return false;
    s[static_cast<size_t>(dim)] = label;
  }
  *out += s;
  return true;
}

// The integers of the JSON array after `"key":` in `obj` (proto JSON writes
// int64 as strings: ["1"] and [1] both read).
bool JsonInts(std::string_view obj, std::string_view key, std::vector<int64_t>* out) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  size_t p = obj.find(quoted);
  if (p == std::string_view::npos) return true;  // absent: empty
  p = obj.find_first_not_of(" \t\r\n", p + quoted.size());
  if (p == std::string_view::npos || obj[p] != ':') return false;
  p = obj.find_first_not_of(" \t\r\n", p + 1);
  if (p == std::string_view::npos || obj[p] != '[') return false;
  const size_t end = obj.find(']', p);
  if (end == std::string_view::npos) return false;
  std::string_view items = obj.substr(p + 1, end - p - 1);
  int64_t v = 0;
  bool digits = false;
  for (char c : items) {
    if (c >= '0' && c <= '9') {
      if (v > (INT64_MAX - 9) / 10) return false;
      v = v * 10 + (c - '0');
      digits = true;
    } else if (c == ',') {
      if (!digits) return false;
      out->push_back(v);
      v = 0;
      digits = false;
    } else if (c != '"' && c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      return false;
    }
  }
  if (digits) out->push_back(v);
  return true;
}

}  // namespace

std::string DotDimsText(const HloDotDims& d) {
  std::string out;
  auto add = [&out](const char* name, const std::vector<int64_t>& v, bool always) {
    if (v.empty() && !always) return;
    if (!out.empty()) out += ", ";
    out += name;
    out += "=" + List(v);
  };
  add("lhs_batch_dims", d.lhs_batch, false);
  add("lhs_contracting_dims", d.lhs_contracting, true);
  add("rhs_batch_dims", d.rhs_batch, false);
  add("rhs_contracting_dims", d.rhs_contracting, true);
  return out;
}

std::string WindowText(const std::vector<HloWindowDim>& w) {
  if (w.empty()) return "";
  auto any = [&w](auto pred) {
    for (const HloWindowDim& d : w)
      if (pred(d)) return true;
    return false;
  };
  auto num = [](int64_t v) { return std::to_string(v); };
  std::string out = "size=" + Joined(w, [&](const HloWindowDim& d) { return num(d.size); });
  if (any([](const HloWindowDim& d) { return d.stride != 1; }))
    out += " stride=" + Joined(w, [&](const HloWindowDim& d) { return num(d.stride); });
  if (any([](const HloWindowDim& d) { return d.padding_low != 0 || d.padding_high != 0; }))
    out += " pad=" + Joined(w, [&](const HloWindowDim& d) {
             return num(d.padding_low) + "_" + num(d.padding_high);
           });
  if (any([](const HloWindowDim& d) { return d.base_dilation != 1; }))
    out += " lhs_dilate=" + Joined(w, [&](const HloWindowDim& d) { return num(d.base_dilation); });
  if (any([](const HloWindowDim& d) { return d.window_dilation != 1; }))
    out +=
        " rhs_dilate=" + Joined(w, [&](const HloWindowDim& d) { return num(d.window_dilation); });
  if (any([](const HloWindowDim& d) { return d.window_reversal; }))
    out += " rhs_reversal=" + Joined(w, [](const HloWindowDim& d) {
             return std::string(d.window_reversal ? "1" : "0");
           });
  return out;
}

std::string DimLabelsText(const HloConvDims& c) {
  const size_t n = c.input_spatial.size();
  if (n > 10 || c.kernel_spatial.size() != n || c.output_spatial.size() != n) return "";
  auto roles = [n](int64_t a, char la, int64_t b, char lb, const std::vector<int64_t>& spatial) {
    std::vector<std::pair<int64_t, char>> r = {{a, la}, {b, lb}};
    for (size_t k = 0; k < n; ++k) r.emplace_back(spatial[k], static_cast<char>('0' + k));
    return r;
  };
  std::string out;
  if (!Labels(n + 2, roles(c.input_batch, 'b', c.input_feature, 'f', c.input_spatial), &out))
    return "";
  out += "_";
  if (!Labels(n + 2,
              roles(c.kernel_input_feature, 'i', c.kernel_output_feature, 'o', c.kernel_spatial),
              &out))
    return "";
  out += "->";
  if (!Labels(n + 2, roles(c.output_batch, 'b', c.output_feature, 'f', c.output_spatial), &out))
    return "";
  return out;
}

std::optional<HloDotDims> GemmConfigDotDims(std::string_view config) {
  const size_t gemm = config.find("\"gemm_backend_config\"");
  if (gemm == std::string_view::npos) return std::nullopt;
  const size_t key = config.find("\"dot_dimension_numbers\"", gemm);
  if (key == std::string_view::npos) return std::nullopt;
  const size_t open = config.find('{', key);
  const size_t close = open == std::string_view::npos ? open : config.find('}', open);
  if (close == std::string_view::npos) return std::nullopt;
  const std::string_view obj = config.substr(open, close - open + 1);
  HloDotDims d;
  if (!JsonInts(obj, "lhs_contracting_dimensions", &d.lhs_contracting) ||
      !JsonInts(obj, "rhs_contracting_dimensions", &d.rhs_contracting) ||
      !JsonInts(obj, "lhs_batch_dimensions", &d.lhs_batch) ||
      !JsonInts(obj, "rhs_batch_dimensions", &d.rhs_batch))
    return std::nullopt;
  return d;
}

std::string InstructionDotDimsText(const HloInstruction& ins) {
  if (ins.has_dot_dims) return DotDimsText(ins.dot_dims);
  if (ins.opcode != "custom-call" || ins.custom_call_target.rfind("__cublas$", 0) != 0) return "";
  const std::optional<HloDotDims> d = GemmConfigDotDims(ins.backend_config);
  return d ? DotDimsText(*d) : "";
}

std::string_view ModelledCustomCallConfig(const HloInstruction& ins) {
  if (ins.opcode != "custom-call" || ins.custom_call_target.rfind("te_fused_attn", 0) != 0)
    return {};
  return ins.backend_config;
}

}  // namespace th::hlo
