#include "core/import/kineto/kineto_importer.h"

#include <simdjson.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/info.h>
#include <tbb/parallel_pipeline.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <mutex>

#include "core/import/kineto/chunk_parser.h"
#include "core/import/kineto/decimal_time.h"
#include "core/import/kineto/graph_builder.h"
#include "core/import/kineto/merged_ranks.h"
#include "core/import/kineto/top_level_reader.h"
#include "core/import/kineto/xprof_json.h"

namespace th::kineto {

namespace {

std::optional<int64_t> IntOf(simdjson::dom::element e) {
  int64_t i;
  if (!e.get_int64().get(i)) return i;
  uint64_t u;
  if (!e.get_uint64().get(u)) return static_cast<int64_t>(u);
  double d;
  int64_t x;
  if (!e.get_double().get(d))
    return DoubleToInt64(d, &x) ? std::optional<int64_t>(x) : std::nullopt;
  std::string_view s;
  if (!e.get_string().get(s)) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size() && !s.empty()) return v;
  }
  return std::nullopt;
}

std::string StringOf(simdjson::dom::element e) {
  std::string_view s;
  if (!e.get_string().get(s)) return std::string(s);
  return simdjson::minify(e);
}

// Interprets the captured top-level values; a malformed one is a trust entry,
// not a failure (the events are what matters).
void ReadTopLevel(const std::map<std::string, std::string>& values, Trace* trace) {
  simdjson::dom::parser parser;
  TraceInfo& info = trace->info;
  for (const auto& [key, raw] : values) {
    simdjson::dom::element e;
    if (parser.parse(raw).get(e)) {
      // Not read (deviceProperties would lose every device): data loss, named.
      trace->trust.Add(TrustId::kMalformedTopLevelValue, 1, key);
      continue;
    }
    if (key == "deviceProperties") {
      simdjson::dom::array arr;
      if (e.get_array().get(arr)) continue;
      for (simdjson::dom::element d : arr) {
        DeviceInfo dev;
        simdjson::dom::element f;
        if (!d["id"].get(f)) dev.id = IntOf(f).value_or(-1);
        if (!d["name"].get(f)) dev.name = StringOf(f);
        if (!d["totalGlobalMem"].get(f)) dev.total_global_mem = IntOf(f).value_or(0);
        if (!d["computeMajor"].get(f)) dev.compute_major = static_cast<int>(IntOf(f).value_or(0));
        if (!d["computeMinor"].get(f)) dev.compute_minor = static_cast<int>(IntOf(f).value_or(0));
        if (!d["numSms"].get(f)) dev.num_sms = static_cast<int>(IntOf(f).value_or(0));
        info.devices.push_back(std::move(dev));
      }
    } else if (key == "distributedInfo") {
      DistributedInfo di;
      simdjson::dom::element f;
      if (!e["rank"].get(f)) di.rank = IntOf(f);
      if (!e["world_size"].get(f)) di.world_size = IntOf(f);
      if (!e["pg_count"].get(f)) di.pg_count = IntOf(f);
      if (!e["backend"].get(f)) di.backend = StringOf(f);
      if (!e["nccl_version"].get(f)) di.nccl_version = StringOf(f);
      info.distributed = std::move(di);
    } else if (key == "baseTimeNanoseconds") {
      info.base_time_ns = IntOf(e);
    } else if (key == "schemaVersion") {
      info.schema_version = IntOf(e);
    } else if (key == "displayTimeUnit") {
      info.display_time_unit = StringOf(e);
    } else {
      info.metadata[key] = raw.size() > 4096 ? raw.substr(0, 4096) + "..." : raw;
    }
  }
}

// An autograd profiler's bare event array lacks the top-level facts and
// device activity (autograd_profiler.h); another tool's plain array is left as
// it was.
void NoteBareArray(const GraphBuilder& builder, Trace* trace) {
  if (!builder.autograd_profiler()) return;
  trace->trust.Add(TrustId::kBareEventArray);
  trace->info.format = "autograd_profiler_json";
  bool cuda = false;
  const EventGraph& g = trace->graph;
  for (const Track& t : g.tracks)
    cuda |= t.pid_str != kEmptyString && g.strings.Get(t.pid_str) == "CUDA functions";
  trace->trust.Add(
      TrustId::kAutogradProfilerTrace, 1,
      cuda ? "\"CUDA functions\" events kept as kind other (not kernels)" : "CPU operators only");
}

// XProf JSON: the accelerator planes ("/device:GPU:0", pid = 1 + plane id),
// as the XSpace importer lists them.
void AddXprofDevices(Trace* trace) {
  const EventGraph& g = trace->graph;
  std::map<int64_t, StringId> planes;
  for (const Track& t : g.tracks) {
    std::string_view name = g.strings.Get(t.process_name);
    if (t.pid_str == kEmptyString && t.pid >= 1 && t.pid <= kXprofMaxDevicePid &&
        (name.starts_with("/device:GPU:") || name.starts_with("/device:TPU:")))
      planes.emplace(t.pid, t.process_name);
  }
  for (const auto& [pid, name] : planes) {
    DeviceInfo d;
    d.id = pid - 1;
    d.name = std::string(g.strings.Get(name));
    trace->info.devices.push_back(std::move(d));
  }
}

// Buffers handed around the pipeline are reused: fresh 4 MiB buffers per
// chunk cost page faults that showed up as ~10% of import time.
template <typename T>
class Pool {
 public:
  T* Acquire() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) {
      all_.push_back(std::make_unique<T>());
      return all_.back().get();
    }
    T* t = free_.back();
    free_.pop_back();
    return t;
  }
  void Release(T* t) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(t);
  }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<T>> all_;
  std::vector<T*> free_;
};

}  // namespace

namespace {

// The same strings under the same ids, for a trace cut from another.
void CopyStrings(const StringPool& from, StringPool* to) {
  for (StringId id = 0; id < from.size(); ++id) to->Intern(from.Get(id));
}

// One trace per rank of a merged file (merged_ranks.h): each part is built by
// a GraphBuilder of its own, as if the rank had its file. The file's own
// defects and trust entries go to the first rank, so each is counted once.
std::vector<std::unique_ptr<Trace>> TracesOfRanks(Trace& file, GraphBuilder& whole,
                                                  MergedRanks merged) {
  std::vector<std::unique_ptr<Trace>> out;
  for (size_t p = 0; p < merged.parts.size(); ++p) {
    RankPart& part = merged.parts[p];
    auto t = std::make_unique<Trace>();
    t->info = file.info;
    t->info.rank = part.rank;
    t->info.rank_source = kMergedRanksRule;
    CopyStrings(file.graph.strings, &t->graph.strings);
    // The file's top-level keys (devices, distributedInfo) hold for every rank.
    if (t->info.distributed) t->info.distributed->rank = part.rank;
    t->trust.Add(
        TrustId::kMergedRanksSplit, 1,
        std::string(kMergedRanksRule) + ": " + std::to_string(merged.parts.size()) + " ranks");
    if (p == 0) {
      part.chunk.defects = whole.defects();
      t->trust.Merge(file.trust);
      t->trust.Add(TrustId::kMergedTraceEventWithoutRank, merged.unassigned);
    }
    GraphBuilder builder(t.get());
    builder.Append(std::move(part.chunk));
    builder.Finish(builder.NumberTracksByFirstEvent(part.tracks));
    out.push_back(std::move(t));
  }
  return out;
}

StatusOr<std::vector<std::unique_ptr<Trace>>> Import(ByteSource& text, const ImportOptions& options,
                                                     bool split_ranks) {
  auto started = std::chrono::steady_clock::now();
  auto trace = std::make_unique<Trace>();
  trace->info.path = text.name();
  trace->info.format = "kineto_json";

  TopLevelReader reader(text, options.chunk_bytes, options.keep_truncated);
  GraphBuilder builder(trace.get());
  SharedTables shared(&trace->graph.strings);
  tbb::enumerable_thread_specific<ChunkParser> parsers(&shared);
  size_t tokens = options.max_chunks_in_flight
                      ? options.max_chunks_in_flight
                      : static_cast<size_t>(2 * std::max(1, tbb::info::default_concurrency()));

  Status failure;
  std::mutex failure_mu;
  auto fail = [&](Status s) {
    std::lock_guard<std::mutex> lock(failure_mu);
    if (failure.ok()) failure = std::move(s);
  };
  std::atomic<bool> stop{false};
  const std::string& name = text.name();

  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a) {
    return std::chrono::duration<double>(Clock::now() - a).count();
  };
  double read_s = 0, merge_s = 0;
  std::atomic<int64_t> parse_ns{0};
  Pool<TextChunk> text_pool;
  Pool<ParsedChunk> parsed_pool;
  // Decided on the first chunk (the keys before traceEvents are read by then),
  // before any chunk is parsed; written and read by the serial input stage only.
  bool xprof = false;
  tbb::parallel_pipeline(
      tokens,
      tbb::make_filter<void, TextChunk*>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) -> TextChunk* {
                                           if (stop.load()) {
                                             fc.stop();
                                             return nullptr;
                                           }
                                           TextChunk* chunk = text_pool.Acquire();
                                           auto t0 = Clock::now();
                                           auto more = reader.Next(chunk);
                                           read_s += seconds(t0);
                                           if (!more.ok() || !*more) {
                                             if (!more.ok()) {
                                               fail(more.status());
                                               stop = true;
                                             }
                                             text_pool.Release(chunk);
                                             fc.stop();
                                             return nullptr;
                                           }
                                           if (chunk->sequence == 0) {
                                             xprof = IsXprofTopLevel(reader.top_level_values()) ||
                                                     HasXprofProcessNames(std::string_view(
                                                         chunk->data, chunk->length));
                                           }
                                           chunk->xprof = xprof;
                                           return chunk;
                                         }) &
          tbb::make_filter<TextChunk*, ParsedChunk*>(
              tbb::filter_mode::parallel,
              [&](TextChunk* chunk) {
                ParsedChunk* parsed = parsed_pool.Acquire();
                auto t0 = Clock::now();
                if (!stop.load()) parsers.local().Parse(*chunk, name, parsed);
                parse_ns +=
                    std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
                parsed->release_before = chunk->release_before;
                text_pool.Release(chunk);
                return parsed;
              }) &
          tbb::make_filter<ParsedChunk*, void>(tbb::filter_mode::serial_in_order,
                                               [&](ParsedChunk* parsed) {
                                                 auto t0 = Clock::now();
                                                 if (!stop.load()) {
                                                   if (!parsed->error.empty()) {
                                                     fail(InvalidInput(parsed->error));
                                                     stop = true;
                                                   } else {
                                                     builder.Append(std::move(*parsed));
                                                     reader.ReleaseBefore(parsed->release_before);
                                                   }
                                                 }
                                                 parsed->Reset();
                                                 parsed_pool.Release(parsed);
                                                 merge_s += seconds(t0);
                                               }));
  if (!failure.ok()) return failure;
  if (!reader.found_events()) {
    return OtherFormat(name + ": not a Chrome/Kineto trace: the JSON object has no traceEvents");
  }
  ReadTopLevel(reader.top_level_values(), trace.get());
  if (reader.trailing_comma()) {
    trace->trust.Add(TrustId::kTrailingComma);
  }
  std::string cut = text.truncation();
  if (reader.truncated_at() || !cut.empty()) {
    std::string where = cut.empty() ? "" : cut + "; ";
    if (reader.truncated_at())
      where += "JSON ends at text offset " + std::to_string(*reader.truncated_at());
    trace->trust.Add(TrustId::kInputTruncated, 1, where);
  }
  auto finish_start = Clock::now();
  std::vector<std::unique_ptr<Trace>> traces;
  if (split_ranks && !xprof) {
    if (auto merged = SplitMergedRanks(trace->graph, shared.tracks(), builder.names(),
                                       builder.event_ranks())) {
      trace->info.text_bytes = reader.text_bytes();
      trace->info.file_bytes = text.stored_size();
      traces = TracesOfRanks(*trace, builder, std::move(*merged));
      double seconds_each =
          std::chrono::duration<double>(Clock::now() - started).count() / traces.size();
      for (auto& t : traces) t->info.import_seconds = seconds_each;
      return traces;
    }
  }
  if (xprof) {
    trace->info.format = "xprof_json";
    builder.SetXprofJson();
  }
  if (reader.top_level_array()) builder.SetTopLevelArray();
  builder.Finish(builder.NumberTracksByFirstEvent(shared.tracks()));
  if (xprof) AddXprofDevices(trace.get());
  if (reader.top_level_array() && !xprof) NoteBareArray(builder, trace.get());
  trace->info.finish_seconds = seconds(finish_start);
  trace->info.read_seconds = read_s;
  trace->info.parse_seconds = static_cast<double>(parse_ns.load()) / 1e9;
  trace->info.merge_seconds = merge_s;
  trace->info.text_bytes = reader.text_bytes();
  trace->info.file_bytes = text.stored_size();
  trace->info.import_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  traces.push_back(std::move(trace));
  return traces;
}

}  // namespace

StatusOr<std::unique_ptr<Trace>> ImportKinetoJson(ByteSource& text, const ImportOptions& options) {
  auto traces = Import(text, options, /*split_ranks=*/false);
  if (!traces.ok()) return traces.status();
  return std::move(traces->front());
}

StatusOr<std::vector<std::unique_ptr<Trace>>> ImportKinetoJsonRanks(ByteSource& text,
                                                                    const ImportOptions& options) {
  return Import(text, options, /*split_ranks=*/true);
}

}  // namespace th::kineto
