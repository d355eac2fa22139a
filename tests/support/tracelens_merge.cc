#include "tests/support/tracelens_merge.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace th::testing {

namespace ondemand = simdjson::ondemand;

namespace {

// A value as written: the raw text of a scalar, object or array.
std::string RawText(ondemand::value v) {
  ondemand::json_type t = v.type().value();
  if (t == ondemand::json_type::object)
    return std::string(v.get_object().value().raw_json().value());
  if (t == ondemand::json_type::array) return std::string(v.get_array().value().raw_json().value());
  std::string_view tok = v.raw_json_token();
  while (!tok.empty() &&
         (tok.back() == ' ' || tok.back() == '\n' || tok.back() == '\r' || tok.back() == '\t'))
    tok.remove_suffix(1);
  return std::string(tok);
}

std::optional<int64_t> AsInt(const std::string& raw) {
  if (raw.empty() || raw.find_first_not_of("-0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(raw);
}

using Fields = std::vector<std::pair<std::string, std::string>>;  // key (unescaped), raw value

Fields ReadObject(ondemand::object obj) {
  Fields out;
  for (auto f : obj) {
    ondemand::field field;
    if (std::move(f).get(field)) throw std::runtime_error("bad JSON");
    std::string key(field.unescaped_key().value());
    out.emplace_back(key, RawText(field.value()));
  }
  return out;
}

const std::string* Get(const Fields& f, const std::string& key) {
  for (const auto& [k, v] : f)
    if (k == key) return &v;
  return nullptr;
}
void Set(Fields* f, const std::string& key, const std::string& value) {
  for (auto& [k, v] : *f)
    if (k == key) {
      v = value;
      return;
    }
  f->emplace_back(key, value);
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string Write(const Fields& f) {
  std::string out = "{";
  for (size_t i = 0; i < f.size(); ++i)
    out += (i ? "," : "") + Quote(f[i].first) + ":" + f[i].second;
  return out + "}";
}

std::string Unquote(const std::string& raw) {
  return raw.size() >= 2 && raw.front() == '"' ? raw.substr(1, raw.size() - 2) : raw;
}

// The events of one rank's trace, and its other top-level keys (raw).
std::vector<Fields> Events(const std::string& text, simdjson::padded_string* keep, Fields* top) {
  *keep = simdjson::padded_string(text);
  static ondemand::parser parser;
  ondemand::document doc = parser.iterate(*keep).value();
  std::vector<Fields> out;
  for (auto f : doc.get_object().value()) {
    ondemand::field field;
    if (std::move(f).get(field)) throw std::runtime_error("bad JSON");
    std::string key(field.unescaped_key().value());
    if (key != "traceEvents") {
      top->emplace_back(key, RawText(field.value()));
      continue;
    }
    for (auto e : field.value().get_array().value()) {
      ondemand::object obj;
      if (e.get_object().get(obj)) continue;
      out.push_back(ReadObject(obj));
    }
  }
  return out;
}

}  // namespace

std::string MergeLikeTraceLens(const std::vector<std::string>& ranks) {
  std::vector<std::vector<Fields>> events(ranks.size());
  std::vector<simdjson::padded_string> texts(ranks.size());
  std::vector<Fields> top(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) events[r] = Events(ranks[r], &texts[r], &top[r]);

  // The linking key and the offsets, from rank 0 (TraceFuse's __init__).
  std::string linking = "External id";
  for (const Fields& e : events[0]) {
    const std::string* cat = Get(e, "cat");
    const std::string* name = Get(e, "name");
    if (!cat || !name) continue;
    std::string c = Unquote(*cat), n = Unquote(*name);
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char x) { return std::tolower(x); });
    if ((c == "cuda_runtime" || c == "cuda_driver") && n.find("launch") != std::string::npos) {
      const std::string* args = Get(e, "args");
      linking = args && args->find("\"correlation\"") != std::string::npos ? "correlation"
                                                                           : "External id";
      break;
    }
  }
  std::map<std::string, int64_t> max_value;
  simdjson::dom::parser dom;
  for (const Fields& e : events[0]) {
    for (const std::string field : {"id", "pid"}) {
      if (const std::string* v = Get(e, field); v && AsInt(*v))
        max_value[field] = std::max(max_value[field], *AsInt(*v));
    }
    if (const std::string* args = Get(e, "args")) {
      simdjson::dom::element a = dom.parse(*args).value();
      int64_t x;
      if (!a[linking].get_int64().get(x)) max_value[linking] = std::max(max_value[linking], x);
    }
  }
  std::map<std::string, int64_t> multiplier;
  for (const auto& [field, m] : max_value)
    multiplier[field] =
        static_cast<int64_t>(std::pow(10.0, std::ceil(std::log10(static_cast<double>(m + 1))) + 1));

  // Every rank's events, offset; then the RANK metadata.
  std::string out = "{";
  for (const auto& [key, raw] : top[0]) out += Quote(key) + ":" + raw + ",";
  out += "\"traceEvents\":[";
  bool first = true;
  std::map<int64_t, int64_t> rank_of_pid;  // first rank seen per pid
  std::set<int64_t> gpu_pids;
  for (size_t r = 0; r < events.size(); ++r) {
    for (Fields e : events[r]) {
      std::string ph = Get(e, "ph") ? Unquote(*Get(e, "ph")) : "";
      std::string name = Get(e, "name") ? Unquote(*Get(e, "name")) : "";
      if (ph == "M" &&
          (name == "process_name" || name == "process_sort_index" || name == "process_labels"))
        continue;
      Fields args;
      if (const std::string* a = Get(e, "args")) {
        simdjson::padded_string pa(*a);
        ondemand::parser p;
        ondemand::document d = p.iterate(pa).value();
        args = ReadObject(d.get_object().value());
      }
      Set(&args, "rank", std::to_string(r));
      for (const auto& [field, m] : multiplier) {
        if (field == linking) {
          if (const std::string* v = Get(args, field)) {
            std::string raw = *v;
            Set(&args, field + "_raw", raw);
            Set(&args, field, std::to_string(*AsInt(raw) + static_cast<int64_t>(r) * m));
          }
        } else if (const std::string* v = Get(e, field)) {
          std::string raw = *v;
          Set(&args, field + "_raw", raw);
          if (auto x = AsInt(raw)) Set(&e, field, std::to_string(*x + static_cast<int64_t>(r) * m));
        }
      }
      Set(&e, "args", Write(args));
      if (ph != "M") {
        if (const std::string* pid = Get(e, "pid"); pid && AsInt(*pid)) {
          rank_of_pid.emplace(*AsInt(*pid), r);
          std::string cat = Get(e, "cat") ? Unquote(*Get(e, "cat")) : "";
          if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset")
            gpu_pids.insert(*AsInt(*pid));
        }
      }
      out += (first ? "" : ",") + Write(e);
      first = false;
    }
  }
  std::vector<std::pair<int64_t, int64_t>> by_rank;  // (rank, pid)
  for (const auto& [pid, rank] : rank_of_pid) by_rank.emplace_back(rank, pid);
  std::sort(by_rank.begin(), by_rank.end());
  for (const auto& [rank, pid] : by_rank) {
    bool gpu = gpu_pids.count(pid) > 0;
    out += ",{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":0,\"args\":{\"name\":\"RANK " + std::to_string(rank) + " - " +
           (gpu ? "GPU" : "CPU") + "\"}}";
    out += ",{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":0,\"args\":{\"sort_index\":" + std::to_string(rank * 2 + (gpu ? 1 : 0)) + "}}";
  }
  return out + "]}";
}

}  // namespace th::testing
