#include "trace_index.h"

#include <tracehound/sorted_runs.h>

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>

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

}  // namespace

TraceIndex::TraceIndex(const th::sdk::Trace& t) : t_(t) {
  IndexNames(t);
  IndexCorrelations(t);
  IndexQueues(t);
  MergeThreads(t);
}

bool TraceIndex::is_node_kind(uint64_t event) const {
  const uint32_t k = t_.kind(event);
  return k == TH_EVENT_CPU_OP || IsHostKind(k);
}

void TraceIndex::IndexNames(const th::sdk::Trace& t) {
  // Per name id its role + 1 (0: not looked at yet; roles fill a byte).
  std::vector<uint16_t> by_name;
  role_.assign(t.size(), 0);
  for (uint64_t i = 0; i < t.size(); ++i) {
    const uint32_t id = t.name_id(i);
    if (id >= by_name.size()) by_name.resize(std::max<size_t>(id + 1, 2 * by_name.size()), 0);
    if (by_name[id] == 0) {
      const std::string_view n = t.name(i);
      by_name[id] = static_cast<uint16_t>(RoleOfName(n) + 1);
      if (n == "cudaStreamWaitEvent") stream_wait_names_.insert(id);
    }
    role_[i] = static_cast<uint8_t>(by_name[id] - 1);
    if (t.kind(i) == TH_EVENT_GPU_SYNC) has_sync_ = true;
    if ((role_[i] & kEventRecord) && IsHostKind(t.kind(i)))
      records_by_thread_[t.track_index(i)].push_back(static_cast<uint32_t>(i));
  }
  for (auto& [track, rows] : records_by_thread_)
    std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
      return std::make_tuple(t.ts(a), a) < std::make_tuple(t.ts(b), b);
    });
}

void TraceIndex::IndexCorrelations(const th::sdk::Trace& t) {
  // (correlation, row) of host calls and of GPU events, each sorted, merged.
  std::vector<std::pair<int64_t, uint32_t>> host, gpu;
  for (uint64_t i = 0; i < t.size(); ++i) {
    const uint32_t k = t.kind(i);
    const bool on_host = IsHostKind(k);
    const bool on_gpu = t.is_gpu_activity(i);
    if (on_gpu) activity_at_.emplace_back(t.ts(i), static_cast<uint32_t>(i));
    if (!on_host && !on_gpu && k != TH_EVENT_GPU_SYNC) continue;
    const int64_t c = t.correlation(i);
    if (c > 0) (on_host ? host : gpu).emplace_back(c, static_cast<uint32_t>(i));
  }
  // Events come in a few runs by time per track (correlations too): merged.
  th::sdk::StableSortRuns(host);
  th::sdk::StableSortRuns(gpu);
  th::sdk::StableSortRuns(activity_at_);
  runtime_of_.assign(t.size(), kNone);
  launched_first_.assign(t.size() + 1, 0);
  size_t h = 0;
  for (const auto& [c, i] : gpu) {
    while (h < host.size() && host[h].first < c) ++h;
    if (h == host.size() || host[h].first != c) continue;
    runtime_of_[i] = host[h].second;
    ++launched_first_[host[h].second + 1];
  }
  for (uint64_t i = 0; i < t.size(); ++i) launched_first_[i + 1] += launched_first_[i];
  launched_.resize(launched_first_[t.size()]);
  std::vector<uint32_t> fill(launched_first_.begin(), launched_first_.end() - 1);
  for (uint64_t i = 0; i < t.size(); ++i) {
    if (runtime_of_[i] == kNone) continue;
    launched_[fill[runtime_of_[i]]++] = static_cast<uint32_t>(i);
    const uint32_t row = t.args_row(i);
    if (t.kind(i) == TH_EVENT_GPU_SYNC && (row == th::sdk::kNoRow || t.gpu_stream(row) == -1))
      unstreamed_syncs_.push_back(static_cast<uint32_t>(i));
  }
  for (uint64_t i = 0; i < t.size(); ++i)
    if (is_node_kind(i) && t.track_of(i).kind != TH_TRACK_GPU_STREAM)
      host_by_start_.push_back(static_cast<uint32_t>(i));
  auto by_start = [&](uint32_t a, uint32_t b) {
    return std::make_pair(t.ts(a), a) < std::make_pair(t.ts(b), b);
  };
  th::sdk::StableSortRuns(host_by_start_, by_start);
  th::sdk::StableSortRuns(unstreamed_syncs_, by_start);
}

void TraceIndex::IndexQueues(const th::sdk::Trace& t) {
  queue_launch_.assign(t.size(), kNoQueue);
  queue_start_.assign(t.size(), kNoQueue);
  // Per stream: (ts, +1 launch before -1 start at one instant, activity).
  std::unordered_map<uint32_t, std::vector<std::tuple<int64_t, int, uint32_t>>> changes;
  for (uint64_t i = 0; i < t.size(); ++i) {
    if (!t.is_gpu_activity(i) || t.track_of(i).kind != TH_TRACK_GPU_STREAM) continue;
    const uint32_t r = runtime_of_[i];
    if (r == kNone || !(role_[r] & kLaunchCall)) continue;
    const auto k = static_cast<uint32_t>(i);
    changes[t.track_index(i)].emplace_back(t.ts(r), 0, k);
    changes[t.track_index(i)].emplace_back(t.ts(i), 1, k);
    const Launch l{t.ts(r), r, k, t.track_index(i)};
    launches_by_thread_[t.track_index(r)].push_back(l);
    launches_by_stream_[t.track_index(i)].push_back(l);
  }
  for (auto& [track, list] : changes) {
    std::sort(list.begin(), list.end());
    int32_t q = 0;
    for (const auto& [ts, is_start, k] : list) {
      q += is_start ? -1 : 1;
      (is_start ? queue_start_ : queue_launch_)[k] = q;
    }
  }
  auto by_time = [](const Launch& a, const Launch& b) {
    return std::tie(a.ts, a.call) < std::tie(b.ts, b.call);
  };
  for (auto& [k, v] : launches_by_thread_) std::sort(v.begin(), v.end(), by_time);
  for (auto& [k, v] : launches_by_stream_) std::sort(v.begin(), v.end(), by_time);
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
  auto last_before = [&](const std::vector<Launch>& v) -> const Launch* {
    auto it = std::upper_bound(v.begin(), v.end(), rts,
                               [](int64_t ts, const Launch& l) { return ts < l.ts; });
    return it == v.begin() ? nullptr : &*(it - 1);
  };
  auto th = launches_by_thread_.find(t_.track_index(record));
  if (th == launches_by_thread_.end()) return kNone;
  const Launch* own = last_before(th->second);
  if (!own) return kNone;
  const Launch* prev = last_before(launches_by_stream_.at(own->stream_track));
  return prev ? prev->activity : kNone;
}

uint32_t TraceIndex::NextActivity(uint32_t wait_call, uint32_t stream_track) const {
  auto th = launches_by_thread_.find(t_.track_index(wait_call));
  if (th == launches_by_thread_.end()) return kNone;
  const int64_t at = t_.ts(wait_call);
  for (auto it = std::lower_bound(th->second.begin(), th->second.end(), at,
                                  [](const Launch&l, int64_t ts) { return l.ts < ts; });
       it != th->second.end(); ++it)
    if (stream_track == kNone || it->stream_track == stream_track) return it->activity;
  return kNone;
}

uint32_t TraceIndex::ActivityAt(int64_t ts, int64_t dur) const {
  for (auto it = std::lower_bound(activity_at_.begin(), activity_at_.end(),
                                  std::make_pair(ts, uint32_t{0}));
       it != activity_at_.end() && it->first == ts; ++it)
    if (t_.dur(it->second) == dur) return it->second;
  return kNone;
}

}  // namespace th::critical_path
