#include "tests/support/xprof_json_writer.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string_view>
#include <vector>

namespace th::testing {

namespace {

using xspace::Event;
using xspace::EventMetadata;
using xspace::Line;
using xspace::Plane;
using xspace::Stat;
using xspace::StatKind;

constexpr uint32_t kHostThreadsDeviceId = 701;  // TSL trace_utils.h
constexpr uint32_t kFirstDeviceId = 1;
constexpr uint64_t kMaxEvents = 5000000;  // TSL's trace viewer cap

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// IsInternalStat / IsInternalEvent of TSL xplane_schema.cc, by name.
bool InternalStat(std::string_view n) {
  return n == "_pt" || n == "_p" || n == "_ct" || n == "_c" || n == "_r" || n == "flops" ||
         n == "program_id" || n == "symbol_id";
}
bool InternalEvent(std::string_view n) {
  static constexpr std::string_view kNames[] = {"MemoryAllocation",
                                                "MemoryDeallocation",
                                                "PrefetchProduce",
                                                "PrefetchConsume",
                                                "ParallelInterleaveProduce",
                                                "ParallelInterleaveConsume",
                                                "ParallelInterleaveInitializeInput",
                                                "ParallelMapProduce",
                                                "ParallelMapConsume",
                                                "MapAndBatchProduce",
                                                "MapAndBatchConsume",
                                                "ParseExampleProduce",
                                                "ParseExampleConsume"};
  return std::find(std::begin(kNames), std::end(kNames), n) != std::end(kNames);
}

// jsoncpp's valueToQuotedString (non-ASCII as \u escapes, as TSL writes it).
void AppendJsonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto u16 = [&](unsigned v) {
    out->append("\\u");
    for (int shift = 12; shift >= 0; shift -= 4) out->push_back(kHex[(v >> shift) & 0xf]);
  };
  out->push_back('"');
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out->append("\\\"");
        continue;
      case '\\':
        out->append("\\\\");
        continue;
      case '\b':
        out->append("\\b");
        continue;
      case '\f':
        out->append("\\f");
        continue;
      case '\n':
        out->append("\\n");
        continue;
      case '\r':
        out->append("\\r");
        continue;
      case '\t':
        out->append("\\t");
        continue;
      default:
        break;
    }
    if (c < 0x20) {
      u16(c);
    } else if (c < 0x80) {
      out->push_back(static_cast<char>(c));
    } else {
      const int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
      unsigned cp = 0xFFFD;
      if (i + extra < s.size()) {
        cp = c & (0x3F >> extra);
        for (int k = 1; k <= extra; ++k)
          cp = cp << 6 | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        i += extra;
      }
      if (cp > 0xFFFF) {
        cp -= 0x10000;
        u16(0xD800 + (cp >> 10));
        u16(0xDC00 + (cp & 0x3FF));
      } else {
        u16(cp);
      }
    }
  }
  out->push_back('"');
}

std::string MicrosText(uint64_t ps, XprofTimeText mode) {
  char buf[40];
  if (mode == XprofTimeText::kMaxDigits) {
    std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(ps) / 1e6);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%llu.%06llu", static_cast<unsigned long long>(ps / 1000000),
                static_cast<unsigned long long>(ps % 1000000));
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

// XStatVisitor::ToString.
std::string StatText(const Plane& plane, const Stat& s) {
  char buf[32];
  switch (s.kind) {
    case StatKind::kInt64:
      return std::to_string(s.int64_value());
    case StatKind::kUint64:
      return std::to_string(s.uint64_value());
    case StatKind::kDouble:
      std::snprintf(buf, sizeof buf, "%g", s.double_value());  // absl::StrCat: six digits
      return buf;
    case StatKind::kStr:
      return s.str;
    case StatKind::kBytes:
      return "<opaque bytes>";
    case StatKind::kRef:
      return plane.StatString(s);
    case StatKind::kNone:
      break;
  }
  return "";
}

struct Resource {
  std::string name;
  uint32_t sort_index = 0;
};
struct Device {
  std::string name;
  std::map<uint32_t, Resource> resources;
};
struct TraceEvent {
  uint32_t pid = 0, tid = 0;
  uint64_t ts_ps = 0, dur_ps = 0;
  std::string name;
  std::map<std::string, std::string> args;
};

uint32_t DisplayId(const Line& l) {
  return static_cast<uint32_t>(l.display_id ? l.display_id : l.id);
}
const std::string& DisplayName(const Line& l) {
  return l.display_name.empty() ? l.name : l.display_name;
}

void ConvertPlane(uint32_t device_id, const Plane& plane, std::map<uint32_t, Device>* devices,
                  std::vector<TraceEvent>* events) {
  Device& device = (*devices)[device_id];
  device.name = plane.name;
  uint32_t ordinal = 0;
  for (const Line& line : plane.lines) {
    Resource& r = device.resources[DisplayId(line)];
    r.name = DisplayName(line);
    if (device_id == kHostThreadsDeviceId) r.sort_index = ++ordinal;
  }
  static const EventMetadata kNoMetadata;
  for (const Line& line : plane.lines) {
    if (DisplayName(line) == "Async XLA Ops") continue;
    for (const Event& ev : line.events) {
      const EventMetadata* md = plane.FindEventMetadata(ev.metadata_id);
      if (!md) md = &kNoMetadata;
      if (InternalEvent(md->name)) continue;
      TraceEvent& t = events->emplace_back();
      t.pid = device_id;
      t.tid = DisplayId(line);
      if (!md->display_name.empty()) {
        t.name = md->display_name;
        t.args["long_name"] = md->name;
      } else {
        t.name = md->name;
      }
      const int64_t offset = ev.has_num_occurrences ? 0 : ev.offset_ps;
      t.ts_ps = static_cast<uint64_t>(line.timestamp_ns) * 1000 + static_cast<uint64_t>(offset);
      t.dur_ps = static_cast<uint64_t>(ev.duration_ps);
      auto take = [&](const Stat& s) {
        if (s.kind == StatKind::kNone) return;
        const std::string& name = plane.StatName(s.metadata_id);
        if (InternalStat(name)) return;
        std::string value = StatText(plane, s);
        if (name == "step_name") t.name = value;
        t.args[name] = std::move(value);
      };
      for (const Stat& s : md->stats) take(s);
      for (const Stat& s : plane.StatsOf(ev)) take(s);
    }
  }
}

}  // namespace

std::string XSpaceToXprofJson(const xspace::XSpaceData& space, XprofTimeText time) {
  std::map<uint32_t, Device> devices;
  std::vector<TraceEvent> events;
  for (const Plane& p : space.planes) {
    if (p.name == "/host:CPU") {
      ConvertPlane(kHostThreadsDeviceId, p, &devices, &events);
      break;
    }
  }
  for (std::string_view prefix : {"/device:GPU:", "/device:TPU:", "/device:CUSTOM:"}) {
    bool any = false;
    for (const Plane& p : space.planes) {
      if (!StartsWith(p.name, prefix)) continue;
      any = true;
      ConvertPlane(kFirstDeviceId + static_cast<uint32_t>(p.id), p, &devices, &events);
    }
    if (any) break;
  }
  if (events.size() > kMaxEvents) {
    std::partial_sort(events.begin(), events.begin() + kMaxEvents, events.end(),
                      [](const TraceEvent& a, const TraceEvent& b) { return a.ts_ps < b.ts_ps; });
    events.resize(kMaxEvents);
  }

  std::string json = R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[)";
  for (const auto& [id, device] : devices) {
    const std::string pid = std::to_string(id);
    if (!device.name.empty()) {
      json += R"({"ph":"M","pid":)" + pid + R"(,"name":"process_name","args":{"name":)";
      AppendJsonString(&json, device.name);
      json += "}},";
    }
    json += R"({"ph":"M","pid":)" + pid + R"(,"name":"process_sort_index","args":{"sort_index":)" +
            pid + "}},";
    for (const auto& [rid, r] : device.resources) {
      const std::string tid = std::to_string(rid);
      if (!r.name.empty()) {
        json += R"({"ph":"M","pid":)" + pid + R"(,"tid":)" + tid +
                R"(,"name":"thread_name","args":{"name":)";
        AppendJsonString(&json, r.name);
        json += "}},";
      }
      json += R"({"ph":"M","pid":)" + pid + R"(,"tid":)" + tid +
              R"(,"name":"thread_sort_index","args":{"sort_index":)" +
              std::to_string(r.sort_index ? r.sort_index : rid) + "}},";
    }
  }
  for (const TraceEvent& t : events) {
    json += R"({"ph":"X","pid":)" + std::to_string(t.pid) + R"(,"tid":)" + std::to_string(t.tid) +
            R"(,"ts":)" + MicrosText(t.ts_ps, time) + R"(,"dur":)" +
            MicrosText(std::max<uint64_t>(t.dur_ps, 1), time) + R"(,"name":)";
    AppendJsonString(&json, t.name);
    if (!t.args.empty()) {
      json += R"(,"args":{)";
      for (const auto& [k, v] : t.args) {
        AppendJsonString(&json, k);
        json += ':';
        AppendJsonString(&json, v);
        json += ',';
      }
      json.back() = '}';
    }
    json += "},";
  }
  json += "{}]}";
  return json;
}

}  // namespace th::testing
