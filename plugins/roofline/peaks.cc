#include "peaks.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

namespace th::roofline {
namespace {

// One value of a flow mapping: a scalar (bare or double-quoted) or a list of
// double-quoted strings.
struct Value {
  std::string scalar;
  std::vector<std::string> list;
  bool is_list = false;
};

class Line {
 public:
  Line(std::string_view s, std::string* error) : s_(s), error_(error) {}

  void Space() {
    while (p_ < s_.size() && s_[p_] == ' ') ++p_;
  }
  bool Eat(char c) {
    Space();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool AtEnd() {
    Space();
    return p_ == s_.size() || s_[p_] == '#';
  }
  bool Quoted(std::string* out) {
    if (!Eat('"')) return Fail("expected a double-quoted string");
    out->clear();
    while (p_ < s_.size() && s_[p_] != '"') {
      if (s_[p_] == '\\') return Fail("escapes are not part of this format");
      out->push_back(s_[p_++]);
    }
    if (p_ == s_.size()) return Fail("unterminated string");
    ++p_;
    return true;
  }
  bool Bare(std::string* out) {
    Space();
    out->clear();
    while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_' ||
                              s_[p_] == '-' || s_[p_] == '.' || s_[p_] == '+'))
      out->push_back(s_[p_++]);
    return out->empty() ? Fail("expected a value") : true;
  }
  bool ValueAt(Value* v) {
    Space();
    if (p_ < s_.size() && s_[p_] == '[') {
      ++p_;
      v->is_list = true;
      while (!Eat(']')) {
        std::string item;
        if (!Quoted(&item)) return false;
        v->list.push_back(item);
        if (!Eat(',') && !(Space(), p_ < s_.size() && s_[p_] == ']'))
          return Fail("expected ',' or ']'");
      }
      return true;
    }
    if (p_ < s_.size() && s_[p_] == '"') return Quoted(&v->scalar);
    return Bare(&v->scalar);
  }
  // "{key: value, ...}" after "- ".
  bool Mapping(std::map<std::string, Value>* out) {
    if (!Eat('{')) return Fail("expected '{' (one flow mapping per row)");
    while (!Eat('}')) {
      std::string key;
      if (!Bare(&key) || !Eat(':')) return Fail("expected 'key: value'");
      Value v;
      if (!ValueAt(&v)) return false;
      if (!out->emplace(key, v).second) return Fail("key '" + key + "' given twice");
      if (!Eat(',') && !(Space(), p_ < s_.size() && s_[p_] == '}'))
        return Fail("expected ',' or '}'");
    }
    return AtEnd() ? true : Fail("text after the row");
  }
  bool Fail(const std::string& what) {
    if (error_->empty()) *error_ = what;
    return false;
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
  std::string* error_;
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Number(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(*out) && *out > 0;
}

// Checks a row's keys: every required one present, no other.
bool Keys(const std::map<std::string, Value>& row, const std::set<std::string>& required,
          const std::set<std::string>& lists, std::string* error) {
  for (const auto& [k, v] : row) {
    if (!required.count(k)) {
      *error = "unknown key '" + k + "'";
      return false;
    }
    if (v.is_list != (lists.count(k) > 0)) {
      *error = "key '" + k + (v.is_list ? "' takes one value" : "' takes a list");
      return false;
    }
  }
  for (const std::string& k : required)
    if (!row.count(k)) {
      *error = "missing key '" + k + "'";
      return false;
    }
  return true;
}

const std::set<std::string> kUnits = {"matrix", "vector"};
const std::set<std::string> kDtypes = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8"};
const std::set<std::string> kKinds = {"datasheet", "measured"};

// Validates one row of `section` into the table; "" or the reason.
std::string AddRow(const std::string& section, const std::map<std::string, Value>& row,
                   std::vector<PeakDevice>& devices, std::vector<Peak>& peaks,
                   std::vector<Bandwidth>& bandwidths) {
  std::string error;
  auto known = [&](const std::string& id) {
    return std::any_of(devices.begin(), devices.end(),
                       [&](const PeakDevice& d) { return d.id == id; });
  };
  if (section == "devices") {
    if (!Keys(row, {"id", "name", "match"}, {"match"}, &error)) return error;
    if (known(row.at("id").scalar)) return "device '" + row.at("id").scalar + "' given twice";
    if (row.at("match").list.empty()) return "match lists no name";
    devices.push_back({row.at("id").scalar, row.at("name").scalar, row.at("match").list});
    return "";
  }
  const std::string& device = row.count("device") ? row.at("device").scalar : "";
  if (section == "peaks") {
    if (!Keys(row, {"device", "unit", "dtype", "flops", "kind", "source"}, {}, &error))
      return error;
    Peak p{device, row.at("unit").scalar, row.at("dtype").scalar,
           0,      row.at("kind").scalar, row.at("source").scalar};
    if (!known(device)) return "device '" + device + "' is not under devices:";
    if (!kUnits.count(p.unit)) return "unit '" + p.unit + "' is not matrix or vector";
    if (!kDtypes.count(p.dtype))
      return "dtype '" + p.dtype + "' is not one of fp64 fp32 tf32 bf16 fp16 fp8 int8";
    if (!kKinds.count(p.kind)) return "kind '" + p.kind + "' is not datasheet or measured";
    if (!Number(row.at("flops").scalar, &p.flops)) return "flops is not a positive number";
    for (const Peak& q : peaks)
      if (q.device == p.device && q.unit == p.unit && q.dtype == p.dtype)
        return "peak " + p.device + " " + p.unit + " " + p.dtype + " given twice";
    if (p.source.empty()) return "source is empty";
    peaks.push_back(p);
    return "";
  }
  if (!Keys(row, {"device", "bytes_per_s", "kind", "source"}, {}, &error)) return error;
  Bandwidth b{device, 0, row.at("kind").scalar, row.at("source").scalar};
  if (!known(device)) return "device '" + device + "' is not under devices:";
  if (!kKinds.count(b.kind)) return "kind '" + b.kind + "' is not datasheet or measured";
  if (!Number(row.at("bytes_per_s").scalar, &b.bytes_per_s))
    return "bytes_per_s is not a positive number";
  for (const Bandwidth& q : bandwidths)
    if (q.device == b.device) return "bandwidth of " + b.device + " given twice";
  if (b.source.empty()) return "source is empty";
  bandwidths.push_back(b);
  return "";
}

}  // namespace

std::optional<PeakTable> PeakTable::Parse(std::string_view text, const std::string& file,
                                          std::string* error) {
  PeakTable t;
  std::string section;
  bool version = false;
  size_t line_no = 0;
  auto fail = [&](const std::string& what) {
    *error = file + ":" + std::to_string(line_no) + ": " + what;
    return std::nullopt;
  };
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t first = line.find_first_not_of(' ');
    if (first == std::string_view::npos || line[first] == '#') continue;
    if (line.find('\t') != std::string_view::npos) return fail("tab in indentation");
    if (first == 0) {
      if (line.substr(0, 8) == "version:") {
        if (line.substr(8).find_first_not_of(' ') == std::string_view::npos ||
            line.substr(line.find_first_not_of(' ', 8)) != "1")
          return fail("version must be 1");
        version = true;
        continue;
      }
      const std::string head(line);
      if (head != "devices:" && head != "peaks:" && head != "bandwidth:")
        return fail("expected version:, devices:, peaks: or bandwidth:, got '" + head + "'");
      section = head.substr(0, head.size() - 1);
      continue;
    }
    if (section.empty()) return fail("a row outside devices:, peaks: or bandwidth:");
    if (line.substr(first, 2) != "- ") return fail("expected '- {...}'");
    std::string what;
    Line l(line.substr(first + 2), &what);
    std::map<std::string, Value> row;
    if (!l.Mapping(&row)) return fail(what);
    what = AddRow(section, row, t.devices_, t.peaks_, t.bandwidths_);
    if (!what.empty()) return fail(what);
  }
  if (!version) {
    line_no = 1;
    return fail("missing 'version: 1'");
  }
  return t;
}

const PeakDevice* PeakTable::Match(std::string_view name) const {
  const std::string lower = Lower(name);
  const PeakDevice* best = nullptr;
  size_t best_len = 0;
  for (const PeakDevice& d : devices_) {
    if (d.id == name) return &d;
    for (const std::string& m : d.match)
      if (m.size() > best_len && lower.find(Lower(m)) != std::string::npos) {
        best = &d;
        best_len = m.size();
      }
  }
  return best;
}

const PeakDevice* PeakTable::ById(std::string_view id) const {
  for (const PeakDevice& d : devices_)
    if (d.id == id) return &d;
  return nullptr;
}

const Peak* PeakTable::Find(const std::string& device, const std::string& unit,
                            const std::string& dtype) const {
  for (const Peak& p : peaks_)
    if (p.device == device && p.unit == unit && p.dtype == dtype) return &p;
  return nullptr;
}

Roof PeakTable::For(const std::string& device, const std::string& unit,
                    const std::string& dtype) const {
  Roof r;
  const Peak* p = Find(device, unit, dtype);
  if (!p && unit == "matrix") p = Find(device, "vector", dtype);
  if (!p && unit == "vector") p = Find(device, "vector", "fp32");
  if (!p && unit == "vector") p = Find(device, "matrix", dtype);
  if (p) {
    r.flops = p->flops;
    r.peak_row = p->unit + " " + p->dtype;
    r.peak_source = p->source;
  }
  for (const Bandwidth& b : bandwidths_)
    if (b.device == device) {
      r.bytes_per_s = b.bytes_per_s;
      r.bandwidth_source = b.source;
    }
  return r;
}

}  // namespace th::roofline
