#include "trace_index.h"

#include <tracehound/sorted_runs.h>

#include <algorithm>
#include <exception>
#include <set>
#include <stdexcept>
#include <string_view>

#include "beside.h"

namespace th::critical_path {
namespace {

uint8_t RoleOfName(std::string_view n) {
  uint8_t r = 0;
  if (n == "cudaLaunchKernel" || n == "cudaMemcpyAsync" || n == "cudaHostAlloc") r |= kRuntimeLock;
  if (n == "cudaDeviceSynchronize" || n == "cudaStreamSynchronize" || n == "cudaEventQuery" ||
      n == "cudaEventSynchronize" || n == "cudaMemcpy" || n == "cudaMemcpyAsync")
    r |= kBlocking;
  if (n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" || n == "cuLaunchKernel" ||
      n == "cuLaunchKernelEx" || n == "cudaMemcpyAsync" || n == "cudaMemsetAsync" ||
      n == "hipLaunchKernel" || n == "hipExtModuleLaunchKernel" || n == "hipMemsetAsync" ||
      n == "hipMemcpyAsync" || n == "hipMemcpyWithStream")
    r |= kLaunchCall;
  if (n == "cudaEventRecord" || n == "hipEventRecord") r |= kEventRecord;
  if (n == "Stream Sync") r |= kStreamSync;
  if (n == "Context Sync") r |= kContextSync;
  if (n == "Event Sync") r |= kEventSync;
  if (n == "Stream Wait Event") r |= kStreamWait;
  return r;
}

bool IsHostKind(uint32_t kind) { return kind == TH_EVENT_RUNTIME || kind == TH_EVENT_DRIVER; }

// Events by (start, row).
auto ByStart(const th::sdk::Trace& t) {
  return
      [&t](uint32_t a, uint32_t b) { return t.ts(a) < t.ts(b) || (t.ts(a) == t.ts(b) && a < b); };
}

// Links by their call's (ts, row).
bool ByCall(const TraceIndex::Link& a, const TraceIndex::Link& b) {
  return a.ts < b.ts || (a.ts == b.ts && a.call < b.call);
}

}  // namespace

TraceIndex::TraceIndex(const th::sdk::Trace& t, std::string_view annotation, bool activity_lookup)
    : t_(t), activity_lookup_(activity_lookup) {
  struct Joined {
    std::thread& thread;
    ~Joined() {
      if (thread.joinable()) thread.join();
    }
  };
  Joined joined_sort{host_sort_};
  on_stream_.resize(t.track_count());
  for (uint32_t k = 0; k < t.track_count(); ++k)
    on_stream_[k] = t.track(k).kind == TH_TRACK_GPU_STREAM;
  // The per-event arrays (their first touch: page faults) and the name and
  // thread passes on a thread of their own, while this one lists the host
  // and GPU events; they write different members.
  std::vector<uint32_t> gpu;
  std::vector<std::pair<int64_t, uint32_t>> calls;
  RunBeside(
      [&] {
        role_.assign(t.size(), 0);
        queue_bits_.assign(t.size(), 0);
        IndexNames(t, annotation);
        MergeThreads(t);
      },
      [&] { calls = ListEvents(t, &gpu, activity_lookup); });
  LinkCalls(t, CallByCorrelation(std::move(calls)), gpu);
  gpu = {};
  IndexUnstreamedSyncs(t);
  IndexQueues(t);
  host_sort_.join();
  if (host_sort_error_) std::rethrow_exception(host_sort_error_);
}

void TraceIndex::IndexNames(const th::sdk::Trace& t, std::string_view annotation) {
  // Per name id: 0 not looked at yet, else 1 + its role (a byte), with
  // kAnnotated when it holds the annotation.
  constexpr uint16_t kAnnotated = 0x200;
  std::vector<uint16_t> by_name;
  for (uint64_t i = 0; i < t.size(); ++i) {
    const uint32_t id = t.name_id(i);
    if (id >= by_name.size()) by_name.resize(std::max<size_t>(id + 1, 2 * by_name.size()), 0);
    if (by_name[id] == 0) {
      const std::string_view n = t.name(i);
      by_name[id] = static_cast<uint16_t>(RoleOfName(n) + 1);
      if (!annotation.empty() && n.find(annotation) != std::string_view::npos)
        by_name[id] |= kAnnotated;
      if (n == "cudaStreamWaitEvent") stream_wait_names_.insert(id);
    }
    role_[i] = static_cast<uint8_t>((by_name[id] & ~kAnnotated) - 1);
    const uint32_t kind = t.kind(i);
    if (kind == TH_EVENT_GPU_SYNC) has_sync_ = true;
    if ((role_[i] & kEventRecord) && IsHostKind(kind))
      records_by_thread_[t.track_index(i)].push_back(static_cast<uint32_t>(i));
    if ((by_name[id] & kAnnotated) && kind != TH_EVENT_FLOW && kind != TH_EVENT_METADATA &&
        kind != TH_EVENT_GPU_USER_ANNOTATION && !on_stream_[t.track_index(i)])
      annotated_.push_back(static_cast<uint32_t>(i));
  }
  for (auto& [track, rows] : records_by_thread_) std::sort(rows.begin(), rows.end(), ByStart(t));
}

std::vector<std::pair<int64_t, uint32_t>> TraceIndex::ListEvents(const th::sdk::Trace& t,
                                                                 std::vector<uint32_t>* gpu,
                                                                 bool activity_lookup) {
  std::vector<std::pair<int64_t, uint32_t>> host;  // (correlation, row) of host calls, by row
  // Room for every event: only the pages written are touched, and no growth
  // copies them again.
  host.reserve(t.size());
  host_by_start_.reserve(t.size());
  gpu->reserve(t.size());
  if (activity_lookup) activity_at_.reserve(t.gpu_activity().size());
  for (uint64_t i = 0; i < t.size(); ++i) {
    const uint32_t k = t.kind(i);
    const bool on_host = IsHostKind(k);
    if ((on_host || k == TH_EVENT_CPU_OP) && !on_stream_[t.track_index(i)])
      host_by_start_.push_back(static_cast<uint32_t>(i));
    const bool on_gpu = t.is_gpu_activity(i);
    if (on_gpu && activity_lookup) activity_at_.emplace_back(t.ts(i), static_cast<uint32_t>(i));
    if (on_host) {
      if (const int64_t c = t.correlation(i); c > 0) host.emplace_back(c, static_cast<uint32_t>(i));
    } else if (on_gpu || k == TH_EVENT_GPU_SYNC) {
      gpu->push_back(static_cast<uint32_t>(i));
    }
  }
  // Activities come in a few runs by time (one per stream): merged.
  th::sdk::StableSortRuns(activity_at_);
  // The host events' sort (reads columns only) beside the rest of the index.
  host_sort_ = std::thread([this, trace = &t] {
    try {
      th::sdk::StableSortRuns(host_by_start_, ByStart(*trace));
    } catch (...) {
      host_sort_error_ = std::current_exception();
    }
  });
  return host;
}

void TraceIndex::LinkCalls(const th::sdk::Trace& t, const CallByCorrelation& call_of,
                           const std::vector<uint32_t>& gpu) {
  // Each GPU event's call: the host call with its correlation; else, for an
  // activity (XSpace captures carry launch edges, not correlation ids), its
  // launch edge's host call. Two halves of the GPU events on two threads,
  // each into its own part of links_ (with its own cursor over the launch
  // edges: rows ascend within a half), the second's then moved up.
  links_.resize(gpu.size());
  const auto link = [&](size_t from, size_t to) {
    uint64_t cursor = 0;
    size_t id_cursor = 0, out = from;
    for (size_t j = from; j < to; ++j) {
      const uint32_t i = gpu[j];
      uint32_t call = kNone;
      if (const int64_t c = t.correlation(i); c > 0) call = call_of(c, &id_cursor);
      if (call == kNone && t.is_gpu_activity(i)) {
        const uint32_t launch = t.launch_of(i, cursor);
        if (launch != th::sdk::kNoRow && IsHostKind(t.kind(launch))) call = launch;
      }
      if (call != kNone) links_[out++] = Link{t.ts(call), call, i};
    }
    return out - from;
  };
  const size_t half = gpu.size() / 2;
  size_t first = 0, second = 0;
  RunBeside([&] { second = link(half, gpu.size()); }, [&] { first = link(0, half); });
  if (first < half)  // (moving a range onto itself is not allowed)
    std::move(links_.begin() + static_cast<std::ptrdiff_t>(half),
              links_.begin() + static_cast<std::ptrdiff_t>(half + second),
              links_.begin() + static_cast<std::ptrdiff_t>(first));
  links_.resize(first + second);
  // By the call's time, then call; a call's events stay by row (stable).
  th::sdk::StableSortFewRuns(links_, ByCall);
}

void TraceIndex::IndexUnstreamedSyncs(const th::sdk::Trace& t) {
  for (const Link& l : links_) {
    if (t.kind(l.gpu) != TH_EVENT_GPU_SYNC) continue;
    const uint32_t row = t.args_row(l.gpu);
    if (row == th::sdk::kNoRow || t.gpu_stream(row) == -1) unstreamed_syncs_.push_back(l);
  }
  std::sort(
      unstreamed_syncs_.begin(), unstreamed_syncs_.end(),
      [by_start = ByStart(t)](const Link& a, const Link& b) { return by_start(a.gpu, b.gpu); });
}

void TraceIndex::IndexQueues(const th::sdk::Trace& t) {
  // Per stream track: its launches (by the launch call's time, then call) and
  // the starts of its activities; per CPU track its launches. Each list sized
  // exactly first (counted), so that no growth copies it; the launches come
  // in order from links_, the starts in a few runs by time. The launch lists
  // are kept only for the event-sync queries, which need a cudaEventRecord:
  // without one, the threads' lists are not even built.
  const bool keep = !records_by_thread_.empty();
  const auto is_launch = [&](const Link& l) {
    return on_stream_[t.track_index(l.gpu)] && (role_[l.call] & kLaunchCall) &&
           t.is_gpu_activity(l.gpu);
  };
  std::vector<uint32_t> per_stream(t.track_count(), 0), per_thread(t.track_count(), 0);
  for (const Link& l : links_) {
    if (!is_launch(l)) continue;
    ++per_stream[t.track_index(l.gpu)];
    if (keep) ++per_thread[t.track_index(l.call)];
  }
  std::vector<std::vector<uint32_t>> start_at(t.track_count());
  std::vector<std::vector<Link>> by_thread(t.track_count()), by_stream(t.track_count());
  for (uint32_t track = 0; track < t.track_count(); ++track) {
    start_at[track].reserve(per_stream[track]);
    by_stream[track].reserve(per_stream[track]);
    by_thread[track].reserve(per_thread[track]);
  }
  for (const Link& l : links_) {
    if (!is_launch(l)) continue;
    start_at[t.track_index(l.gpu)].push_back(l.gpu);
    if (keep) by_thread[t.track_index(l.call)].push_back(l);
    by_stream[t.track_index(l.gpu)].push_back(l);
  }
  // HTA's queue length: +1 at a launch, -1 when the activity starts; at one
  // instant the launches count first, and among launches at one instant the
  // lowest activity row first: so of a group of launches at one instant only
  // the lowest row can find the queue at 1.
  for (uint32_t track = 0; track < t.track_count(); ++track) {
    auto& launches = by_stream[track];
    if (launches.empty()) continue;
    auto& starts = start_at[track];
    th::sdk::StableSortRuns(starts, ByStart(t));
    int32_t q = 0;
    size_t a = 0;
    const auto launch_group = [&]() {  // the launches at launches[a].ts
      size_t b = a + 1;
      uint32_t lowest = launches[a].gpu;
      for (; b < launches.size() && launches[b].ts == launches[a].ts; ++b)
        lowest = std::min(lowest, launches[b].gpu);
      if (q == 0) queue_bits_[lowest] |= kOneAfterLaunch;
      q += static_cast<int32_t>(b - a);
      a = b;
    };
    for (uint32_t k : starts) {
      while (a < launches.size() && launches[a].ts <= t.ts(k)) launch_group();
      if (--q == 0) queue_bits_[k] |= kEmptyAfterStart;
    }
    while (a < launches.size()) launch_group();
    starts = {};
    if (keep) launches_by_stream_[track] = std::move(launches);
  }
  for (uint32_t track = 0; track < t.track_count(); ++track)
    if (!by_thread[track].empty()) launches_by_thread_[track] = std::move(by_thread[track]);
}

// HTA's rule: the one thread with host ops named "*autograd*" (backward) is
// merged into the one thread with ops named "*forward*", when both exist
// and differ.
void TraceIndex::MergeThreads(const th::sdk::Trace& t) {
  thread_of_.resize(t.track_count());
  for (uint32_t k = 0; k < thread_of_.size(); ++k) thread_of_[k] = k;
  // Per name id: 1 forward, 2 autograd (bits), 4 looked at; a byte per event.
  std::vector<uint8_t> by_name;
  std::set<int64_t> fwd, bwd;
  std::unordered_map<int64_t, uint32_t> track_of_tid;
  std::vector<uint8_t> marks(t.track_count(), 0);         // per track: the bits of its ops
  std::vector<uint64_t> last_marked(t.track_count(), 0);  // per track: its last marked op
  for (uint64_t i = 0; i < t.size(); ++i) {
    const uint32_t k = t.kind(i);
    if (k != TH_EVENT_CPU_OP && k != TH_EVENT_USER_ANNOTATION) continue;
    const uint32_t id = t.name_id(i);
    if (id >= by_name.size()) by_name.resize(std::max<size_t>(id + 1, 2 * by_name.size()), 0);
    if (by_name[id] == 0) {
      const std::string_view n = t.name(i);
      by_name[id] = static_cast<uint8_t>(4 | (n.find("forward") != std::string_view::npos ? 1 : 0) |
                                         (n.find("autograd") != std::string_view::npos ? 2 : 0));
    }
    const uint8_t m = by_name[id] & 3;
    if (!m) continue;
    const uint32_t track = t.track_index(i);
    marks[track] |= m;
    last_marked[track] = i;
  }
  // Per thread id, the track of its last marked op (by row).
  std::unordered_map<int64_t, uint64_t> last_of_tid;
  for (uint32_t k = 0; k < marks.size(); ++k) {
    if (!marks[k]) continue;
    const int64_t tid = t.track(k).tid;
    if (marks[k] & 1) fwd.insert(tid);
    if (marks[k] & 2) bwd.insert(tid);
    auto [at, fresh] = last_of_tid.try_emplace(tid, last_marked[k]);
    if (fresh || last_marked[k] > at->second) {
      at->second = last_marked[k];
      track_of_tid[tid] = k;
    }
  }
  if (fwd.size() != 1 || bwd.size() != 1 || *fwd.begin() == *bwd.begin()) return;
  const uint32_t to = track_of_tid[*fwd.begin()];
  const int64_t from_tid = *bwd.begin();
  for (uint32_t k = 0; k < thread_of_.size(); ++k)
    if (t.track(k).kind == TH_TRACK_CPU && t.track(k).tid == from_tid) thread_of_[k] = to;
}

uint32_t TraceIndex::RecordedActivity(uint32_t wait_call) const {
  auto recs = records_by_thread_.find(t_.track_index(wait_call));
  if (recs == records_by_thread_.end()) return kNone;
  const int64_t at = t_.ts(wait_call);
  uint32_t record = kNone;
  for (uint32_t r : recs->second) {
    if (t_.ts(r) > at) break;
    record = r;
  }
  if (record == kNone) return kNone;
  const int64_t rts = t_.ts(record);
  auto last_before = [&](const std::vector<Link>& v) -> const Link* {
    auto it = std::upper_bound(v.begin(), v.end(), rts,
                               [](int64_t ts, const Link& l) { return ts < l.ts; });
    return it == v.begin() ? nullptr : &*(it - 1);
  };
  auto th = launches_by_thread_.find(t_.track_index(record));
  if (th == launches_by_thread_.end()) return kNone;
  const Link* own = last_before(th->second);
  if (!own) return kNone;
  const Link* prev = last_before(launches_by_stream_.at(t_.track_index(own->gpu)));
  return prev ? prev->gpu : kNone;
}

uint32_t TraceIndex::NextActivity(uint32_t wait_call, uint32_t stream_track) const {
  auto th = launches_by_thread_.find(t_.track_index(wait_call));
  if (th == launches_by_thread_.end()) return kNone;
  const int64_t at = t_.ts(wait_call);
  for (auto it = std::lower_bound(th->second.begin(), th->second.end(), at,
                                  [](const Link&l, int64_t ts) { return l.ts < ts; });
       it != th->second.end(); ++it)
    if (stream_track == kNone || t_.track_index(it->gpu) == stream_track) return it->gpu;
  return kNone;
}

uint32_t TraceIndex::ActivityAt(int64_t ts, int64_t dur) const {
  if (!activity_lookup_)
    throw std::logic_error("critical path: ActivityAt on an index built without it");
  for (auto it = std::lower_bound(activity_at_.begin(), activity_at_.end(),
                                  std::make_pair(ts, uint32_t{0}));
       it != activity_at_.end() && it->first == ts; ++it)
    if (t_.dur(it->second) == dur) return it->second;
  return kNone;
}

}  // namespace th::critical_path
