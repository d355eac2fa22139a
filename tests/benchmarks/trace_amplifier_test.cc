// The amplifier on synthetic traces (th_synth) and, when present, a real one.
#include "benchmarks/trace_amplifier.h"

#include <gtest/gtest.h>
#include <libdeflate.h>
#include <simdjson.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/synth/kineto_generator.h"

namespace th::bench {
namespace {

namespace fs = std::filesystem;

struct Ev {
  std::string ph, cat, name, ts_text;
  std::optional<int64_t> ts;  // ns
  int64_t id = -1, corr = -1, ext = -1;
};

// Exact µs text (0..3 decimals) -> ns.
std::optional<int64_t> ToNs(std::string_view t) {
  bool neg = !t.empty() && t[0] == '-';
  if (neg) t.remove_prefix(1);
  int64_t whole = 0, frac = 0;
  int digits = 0;
  size_t i = 0;
  for (; i < t.size() && t[i] != '.'; ++i) {
    if (t[i] < '0' || t[i] > '9') return std::nullopt;
    whole = whole * 10 + (t[i] - '0');
  }
  if (i < t.size()) {
    for (++i; i < t.size(); ++i, ++digits) {
      if (t[i] < '0' || t[i] > '9' || digits == 3) return std::nullopt;
      frac = frac * 10 + (t[i] - '0');
    }
  }
  for (; digits < 3; ++digits) frac *= 10;
  return (neg ? -1 : 1) * (whole * 1000 + frac);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::vector<Ev> ReadEvents(const std::string& text) {
  std::vector<Ev> out;
  simdjson::ondemand::parser parser;
  simdjson::padded_string json(text);
  simdjson::ondemand::document doc = parser.iterate(json);
  for (auto field : doc.get_object()) {
    if (std::string_view(field.unescaped_key()) != "traceEvents") continue;
    for (auto item : field.value().get_array()) {
      Ev e;
      for (auto f : item.get_object()) {
        const std::string_view k = f.unescaped_key();
        simdjson::ondemand::value v = f.value();
        if (k == "ph")
          e.ph = std::string(std::string_view(v.get_string()));
        else if (k == "cat")
          e.cat = std::string(std::string_view(v.get_string()));
        else if (k == "name")
          e.name = std::string(std::string_view(v.get_string()));
        else if (k == "ts")
          e.ts_text = std::string(Trim(v.raw_json_token())), e.ts = ToNs(e.ts_text);
        else if (k == "id")
          e.id = int64_t(v.get_int64());
        else if (k == "args") {
          for (auto a : v.get_object()) {
            const std::string_view ak = a.unescaped_key();
            if (ak == "correlation") e.corr = int64_t(a.value().get_int64());
            if (ak == "External id") e.ext = int64_t(a.value().get_int64());
          }
        }
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string Gunzip(const std::string& gz) {
  const auto* t = reinterpret_cast<const unsigned char*>(gz.data() + gz.size() - 4);
  std::string plain(size_t{t[0]} | size_t{t[1]} << 8 | size_t{t[2]} << 16 | size_t{t[3]} << 24,
                    '\0');
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  size_t n = 0;
  const auto r =
      libdeflate_gzip_decompress(d, gz.data(), gz.size(), plain.data(), plain.size(), &n);
  libdeflate_free_decompressor(d);
  EXPECT_EQ(r, LIBDEFLATE_SUCCESS);
  plain.resize(n);
  return plain;
}

fs::path TempDir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("th_amplify_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool RepeatedEvent(const Ev& e) { return e.ph != "M" && e.name != "Record Window End"; }

std::string GenerateTrace(const fs::path& dir, bool gzip) {
  synth::Scenario s;
  s.steps = 3;
  auto paths = synth::WriteKinetoTraces(s, dir.string(), gzip, nullptr);
  EXPECT_TRUE(paths.ok()) << paths.status().message();
  return paths.ok() ? (*paths)[0] : "";
}

// Copy k of source event j is output event j' with ts / ids shifted by k.
void ExpectAmplified(const std::vector<Ev>& src, const std::vector<Ev>& out,
                     const AmplifyStats& st) {
  std::vector<const Ev*> src_rep, out_rep, src_once, out_once;
  for (const Ev& e : src) (RepeatedEvent(e) ? src_rep : src_once).push_back(&e);
  for (const Ev& e : out) (RepeatedEvent(e) ? out_rep : out_once).push_back(&e);
  const int64_t k_total = st.repetitions;
  ASSERT_EQ(out_rep.size(), src_rep.size() * static_cast<size_t>(k_total));
  ASSERT_EQ(out_once.size(), src_once.size());
  EXPECT_EQ(static_cast<int64_t>(out.size()), st.events_written);
  EXPECT_EQ(static_cast<int64_t>(src.size()), st.source_events);
  EXPECT_EQ(static_cast<int64_t>(src_once.size()), st.metadata_events);
  EXPECT_GT(st.period_ns, 0);
  auto shifted = [](int64_t id, int64_t k, int64_t stride) {
    return id > 0 ? id + k * stride : id;
  };
  for (size_t i = 0; i < out_rep.size(); ++i) {
    const Ev& o = *out_rep[i];
    const Ev& s = *src_rep[i % src_rep.size()];
    const int64_t k = static_cast<int64_t>(i / src_rep.size());
    if (s.name.rfind("ProfilerStep#", 0) == 0) {
      ASSERT_EQ(o.name, "ProfilerStep#" +
                            std::to_string(std::stoll(s.name.substr(13)) + k * st.step_stride));
    } else {
      ASSERT_EQ(o.name, s.name);
    }
    ASSERT_EQ(o.ph, s.ph);
    if (s.ts) {
      ASSERT_TRUE(o.ts.has_value()) << o.ts_text;
      ASSERT_EQ(*o.ts, *s.ts + k * st.period_ns) << s.ts_text << " -> " << o.ts_text;
    }
    ASSERT_EQ(o.id, shifted(s.id, k, st.id_stride));
    ASSERT_EQ(o.corr, shifted(s.corr, k, st.id_stride));
    ASSERT_EQ(o.ext, shifted(s.ext, k, st.id_stride));
  }
  // Metadata is untouched; the window end moves to the last copy.
  for (size_t i = 0; i < out_once.size(); ++i) {
    EXPECT_EQ(out_once[i]->name, src_once[i]->name);
    if (out_once[i]->name == "Record Window End") {
      EXPECT_EQ(*out_once[i]->ts, *src_once[i]->ts + (k_total - 1) * st.period_ns);
    } else {
      EXPECT_EQ(out_once[i]->ts_text, src_once[i]->ts_text);
    }
  }
}

void ExpectLinksUnique(const std::vector<Ev>& out) {
  std::set<int64_t> runtime, cpu_ext, flow_s, flow_f;
  for (const Ev& e : out) {
    if (e.cat == "cuda_runtime") {
      EXPECT_TRUE(runtime.insert(e.corr).second) << "duplicate correlation " << e.corr;
    }
    if (e.cat == "cpu_op" || e.cat == "user_annotation") {
      EXPECT_TRUE(cpu_ext.insert(e.ext).second);
    }
    if (e.ph == "s") {
      EXPECT_TRUE(flow_s.insert(e.id).second);
    }
    if (e.ph == "f") {
      EXPECT_TRUE(flow_f.insert(e.id).second);
    }
  }
  EXPECT_EQ(flow_s, flow_f);
  for (const Ev& e : out) {
    if (e.cat == "kernel" && e.ext > 0) {
      EXPECT_TRUE(runtime.count(e.corr)) << "kernel lost its launch";
    }
    if (e.cat == "kernel" && e.ext > 0) {
      EXPECT_TRUE(cpu_ext.count(e.ext)) << "kernel lost its op";
    }
  }
}

TEST(TraceAmplifierTest, TriplesSyntheticTrace) {
  const fs::path dir = TempDir("triple");
  const std::string input = GenerateTrace(dir, false);
  AmplifyOptions options;
  options.repetitions = 3;
  const fs::path output = dir / "big.json";
  auto st = AmplifyKinetoTrace(input, output.string(), options);
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->repetitions, 3);

  const std::string src_text = ReadFile(input), out_text = ReadFile(output);
  EXPECT_EQ(st->source_bytes, static_cast<int64_t>(src_text.size()));
  EXPECT_EQ(st->bytes_written, static_cast<int64_t>(out_text.size()));
  EXPECT_EQ(st->file_bytes, st->bytes_written);
  // Header and footer are the source's bytes.
  const size_t head = src_text.find("\"traceEvents\": [");
  ASSERT_NE(head, std::string::npos);
  EXPECT_EQ(out_text.substr(0, head), src_text.substr(0, head));
  const size_t tail = src_text.rfind("\n  ],\n");
  EXPECT_EQ(out_text.substr(out_text.size() - (src_text.size() - tail)), src_text.substr(tail));
  EXPECT_NEAR(st->output_bytes_per_event / st->source_bytes_per_event, 1.0, 0.2);
  EXPECT_NEAR(st->output_repeated_bytes_per_event / st->source_repeated_bytes_per_event, 1.0, 0.05);

  const auto src = ReadEvents(src_text), out = ReadEvents(out_text);
  ExpectAmplified(src, out, *st);
  ExpectLinksUnique(out);
  EXPECT_EQ(out.back().name, "Record Window End");
  // Step numbers stay distinct: ProfilerStep#10..#12, #13..#15, #16..#18.
  EXPECT_EQ(st->step_stride, 3);
  std::set<std::string> steps;
  for (const Ev& e : out) {
    if (e.name.rfind("ProfilerStep#", 0) == 0) {
      EXPECT_TRUE(steps.insert(e.name).second) << e.name;
    }
  }
  EXPECT_EQ(steps.size(), 9u);
  EXPECT_EQ(*steps.rbegin(), "ProfilerStep#18");
  // Copies do not overlap in time: each starts after the previous one ended.
  int64_t src_max = 0;
  for (const Ev& e : src)
    if (RepeatedEvent(e) && e.ts) src_max = std::max(src_max, *e.ts);
  int64_t out_max = 0;
  for (const Ev& e : out)
    if (RepeatedEvent(e) && e.ts) out_max = std::max(out_max, *e.ts);
  EXPECT_EQ(out_max, src_max + 2 * st->period_ns);
  fs::remove_all(dir);
}

TEST(TraceAmplifierTest, GzipInAndOutUntilTargetSize) {
  const fs::path dir = TempDir("gzip");
  const std::string input = GenerateTrace(dir, true);
  const std::string src_text = Gunzip(ReadFile(input));
  const int64_t target = static_cast<int64_t>(src_text.size()) * 5 / 2;
  const fs::path output = dir / "big.json.gz";
  auto st = AmplifyKinetoTrace(input, output.string(), target);
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_GE(st->bytes_written, target);
  EXPECT_EQ(st->repetitions, 3);
  const std::string gz = ReadFile(output);
  EXPECT_EQ(st->file_bytes, static_cast<int64_t>(gz.size()));
  EXPECT_LT(st->file_bytes, st->bytes_written / 4);
  const std::string out_text = Gunzip(gz);
  EXPECT_EQ(static_cast<int64_t>(out_text.size()), st->bytes_written);
  const auto src = ReadEvents(src_text), out = ReadEvents(out_text);
  ExpectAmplified(src, out, *st);
  ExpectLinksUnique(out);
  fs::remove_all(dir);
}

TEST(TraceAmplifierTest, KeepsDecimalShapeOfOldTraces) {
  const fs::path dir = TempDir("shape");
  const fs::path input = dir / "old.json";
  std::ofstream(input) << R"({
  "schemaVersion": 1,
  "traceEvents": [
  {
    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7,
    "ts": 1661938466265032, "dur": 25,
    "args": {
      "External id": 1
    }
  },
  {
    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7,
    "ts": 1661938466265040, "dur": 5,
    "args": {
      "External id": 1, "cbid": 211, "correlation": 9
    }
  },
  {
    "ph": "s", "id": 9, "pid": 7, "tid": 7, "ts": 1661938466265040,
    "cat": "ac2g", "name": "ac2g"
  },
  {
    "name": "process_name", "ph": "M", "ts": 1661938466265032, "pid": 7, "tid": 0,
    "args": {
      "name": "python"
    }
  }
  ],
  "traceName": "old.json"
}
)";
  AmplifyOptions options;
  options.repetitions = 2;
  options.gap_ns = 1000;
  auto st = AmplifyKinetoTrace(input.string(), (dir / "a.json").string(), options);
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->period_ns, 26000);  // span 25 µs + 1 µs gap
  EXPECT_EQ(st->id_stride, 10);
  const std::string a = ReadFile(dir / "a.json");
  EXPECT_NE(a.find("\"ts\": 1661938466265058, \"dur\": 25,"), std::string::npos)
      << a;  // stays integer
  EXPECT_NE(a.find("\"External id\": 11, \"cbid\": 211, \"correlation\": 19"), std::string::npos);
  EXPECT_NE(a.find("\"ph\": \"s\", \"id\": 19,"), std::string::npos);
  EXPECT_EQ(ReadEvents(a).size(), 7u);

  options.gap_ns = 1;  // not a whole µs: widen to 3 decimals
  st = AmplifyKinetoTrace(input.string(), (dir / "b.json").string(), options);
  ASSERT_TRUE(st.ok()) << st.status().message();
  const std::string b = ReadFile(dir / "b.json");
  EXPECT_NE(b.find("\"ts\": 1661938466265032, \"dur\": 25,"),
            std::string::npos);  // copy 0 untouched
  EXPECT_NE(b.find("\"ts\": 1661938466265057.001, \"dur\": 25,"), std::string::npos) << b;
  fs::remove_all(dir);
}

TEST(TraceAmplifierTest, RejectsBadInput) {
  const fs::path dir = TempDir("bad");
  EXPECT_EQ(AmplifyKinetoTrace((dir / "missing.json").string(), (dir / "o.json").string(), 1)
                .status()
                .code(),
            StatusCode::kIoError);
  std::ofstream(dir / "broken.json") << "{\"traceEvents\": [ {\"ph\": ";
  EXPECT_EQ(AmplifyKinetoTrace((dir / "broken.json").string(), (dir / "o.json").string(), 1)
                .status()
                .code(),
            StatusCode::kInvalidInput);
  std::ofstream(dir / "noevents.json") << "{\"schemaVersion\": 1}";
  EXPECT_EQ(AmplifyKinetoTrace((dir / "noevents.json").string(), (dir / "o.json").string(), 1)
                .status()
                .code(),
            StatusCode::kInvalidInput);
  fs::remove_all(dir);
}

TEST(TraceAmplifierTest, ParsesByteSizes) {
  EXPECT_EQ(ParseByteSize("1G").value(), int64_t{1} << 30);
  EXPECT_EQ(ParseByteSize("512M").value(), int64_t{512} << 20);
  EXPECT_EQ(ParseByteSize("64KiB").value(), int64_t{64} << 10);
  EXPECT_EQ(ParseByteSize("2GB").value(), int64_t{2} << 30);
  EXPECT_EQ(ParseByteSize("1000").value(), 1000);
  EXPECT_FALSE(ParseByteSize("1X").ok());
  EXPECT_FALSE(ParseByteSize("G").ok());
  EXPECT_FALSE(ParseByteSize("-1G").ok());
}

// A real Kineto trace (HTA test data), read at run time from ../shared/data.
TEST(TraceAmplifierTest, RealTraceDoubles) {
  const fs::path input =
      fs::path(TRACEHOUND_SHARED_DATA) / "hta/tests/data/trace_diff/test/test.json.gz";
  if (!fs::exists(input)) GTEST_SKIP() << "no shared data at " << input;
  const fs::path dir = TempDir("real");
  AmplifyOptions options;
  options.repetitions = 2;
  auto st = AmplifyKinetoTrace(input.string(), (dir / "big.json").string(), options);
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_NEAR(st->output_bytes_per_event / st->source_bytes_per_event, 1.0, 0.2);
  EXPECT_NEAR(st->output_repeated_bytes_per_event / st->source_repeated_bytes_per_event, 1.0, 0.05);
  const auto out = ReadEvents(ReadFile(dir / "big.json"));
  EXPECT_EQ(static_cast<int64_t>(out.size()), st->events_written);
  EXPECT_EQ(st->events_written, 2 * st->source_events - st->metadata_events);
  std::set<int64_t> runtime;
  for (const Ev& e : out)
    if (e.cat == "cuda_runtime") {
      EXPECT_TRUE(runtime.insert(e.corr).second);
    }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace th::bench
