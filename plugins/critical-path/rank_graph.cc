#include "rank_graph.h"

#include <tracehound/sorted_runs.h>

#include <algorithm>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

namespace th::critical_path {
namespace {

constexpr int64_t kKernelKernelGapLimit = 1'500'000;  // ns: HTA's 1.5 ms

class Builder {
 public:
  Builder(const th::sdk::Trace& t, const TraceIndex& ix, const Window& w, uint32_t slot,
          bool infer_sync, EventSlots* local, Graph* g, RankGraphBuffers* b)
      : t_(t),
        ix_(ix),
        w_(w),
        g_(*g),
        infer_(infer_sync && !ix.has_sync_events()),
        b_(*b),
        host_(b->host),
        gpu_starts_(b->gpu_starts),
        sync_ends_(b->sync_ends) {
    host_.clear();
    gpu_starts_.clear();
    sync_ends_.clear();
    r_.events = std::move(b_.events);
    r_.start = std::move(b_.start);
    r_.end = std::move(b_.end);
    r_.span_edge = std::move(b_.span_edge);
    for (auto* v : {&r_.events, &r_.start, &r_.end, &r_.span_edge}) v->clear();
    r_.rank_slot = slot;
    r_.local = local;
    r_.first_node = static_cast<uint32_t>(g_.nodes().size());
    r_.first_edge = static_cast<uint32_t>(g_.edges().size());
  }

  RankGraph Build() {
    Select();
    MakeNodes();
    RuntimeLockEdges();
    CallStackEdges();
    if (infer_) InferStreamWaits();
    GpuEdges();
    if (infer_) InferBlockingWaits();
    return std::move(r_);
  }

 private:
  int64_t StreamKey(uint64_t e) const {
    const uint32_t row = t_.args_row(e);
    if (row == th::sdk::kNoRow) return -1;
    return (int64_t{t_.gpu_device(row)} << 40) + t_.gpu_stream(row);
  }
  const Node& N(uint32_t n) const { return g_.nodes()[n]; }
  uint32_t Start(uint32_t e) const { return r_.StartOf(e); }
  uint32_t End(uint32_t e) const { return r_.EndOf(e); }
  bool Has(uint32_t e) const { return r_.Has(e); }
  void Add(uint32_t src, uint32_t dst, EdgeType type, int64_t weight, Category c, uint32_t ev) {
    g_.AddEdge({src, dst, weight, type, c, ev, false});
  }

  // Host calls and ops that start in the window (lasting > 0); the GPU
  // activities they launched (lasting >= 0); the GPU syncs on a stream their call waited in,
  // and those on no stream that start in the window themselves. The calls'
  // GPU events come from the index's links, walked beside the host events
  // (both come by the call's (ts, row)).
  void Select() {
    const std::vector<uint32_t>& host = ix_.host_by_start();
    const std::vector<TraceIndex::Link>& links = ix_.links();
    auto link = std::lower_bound(links.begin(), links.end(), w_.begin,
                                 [](const TraceIndex::Link& l, int64_t v) { return l.ts < v; });
    for (auto it = std::lower_bound(host.begin(), host.end(), w_.begin,
                                    [&](uint32_t e, int64_t v) { return t_.ts(e) < v; });
         it != host.end() && t_.ts(*it) <= w_.end; ++it) {
      const uint32_t e = *it;
      if (t_.dur(e) <= 0) continue;
      host_.push_back(e);
      const int64_t ts = t_.ts(e);
      while (link != links.end() && (link->ts < ts || (link->ts == ts && link->call < e))) ++link;
      for (; link != links.end() && link->call == e; ++link) {
        const uint32_t k = link->gpu;
        if (t_.is_gpu_activity(k)) {
          // An activity lasting less than 0 (a corrupt trace: the trust table
          // counts it) has no span: left out, as a host event lasting 0 is.
          if (t_.track_of(k).kind == TH_TRACK_GPU_STREAM && t_.dur(k) >= 0)
            gpu_starts_.push_back({t_.ts(k), k, e});
        } else {
          const uint32_t row = t_.args_row(k);
          if (row != th::sdk::kNoRow && t_.gpu_stream(row) != -1)
            sync_ends_.push_back({t_.end(k), k, e});
        }
      }
    }
    const std::vector<TraceIndex::Link>& unstreamed = ix_.unstreamed_syncs();
    for (auto it = std::lower_bound(
             unstreamed.begin(), unstreamed.end(), w_.begin,
             [&](const TraceIndex::Link&l, int64_t v) { return t_.ts(l.gpu) < v; });
         it != unstreamed.end() && t_.ts(it->gpu) <= w_.end; ++it)
      if (t_.dur(it->gpu) > 0) sync_ends_.push_back({t_.end(it->gpu), it->gpu, it->call});
  }

  // Nodes in (ts, event, start first) order, as HTA numbers them: the starts
  // (host_ comes by start, then row; the GPU activities are sorted) merged
  // with their ends (StartsAndEnds), which are kept in that order too.
  void MakeNodes() {
    std::vector<EventKey>& starts = b_.starts;
    std::vector<EventKey>& ends = b_.ends;
    starts.clear();
    ends.clear();
    th::sdk::StableSortRuns(gpu_starts_);
    starts.reserve(host_.size() + gpu_starts_.size());
    auto g = gpu_starts_.begin();
    for (uint32_t e : host_) {
      const EventKey k{t_.ts(e), e};
      for (; g != gpu_starts_.end() && g->key() < k; ++g) starts.push_back(g->key());
      starts.push_back(k);
    }
    for (; g != gpu_starts_.end(); ++g) starts.push_back(g->key());
    ends.reserve(starts.size());
    r_.events.reserve(starts.size());
    r_.start.reserve(starts.size());
    r_.end.resize(starts.size());
    r_.span_edge.assign(starts.size(), kNone);
    StartsAndEnds(
        starts, [&](uint32_t e) { return t_.end(e); }, &b_.open_ends,
        [&](const EventKey& k, bool is_end) {
          const uint32_t n = g_.AddNode({k.first, k.second, r_.rank_slot, !is_end});
          EventSlots::Ref at = (*r_.local)[k.second];
          if (is_end) {
            r_.end[at] = n;
            ends.push_back(k);
            return;
          }
          at = static_cast<uint32_t>(r_.events.size());
          r_.events.push_back(k.second);
          r_.start.push_back(n);
        });
  }

  bool IsLock(uint32_t n) const {
    return N(n).event != kNone && (ix_.role(N(n).event) & kRuntimeLock) &&
           ix_.is_node_kind(N(n).event);
  }
  bool SharesLock(uint32_t a, uint32_t b) const {
    return IsLock(a) && IsLock(b) && (N(a).start || !N(b).start);
  }

  // Calls holding the runtime lock: each end follows the previous end, and
  // every call started before it that had not ended.
  void RuntimeLockEdges() {
    std::vector<uint32_t>& open = b_.open;
    open.clear();
    uint32_t last = kNone;
    const auto end = static_cast<uint32_t>(g_.nodes().size());
    for (uint32_t n = r_.first_node; n < end; ++n) {
      if (!IsLock(n)) continue;
      if (N(n).start) {
        open.push_back(n);
      } else {
        while (!open.empty()) {
          const uint32_t p = open.back();
          open.pop_back();
          if (N(p).event == N(n).event)
            Add(p, n, EdgeType::kOperator, N(n).ts - N(p).ts, Category::kHost, N(n).event);
          else
            Add(p, n, EdgeType::kDependency, 0, Category::kNone, kNone);
        }
        if (last != kNone && !N(last).start)
          Add(last, n, EdgeType::kDependency, 0, Category::kNone, kNone);
      }
      last = n;
    }
  }

  void CallStackEdges() {
    // Each thread's events in host_'s order (by start, then row) by a
    // counting sort on the thread, threads in ascending order; then, where
    // starts tie, the longer first: (start, -duration, row).
    std::vector<uint32_t>& first = b_.first;
    first.assign(t_.track_count() + 1, 0);
    for (uint32_t e : host_) ++first[ix_.thread_of(t_.track_index(e)) + 1];
    for (size_t k = 1; k < first.size(); ++k) first[k] += first[k - 1];
    std::vector<uint32_t>& at = b_.at;
    std::vector<uint32_t>& by_thread = b_.by_thread;
    at.assign(first.begin(), first.end() - 1);
    by_thread.resize(host_.size());
    for (uint32_t e : host_) by_thread[at[ix_.thread_of(t_.track_index(e))]++] = e;
    const auto longer_first = [&](uint32_t a, uint32_t b) {
      return std::make_pair(-t_.dur(a), a) < std::make_pair(-t_.dur(b), b);
    };
    for (size_t thread = 0; thread + 1 < first.size(); ++thread) {
      const std::span<uint32_t> events(by_thread.data() + first[thread],
                                       first[thread + 1] - first[thread]);
      if (events.empty()) continue;
      for (size_t i = 0, j = 0; i < events.size(); i = j) {
        for (j = i + 1; j < events.size() && t_.ts(events[j]) == t_.ts(events[i]);) ++j;
        if (j - i > 1) std::sort(events.begin() + i, events.begin() + j, longer_first);
      }
      WalkStack(events);
    }
  }

  // Depth-first over one thread's nesting of ops and calls.
  void WalkStack(std::span<const uint32_t> events) {
    std::vector<uint32_t>& stack = b_.stack;
    stack.clear();
    uint32_t last = kNone;
    auto enter = [&](uint32_t e) {
      const uint32_t s = Start(e);
      if (last != kNone && !SharesLock(last, s)) {
        if (stack.empty()) {
          Add(last, s, EdgeType::kDependency, 0, Category::kNone, kNone);
        } else {
          const uint32_t owner = N(last).start ? N(last).event : stack.back();
          Add(last, s, EdgeType::kOperator, N(s).ts - N(last).ts, Category::kHost, owner);
        }
      }
      last = s;
      stack.push_back(e);
    };
    auto exit = [&]() {
      const uint32_t e = stack.back();
      stack.pop_back();
      const uint32_t x = End(e);
      if (last != kNone && !SharesLock(last, x)) {
        const int64_t w = (ix_.role(e) & kBlocking) ? 0 : N(x).ts - N(last).ts;
        Add(last, x, EdgeType::kOperator, w, Category::kHost, N(last).start ? N(last).event : e);
      }
      last = x;
    };
    for (uint32_t e : events) {
      while (!stack.empty() && t_.end(stack.back()) <= t_.ts(e)) exit();
      enter(e);
    }
    while (!stack.empty()) exit();
  }

  void GpuEdges();
  void InferStreamWaits();
  void InferBlockingWaits();
  void Sync(uint32_t s, uint32_t call);
  void Activity(uint32_t k, uint32_t call);

  const th::sdk::Trace& t_;
  const TraceIndex& ix_;
  Window w_;
  Graph& g_;
  bool infer_;
  RankGraphBuffers& b_;
  RankGraph r_;
  std::vector<uint32_t>& host_;                         // b_'s
  std::vector<CalledAt>&gpu_starts_, &sync_ends_;       // b_'s: the activities, the syncs
  std::map<int64_t, uint32_t> last_on_stream_;          // stream key -> end node
  std::unordered_map<uint32_t, uint32_t> kernel_sync_;  // activity -> activity it waits for
};

// Activities by start, syncs by end (a sync overlapping an activity on its
// stream comes after it), in that one order.
void Builder::GpuEdges() {
  // The activities come sorted by (start, row) from MakeNodes; the syncs are
  // sorted by (end, row) and merged in by (instant, row, sync after).
  std::sort(sync_ends_.begin(), sync_ends_.end());
  auto s = sync_ends_.begin();
  for (const CalledAt& a : gpu_starts_) {
    for (; s != sync_ends_.end() && *s < a; ++s) Sync(s->event, s->call);
    Activity(a.event, a.call);
  }
  for (; s != sync_ends_.end(); ++s) Sync(s->event, s->call);
}

void Builder::InferStreamWaits() {
  for (uint32_t c : host_) {
    if (!ix_.is_stream_wait_call(c)) continue;
    const uint32_t src = ix_.RecordedActivity(c);
    if (src == kNone) continue;
    const uint32_t dst = ix_.NextActivity(c, kNone);
    if (dst != kNone && t_.track_index(src) != t_.track_index(dst)) kernel_sync_[dst] = src;
  }
}

void Builder::InferBlockingWaits() {
  // The GPU activities by (end, row): MakeNodes' sorted ends, less the host's.
  std::vector<std::pair<int64_t, uint32_t>>& by_end = b_.gpu_ends;
  by_end.clear();
  for (const auto& end : b_.ends)
    if (t_.is_gpu_activity(end.second)) by_end.push_back(end);
  for (uint32_t c : host_) {
    if (!(ix_.role(c) & kBlocking)) continue;
    auto it = std::upper_bound(by_end.begin(), by_end.end(), t_.end(c),
                               [](int64_t v, const auto& k) { return v < k.first; });
    if (it == by_end.begin() || (it - 1)->first < t_.ts(c)) continue;
    Add(End((it - 1)->second), End(c), EdgeType::kSync, 0, Category::kNone, kNone);
    ++r_.sync_edges;
    ++r_.inferred_sync_edges;
  }
}

void Builder::Sync(uint32_t s, uint32_t call) {
  const uint8_t role = ix_.role(s);
  if (role & (kStreamWait | kEventSync)) {
    const uint32_t src = ix_.RecordedActivity(call);
    if (src == kNone) return;
    if (role & kStreamWait) {
      const uint32_t dst = ix_.NextActivity(call, t_.track_index(s));
      if (dst != kNone) kernel_sync_[dst] = src;
    } else if (Has(src) && Has(call)) {
      Add(End(src), End(call), EdgeType::kSync, 0, Category::kNone, kNone);
      ++r_.sync_edges;
    }
    return;
  }
  if (!Has(call)) return;
  if (role & kContextSync) {
    for (const auto& [stream, node] : last_on_stream_) {
      Add(node, End(call), EdgeType::kSync, 0, Category::kNone, kNone);
      ++r_.sync_edges;
    }
  } else if (role & kStreamSync) {
    auto it = last_on_stream_.find(StreamKey(s));
    if (it == last_on_stream_.end()) return;
    Add(it->second, End(call), EdgeType::kSync, 0, Category::kNone, kNone);
    ++r_.sync_edges;
  }
}

void Builder::Activity(uint32_t k, uint32_t call) {
  const uint32_t s = Start(k), x = End(k);
  const Category c = t_.hta_kernel_class(k) == th::sdk::KernelClass::kComm
                         ? Category::kCommunication
                         : Category::kCompute;
  r_.span_edge[(*r_.local)[k]] = static_cast<uint32_t>(g_.edges().size());
  Add(s, x, EdgeType::kOperator, N(x).ts - N(s).ts, c, k);

  uint32_t sync_end = kNone;
  if (auto it = kernel_sync_.find(k); it != kernel_sync_.end()) {
    if (Has(it->second)) {
      sync_end = End(it->second);
      Add(sync_end, s, EdgeType::kSync, 0, Category::kNone, kNone);
      ++r_.sync_edges;
      if (infer_) ++r_.inferred_sync_edges;
    }
    kernel_sync_.erase(it);
  }
  const int64_t key = StreamKey(k);
  auto last = last_on_stream_.find(key);
  const bool has_last = last != last_on_stream_.end();
  const int64_t call_ts = t_.ts(call);
  if (ix_.launched_into_empty_queue(k) && (!has_last || N(last->second).ts < call_ts) &&
      (sync_end == kNone || N(sync_end).ts < call_ts)) {
    Add(Start(call), s, EdgeType::kLaunch, N(s).ts - call_ts, Category::kLaunchOverhead, k);
  } else if (has_last && N(s).ts - N(last->second).ts < kKernelKernelGapLimit &&
             (sync_end == kNone || N(sync_end).ts < N(last->second).ts)) {
    Add(last->second, s, EdgeType::kKernelKernel, N(s).ts - N(last->second).ts,
        Category::kKernelGap, N(last->second).event);
  }
  last_on_stream_[key] = x;
}

}  // namespace

RankGraph BuildRankGraph(const th::sdk::Trace& t, const TraceIndex& ix, const Window& w,
                         uint32_t rank_slot, bool infer_sync, EventSlots* local, Graph* g,
                         RankGraphBuffers* buffers) {
  return Builder(t, ix, w, rank_slot, infer_sync, local, g, buffers).Build();
}

void RankGraphBuffers::Recycle(RankGraph&& r) {
  events = std::move(r.events);
  start = std::move(r.start);
  end = std::move(r.end);
  span_edge = std::move(r.span_edge);
}

}  // namespace th::critical_path
