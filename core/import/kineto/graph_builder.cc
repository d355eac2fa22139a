#include "core/import/kineto/graph_builder.h"

#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>
#include <numeric>
#include <string>
#include <tuple>

#include "core/import/kineto/autograd_profiler.h"
#include "core/import/kineto/xprof_json.h"

namespace th::kineto {

namespace {

template <typename T>
void AppendColumn(PodColumn<T>& dst, const PodColumn<T>& src) {
  dst.append(src.data(), src.size());
}

inline bool IsSliceKind(EventKind k) { return k != EventKind::kMetadata && k != EventKind::kFlow; }

}  // namespace

void GraphBuilder::Append(ParsedChunk&& c) {
  EventGraph& g = trace_->graph;
  EventColumns& e = g.events;
  if (e.size() == 0 && g.gpu_args.size() == 0 && g.collective_args.size() == 0 &&
      g.memory_args.size() == 0 && g.counters.size() == 0 && g.xla_labels.size() == 0 &&
      g.op_inputs.size() == 0 && g.xla_op_costs.size() == 0) {
    // The first chunk: its rows and ids are the graph's as they are (no
    // offsets to add), so its columns move in instead of being copied.
    e = std::move(c.events);
    g.gpu_args = std::move(c.gpu_args);
    g.collective_args = std::move(c.collective_args);
    g.memory_args = std::move(c.memory_args);
    g.counters = std::move(c.counters);
    g.xla_labels = std::move(c.xla_labels);
    g.op_inputs = std::move(c.op_inputs);
    g.xla_op_costs = std::move(c.xla_op_costs);
    event_ranks_ = std::move(c.event_ranks);
    AppendNamesAndDefects(c);
    return;
  }
  const EventColumns& s = c.events;
  const size_t n = s.size();
  const auto base = static_cast<EventId>(e.size());
  const auto gpu_base = static_cast<uint32_t>(g.gpu_args.size());
  const auto mem_base = static_cast<uint32_t>(g.memory_args.size());
  const auto op_base = static_cast<uint32_t>(g.op_inputs.size());
  const uint32_t bases[] = {gpu_base, mem_base, op_base};  // by ArgsTable
  AppendColumn(e.ts, s.ts);
  AppendColumn(e.dur, s.dur);
  AppendColumn(e.parent, s.parent);
  AppendColumn(e.depth, s.depth);
  AppendColumn(e.ph, s.ph);
  AppendColumn(e.kind, s.kind);
  AppendColumn(e.flags, s.flags);
  e.external_id.Append(s.external_id);
  AppendColumn(e.name, s.name);
  AppendColumn(e.cat, s.cat);
  AppendColumn(e.track, s.track);
  e.correlation.Append(s.correlation);
  // Argument rows move by the size of their table so far.
  uint32_t* args_row = e.args_row.grow_uninitialized(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t row = s.args_row[i];
    if (row != kNoRow) row += bases[static_cast<int>(ArgsTableOf(s.kind[i]))];
    args_row[i] = row;
  }

  GpuArgsTable& ga = g.gpu_args;
  for (EventId id : c.gpu_args.event) ga.event.push_back(id + base);
  AppendColumn(ga.device, c.gpu_args.device);
  AppendColumn(ga.stream, c.gpu_args.stream);
  for (int i = 0; i < 3; ++i) {
    AppendColumn(ga.grid[i], c.gpu_args.grid[i]);
    AppendColumn(ga.block[i], c.gpu_args.block[i]);
  }
  AppendColumn(ga.registers, c.gpu_args.registers);
  AppendColumn(ga.shared_mem, c.gpu_args.shared_mem);
  AppendColumn(ga.occupancy, c.gpu_args.occupancy);
  AppendColumn(ga.bytes, c.gpu_args.bytes);

  CollectiveArgsTable& ca = g.collective_args;
  const CollectiveArgsTable& cs = c.collective_args;
  for (EventId id : cs.event) ca.event.push_back(id + base);
  AppendColumn(ca.collective, cs.collective);
  AppendColumn(ca.dtype, cs.dtype);
  AppendColumn(ca.group, cs.group);
  AppendColumn(ca.in_nelems, cs.in_nelems);
  AppendColumn(ca.out_nelems, cs.out_nelems);
  AppendColumn(ca.group_size, cs.group_size);

  MemoryArgsTable& ma = g.memory_args;
  for (EventId id : c.memory_args.event) ma.event.push_back(id + base);
  AppendColumn(ma.device_type, c.memory_args.device_type);
  AppendColumn(ma.device_id, c.memory_args.device_id);
  AppendColumn(ma.addr, c.memory_args.addr);
  AppendColumn(ma.bytes, c.memory_args.bytes);
  AppendColumn(ma.total_allocated, c.memory_args.total_allocated);
  AppendColumn(ma.total_reserved, c.memory_args.total_reserved);

  CounterTable& ct = g.counters;
  for (EventId id : c.counters.event) ct.event.push_back(id + base);
  AppendColumn(ct.series, c.counters.series);
  AppendColumn(ct.value, c.counters.value);

  XlaLabelTable& xa = g.xla_labels;
  const XlaLabelTable& xs = c.xla_labels;
  for (EventId id : xs.event) xa.event.push_back(id + base);
  AppendColumn(xa.hlo_op, xs.hlo_op);
  AppendColumn(xa.hlo_module, xs.hlo_module);
  AppendColumn(xa.program_id, xs.program_id);
  AppendColumn(xa.op_name, xs.op_name);
  AppendColumn(xa.source, xs.source);
  AppendColumn(xa.group_id, xs.group_id);

  OpInputsTable& oi = g.op_inputs;
  for (EventId id : c.op_inputs.event) oi.event.push_back(id + base);
  AppendColumn(oi.input_dims, c.op_inputs.input_dims);
  AppendColumn(oi.input_types, c.op_inputs.input_types);
  AppendColumn(oi.concrete_inputs, c.op_inputs.concrete_inputs);

  XlaOpCostTable& oc = g.xla_op_costs;
  for (EventId id : c.xla_op_costs.event) oc.event.push_back(id + base);
  AppendColumn(oc.flops, c.xla_op_costs.flops);
  AppendColumn(oc.model_flops, c.xla_op_costs.model_flops);
  AppendColumn(oc.bytes_accessed, c.xla_op_costs.bytes_accessed);

  for (const auto& [row, rank] : c.event_ranks) event_ranks_.push_back({row + base, rank});
  AppendNamesAndDefects(c);
}

void GraphBuilder::AppendNamesAndDefects(const ParsedChunk& c) {
  names_.insert(names_.end(), c.names.begin(), c.names.end());

  const ChunkDefects& d = c.defects;
  defects_.non_object += d.non_object;
  defects_.missing_ph += d.missing_ph;
  defects_.unknown_phase += d.unknown_phase;
  defects_.invalid_ts += d.invalid_ts;
  defects_.x_without_dur += d.x_without_dur;
  defects_.negative_dur += d.negative_dur;
  defects_.rounded_time += d.rounded_time;
  defects_.elements += d.elements;
  if (defects_.first_unknown_phase.empty()) defects_.first_unknown_phase = d.first_unknown_phase;
  defects_.bad_integer_arg += d.bad_integer_arg;
  if (defects_.first_bad_integer_arg.empty())
    defects_.first_bad_integer_arg = d.first_bad_integer_arg;
  defects_.non_finite += d.non_finite;
  if (defects_.first_non_finite.empty()) defects_.first_non_finite = d.first_non_finite;
}

void GraphBuilder::PairBeginEnd() {
  EventColumns& e = trace_->graph.events;
  std::unordered_map<TrackId, std::vector<EventId>> open;
  int64_t unmatched_end = 0;
  // Rows before the first B or E change nothing (XSpace graphs have none).
  const size_t n = e.size();
  size_t start = n;
  for (char c : {'B', 'E'}) {
    const void* at = n == 0 ? nullptr : std::memchr(e.ph.data(), c, n);
    if (at)
      start = std::min(start, static_cast<size_t>(static_cast<const char*>(at) - e.ph.data()));
  }
  for (EventId i = static_cast<EventId>(start); i < n; ++i) {
    char ph = e.ph[i];
    if (ph == 'B') {
      open[e.track[i]].push_back(i);
    } else if (ph == 'E') {
      auto it = open.find(e.track[i]);
      if (it == open.end() || it->second.empty()) {
        ++unmatched_end;
        continue;
      }
      EventId b = it->second.back();
      it->second.pop_back();
      e.dur[b] = e.ts[i] - e.ts[b];
    }
  }
  int64_t unmatched_begin = 0;
  for (auto& [track, stack] : open) unmatched_begin += static_cast<int64_t>(stack.size());
  trace_->trust.Add(TrustId::kUnmatchedEndEvent, unmatched_end);
  trace_->trust.Add(TrustId::kUnmatchedBeginEvent, unmatched_begin);
}

void GraphBuilder::Scan() {
  EventGraph& g = trace_->graph;
  const EventColumns& e = g.events;
  const auto n = static_cast<EventId>(e.size());
  const size_t tracks = g.tracks.size();
  slices_.assign(tracks, 0);
  first_slice_.assign(tracks, kNoRow);
  end_slice_.assign(tracks, 0);
  const EventKind* kind = e.kind.data();
  const uint8_t* flags = e.flags.data();
  const TrackId* track = e.track.data();
  // A row of the same track and kind as the row before it changes no track kind.
  TrackId last_track = kNoRow;
  EventKind last_kind = EventKind::kOther;
  for (EventId i = 0; i < n;) {
    const TrackId t = track[i];
    const EventKind k = kind[i];
    const bool end_marker = (flags[i] & kFlagEndMarker) != 0;
    // Rows [i, j): one track, one kind, no E marker (an E marker alone).
    EventId j = i + 1;
    if (!end_marker)
      while (j < n && track[j] == t && kind[j] == k && !(flags[j] & kFlagEndMarker)) ++j;
    if (t != last_track || k != last_kind) {
      last_track = t;
      last_kind = k;
      saw_gpu_sync_ |= k == EventKind::kGpuSync;
      const TrackKind now = g.tracks[t].kind;
      if (IsGpuActivity(k) ? now != TrackKind::kGpuStream : now == TrackKind::kOther)
        ClassifyTrack(i, t, k);
    }
    if (IsSliceKind(k) && !end_marker) {
      slices_[t] += j - i;
      if (first_slice_[t] == kNoRow) first_slice_[t] = i;
      end_slice_[t] = j;
    } else if (k == EventKind::kFlow) {
      for (EventId r = i; r < j; ++r) flows_.push_back(r);
    }
    if (IsLaunch(k)) {
      for (EventId r = i; r < j; ++r) {
        const int64_t corr = e.correlation[r];
        if (corr == kNoValue) continue;
        launches_.push_back(r);
        first_launch_ = std::min(first_launch_, corr);
      }
    } else if (IsGpuActivity(k)) {
      for (EventId r = i; r < j; ++r) {
        if (e.correlation[r] != kNoValue) {
          gpu_with_id_.push_back(r);
        } else if (k != EventKind::kKernel) {
          ++copies_no_id_;
        } else {
          ++kernels_no_id_;
        }
      }
    }
    i = j;
  }
}

void GraphBuilder::NoteSyncEventsAbsent() {
  if (saw_gpu_sync_ || xprof_json_) return;
  const EventGraph& g = trace_->graph;
  std::vector<int8_t> syncs;  // by name id: -1 not looked at, 0 no, 1 a synchronising call
  int64_t calls = 0;
  std::string_view first;
  for (EventId i : launches_) {
    const StringId name = g.events.name[i];
    if (name >= syncs.size()) syncs.resize(name + 1, -1);
    if (syncs[name] < 0) {
      const std::string_view n = g.strings.Get(name);
      syncs[name] = n.find("Synchronize") != std::string_view::npos ||
                    n.find("StreamWaitEvent") != std::string_view::npos;
    }
    if (syncs[name] == 0) continue;
    if (calls++ == 0) first = g.strings.Get(name);
  }
  trace_->trust.Add(TrustId::kGpuSyncEventsAbsent, calls, first);
}

void GraphBuilder::ClassifyTrack(EventId i, TrackId track, EventKind k) {
  EventGraph& g = trace_->graph;
  Track& t = g.tracks[track];
  if (IsGpuActivity(k)) {
    if (t.kind != TrackKind::kGpuStream) {
      t.kind = TrackKind::kGpuStream;
      uint32_t row = g.events.args_row[i];
      int32_t device = row != kNoRow ? g.gpu_args.device[row] : -1;
      int64_t stream = row != kNoRow ? g.gpu_args.stream[row] : -1;
      t.device = device >= 0 ? device : static_cast<int32_t>(t.pid);
      t.stream = stream >= 0 ? stream : t.tid;
    }
  } else if (t.kind == TrackKind::kOther &&
             (k == EventKind::kCpuOp || k == EventKind::kRuntime || k == EventKind::kDriver ||
              k == EventKind::kPythonFunction || k == EventKind::kUserAnnotation)) {
    t.kind = TrackKind::kCpu;
  }
}

void GraphBuilder::OrderTracks() {
  EventGraph& g = trace_->graph;
  const EventColumns& e = g.events;
  const size_t tracks = g.tracks.size();
  // A track whose slices are exactly the rows [first, end) (XSpace lines) is
  // ordered by Nest, from its rows; the others are scattered and sorted here.
  contiguous_.assign(tracks, 0);
  bool scatter = false;
  std::vector<uint32_t> offsets(tracks + 1, 0);
  for (size_t t = 0; t < tracks; ++t) {
    offsets[t + 1] = offsets[t] + slices_[t];
    if (slices_[t] == 0) continue;
    contiguous_[t] = end_slice_[t] - first_slice_[t] == slices_[t];
    scatter |= !contiguous_[t];
  }
  // The slots of contiguous tracks are left unwritten unless Nest finds one
  // out of order (EventGraph::track_first_row): zero pages then.
  g.track_order.Clear();
  g.track_first_row.assign(tracks, kNoRow);
  bool any_contiguous = false;
  for (size_t t = 0; t < tracks; ++t) {
    if (contiguous_[t]) g.track_first_row[t] = first_slice_[t];
    any_contiguous |= contiguous_[t] != 0;
  }
  if (any_contiguous) {
    g.track_order.grow_zeroed(offsets[tracks]);
  } else {
    g.track_order.grow_uninitialized(offsets[tracks]);  // every slot is written below
  }
  if (scatter) {
    std::vector<uint32_t> fill(offsets.begin(), offsets.end() - 1);
    for (EventId i = 0; i < e.size(); ++i) {
      if (IsSliceKind(e.kind[i]) && !(e.flags[i] & kFlagEndMarker) && !contiguous_[e.track[i]])
        g.track_order[fill[e.track[i]]++] = i;
    }
    tbb::parallel_for(size_t{0}, tracks, [&](size_t t) {
      if (contiguous_[t]) return;
      EventId* first = g.track_order.data() + offsets[t];
      EventId* last = g.track_order.data() + offsets[t + 1];
      auto before = [&e](EventId a, EventId b) {
        if (e.ts[a] != e.ts[b]) return e.ts[a] < e.ts[b];
        if (e.dur[a] != e.dur[b]) return e.dur[a] > e.dur[b];
        return a < b;
      };
      // Producers mostly write a thread's events in time order already.
      if (!std::is_sorted(first, last, before)) std::sort(first, last, before);
    });
  }
  g.track_offsets = std::move(offsets);
}

void GraphBuilder::Nest() {
  EventGraph& g = trace_->graph;
  EventColumns& e = g.events;
  const size_t tracks = g.tracks.size();
  std::vector<int64_t> crossing(tracks, 0);
  tbb::parallel_for(size_t{0}, tracks, [&](size_t t) {
    // The open slices: the innermost in registers, the rest in `open`.
    struct Open {
      EventId id;
      int64_t end;
    };
    std::vector<Open> open;
    size_t depth_now = 0;
    Open top{kNoRow, 0};
    int64_t crossed = 0;
    const int64_t* ts = e.ts.data();
    const int64_t* dur = e.dur.data();
    EventId* parent = e.parent.data();
    uint16_t* depth = e.depth.data();
    // Rows come with parent kNoRow and depth 0 (EventColumns::depth): only
    // nested rows are written.
    auto visit = [&](EventId id, int64_t start, int64_t length) {
      while (depth_now != 0 && top.end <= start) {
        if (--depth_now != 0) top = open[depth_now - 1];
      }
      if (depth_now != 0) {
        parent[id] = top.id;
        if (start + length > top.end) ++crossed;
        depth[id] = static_cast<uint16_t>(std::min<size_t>(depth_now, 0xffff));
      }
      if (length > 0) {
        top = {id, start + length};
        if (depth_now == open.size()) open.resize(2 * depth_now + 16);
        open[depth_now++] = top;
      }
    };
    EventId* order = g.track_order.data() + g.track_offsets[t];
    const uint32_t count = g.track_offsets[t + 1] - g.track_offsets[t];
    if (contiguous_[t]) {
      // The rows in time order (ts asc, longer first) are their own order
      // (track_first_row, no slots written): check and nest in one pass.
      const EventId first = first_slice_[t];
      uint32_t k = 0;
      for (; k < count; ++k) {
        const EventId id = first + k;
        if (k > 0 && (ts[id] < ts[id - 1] || (ts[id] == ts[id - 1] && dur[id] > dur[id - 1])))
          break;
        visit(id, ts[id], dur[id]);
      }
      if (k == count) {
        crossing[t] = crossed;
        return;
      }
      // Not in time order: the slots hold the sorted rows, and the rows are
      // nested again. The rows nested so far (rows [first, first + k)) are
      // nested in the sorted order too (their enclosing slice comes before
      // them and stays open), so every value written is written again.
      depth_now = 0;
      crossed = 0;
      g.track_first_row[t] = kNoRow;
      std::iota(order, order + count, first);
      std::sort(order, order + count, [&e](EventId a, EventId b) {
        if (e.ts[a] != e.ts[b]) return e.ts[a] < e.ts[b];
        if (e.dur[a] != e.dur[b]) return e.dur[a] > e.dur[b];
        return a < b;
      });
    }
    for (uint32_t k = 0; k < count; ++k) visit(order[k], ts[order[k]], dur[order[k]]);
    crossing[t] = crossed;
  });
  int64_t total = 0;
  for (int64_t c : crossing) total += c;
  crossing_slices_ = total;  // reported by Finish: Nest runs beside LinkLaunches
}

void GraphBuilder::LinkLaunches() {
  EventGraph& g = trace_->graph;
  const EventColumns& e = g.events;
  const size_t n = e.size();
  launch_of_ = IdIndex::Build([&](auto&& visit) {
    for (EventId i : launches_) visit(e.correlation[i], i);
  });
  launches_.Clear();
  launched_.clear();
  // GPU activity without a correlation id joins no launch: Scan counted it.
  int64_t before_capture = 0, unlinked = 0;
  int64_t copies_unlinked = copies_no_id_, no_correlation = kernels_no_id_;
  for (EventId i : gpu_with_id_) {
    const int64_t corr = e.correlation[i];
    const EventId launch = launch_of_.Find(corr);
    if (launch != kNoRow) {
      g.edges.src.push_back(launch);
      g.edges.dst.push_back(i);
      g.edges.kind.push_back(EdgeKind::kLaunch);
      if (launched_.empty()) launched_.assign(n, false);
      launched_[i] = true;
    } else if (e.kind[i] != EventKind::kKernel) {
      ++copies_unlinked;
    } else if (corr < first_launch_) {
      ++before_capture;
    } else {
      ++unlinked;
    }
  }
  gpu_with_id_.Clear();
  trace_->trust.Add(TrustId::kKernelLaunchedBeforeCapture, before_capture);
  trace_->trust.Add(TrustId::kKernelWithoutLaunch, unlinked);
  trace_->trust.Add(TrustId::kCopyWithoutLaunch, copies_unlinked);
  trace_->trust.Add(TrustId::kKernelWithoutCorrelationId, no_correlation);
}

void GraphBuilder::LinkFlows() {
  EventGraph& g = trace_->graph;
  const EventColumns& e = g.events;
  // Binds a flow point to a slice of its track: the innermost slice that
  // contains t (enclosing), or the first slice starting at or after t.
  auto bind = [&](TrackId track, int64_t t, bool enclosing) -> EventId {
    const EventGraph::TrackEventsView order = g.TrackEvents(track);
    // The first position whose event starts after t.
    uint32_t lo = 0, hi = order.size();
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (t < e.ts[order[mid]]) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const uint32_t it = lo;
    if (!enclosing) {
      // Prefer a slice starting exactly at t, else the next one.
      uint32_t at = it;
      while (at != 0 && e.ts[order[at - 1]] == t) --at;
      return at != order.size() ? order[at] : kNoRow;
    }
    if (it == 0) return kNoRow;
    EventId cand = order[it - 1];
    while (cand != kNoRow) {
      if (e.ts[cand] <= t && (t < e.ts[cand] + e.dur[cand] || e.ts[cand] == t)) return cand;
      cand = e.parent[cand];
    }
    return kNoRow;
  };
  // Flow ids are unique per category: one index of starts per category.
  const std::vector<EventId> flows = std::move(flows_);  // from Scan
  flows_.clear();
  std::vector<StringId> categories;
  for (EventId i : flows) {
    if (std::find(categories.begin(), categories.end(), e.cat[i]) == categories.end())
      categories.push_back(e.cat[i]);
  }
  std::unordered_map<StringId, IdIndex> starts;
  size_t start_count = 0;
  for (StringId cat : categories) {
    starts.emplace(cat, IdIndex::Build([&](auto&& visit) {
                     for (EventId i : flows)
                       if (e.ph[i] == 's' && e.cat[i] == cat) visit(e.correlation[i], i);
                   }));
  }
  for (EventId i : flows) start_count += e.ph[i] == 's';
  // CPU->GPU flows carry the launch's correlation id as their id: when that id
  // already linked a launch to its GPU activity, the flow adds nothing.
  const StringId ac2g = g.strings.Find("ac2g");
  // Flow ends are resolved in parallel blocks; edges are concatenated in
  // block order so the result does not depend on scheduling.
  struct Block {
    std::vector<EventId> src, dst;
    std::vector<EdgeKind> kind;
    int64_t orphan_end = 0, unbound = 0;
  };
  constexpr size_t kBlock = 1 << 15;
  std::vector<Block> blocks((flows.size() + kBlock - 1) / kBlock);
  // Per event: a flow start some end was matched to (sized only when there are flows).
  std::vector<std::atomic<uint8_t>> start_used(flows.empty() ? 0 : e.size());
  tbb::parallel_for(size_t{0}, blocks.size(), [&](size_t b) {
    Block& out = blocks[b];
    size_t end_flow = std::min(flows.size(), (b + 1) * kBlock);
    for (size_t f = b * kBlock; f < end_flow; ++f) {
      EventId i = flows[f];
      if (e.ph[i] == 's') continue;
      auto index = starts.find(e.cat[i]);
      EventId s = index == starts.end() ? kNoRow : index->second.Find(e.correlation[i]);
      if (s == kNoRow) {
        ++out.orphan_end;
        continue;
      }
      start_used[s].store(1, std::memory_order_relaxed);
      if (e.cat[i] == ac2g && !(e.flags[i] & kFlagStringId) &&
          launch_of_.Find(e.correlation[i]) != kNoRow)
        continue;
      EventId from = bind(e.track[s], e.ts[s], true);
      EventId to = bind(e.track[i], e.ts[i], (e.flags[i] & kFlagFlowBindEnclosing) != 0);
      if (from == kNoRow || to == kNoRow) {
        ++out.unbound;
        continue;
      }
      bool to_gpu = IsGpuActivity(e.kind[to]);
      if (to_gpu && !launched_.empty() && launched_[to])
        continue;  // already linked by correlation id
      out.src.push_back(from);
      out.dst.push_back(to);
      out.kind.push_back(to_gpu && IsLaunch(e.kind[from]) ? EdgeKind::kLaunch : EdgeKind::kFlow);
    }
  });
  int64_t orphan_end = 0, unbound = 0, used = 0;
  for (const Block& blk : blocks) {
    orphan_end += blk.orphan_end;
    unbound += blk.unbound;
    g.edges.src.append(blk.src.data(), blk.src.size());
    g.edges.dst.append(blk.dst.data(), blk.dst.size());
    g.edges.kind.append(blk.kind.data(), blk.kind.size());
  }
  for (EventId i : flows) used += e.ph[i] == 's' && start_used[i].load(std::memory_order_relaxed);
  int64_t orphan_start = static_cast<int64_t>(start_count) - used;
  trace_->trust.Add(TrustId::kFlowEndWithoutStart, orphan_end);
  trace_->trust.Add(TrustId::kFlowStartWithoutEnd, orphan_start);
  trace_->trust.Add(TrustId::kUnboundFlowPoint, unbound);
  launched_.clear();
  launched_.shrink_to_fit();
}

void GraphBuilder::CollectSteps() {
  EventGraph& g = trace_->graph;
  const EventColumns& e = g.events;
  constexpr std::string_view kPrefix = "ProfilerStep#";
  std::vector<uint8_t> is_step(g.strings.size(), 0);
  std::vector<int64_t> number(g.strings.size(), 0);
  for (StringId s = 0; s < g.strings.size(); ++s) {
    std::string_view v = g.strings.Get(s);
    if (v.size() <= kPrefix.size() || v.substr(0, kPrefix.size()) != kPrefix) continue;
    std::string_view digits = v.substr(kPrefix.size());
    int64_t n = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && p == digits.data() + digits.size()) {
      is_step[s] = 1;
      number[s] = n;
    }
  }
  // No step name among the strings: no event to look at.
  const bool any_step = std::find(is_step.begin(), is_step.end(), 1) != is_step.end();
  for (EventId i = 0; any_step && i < e.size(); ++i) {
    if (!is_step[e.name[i]] || e.kind[i] == EventKind::kGpuUserAnnotation) continue;
    if (e.kind[i] == EventKind::kMetadata || e.kind[i] == EventKind::kFlow) continue;
    g.steps.push_back({number[e.name[i]], i, e.ts[i], e.dur[i]});
  }
  std::sort(g.steps.begin(), g.steps.end(),
            [](const Step& a, const Step& b) { return a.ts < b.ts; });
}

void GraphBuilder::NameTracks() {
  EventGraph& g = trace_->graph;
  // (Track kinds are set in Scan, ClassifyTrack.) Process names apply
  // to every track of the pid.
  std::unordered_map<uint64_t, StringId> process_names;
  auto pid_key = [](const Track& t) {
    return (static_cast<uint64_t>(t.pid) * 1000003u) ^ (static_cast<uint64_t>(t.pid_str) << 40);
  };
  for (const NameRecord& r : names_) {
    Track& t = g.tracks[r.track];
    if (r.kind == NameRecord::kThreadName) t.thread_name = r.value;
    if (r.kind == NameRecord::kProcessName) process_names[pid_key(t)] = r.value;
  }
  for (Track& t : g.tracks) {
    auto it = process_names.find(pid_key(t));
    if (it != process_names.end()) t.process_name = it->second;
  }
}

std::vector<TrackKey> GraphBuilder::NumberTracksByFirstEvent(const std::vector<TrackKey>& tracks) {
  const size_t n = tracks.size();
  PodColumn<TrackId>& column = trace_->graph.events.track;
  std::vector<EventId> first(n, kNoRow);
  for (EventId i = 0; i < column.size(); ++i)
    if (first[column[i]] == kNoRow) first[column[i]] = i;
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  // Tracks without events (named only) after the others, by their key.
  const StringPool& strings = trace_->graph.strings;
  auto key = [&](uint32_t t) {
    const TrackKey& k = tracks[t];
    return std::tuple(first[t], k.pid, k.tid, strings.Get(k.pid_str), strings.Get(k.tid_str));
  };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  bool identity = true;
  for (uint32_t k = 0; k < n && identity; ++k) identity = order[k] == k;
  if (identity) return tracks;
  std::vector<TrackId> renumbered(n);
  std::vector<TrackKey> out(n);
  for (uint32_t k = 0; k < n; ++k) {
    renumbered[order[k]] = k;
    out[k] = tracks[order[k]];
  }
  tbb::parallel_for(tbb::blocked_range<size_t>(0, column.size(), 1 << 16),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t i = r.begin(); i < r.end(); ++i)
                        column[i] = renumbered[column[i]];
                    });
  for (NameRecord& r : names_) r.track = renumbered[r.track];
  return out;
}

void GraphBuilder::Finish(const std::vector<TrackKey>& tracks) {
  for (const TrackKey& k : tracks) {
    Track t;
    t.pid = k.pid;
    t.tid = k.tid;
    t.pid_str = k.pid_str;
    t.tid_str = k.tid_str;
    trace_->graph.tracks.push_back(t);
  }
  TrustTable& trust = trace_->trust;
  trust.Add(TrustId::kNonObjectEvent, defects_.non_object);
  trust.Add(TrustId::kEventWithoutPhase, defects_.missing_ph);
  trust.Add(
      TrustId::kUnknownPhase, defects_.unknown_phase,
      defects_.first_unknown_phase.empty() ? "" : "ph \"" + defects_.first_unknown_phase + "\"");
  trust.Add(TrustId::kEventWithoutValidTs, defects_.invalid_ts);
  trust.Add(TrustId::kCompleteEventWithoutDur, defects_.x_without_dur);
  trust.Add(TrustId::kNegativeDur, defects_.negative_dur);
  trust.Add(TrustId::kNonFiniteNumber, defects_.non_finite, defects_.first_non_finite);
  if (xprof_json_) {
    trust.Add(TrustId::kPicosecondTimeRounded, defects_.rounded_time);
    trust.Add(TrustId::kNonIntegerArgument, defects_.bad_integer_arg,
              defects_.first_bad_integer_arg);
    MapXprofDeviceEvents(names_, &trace_->graph);
  } else {
    trust.Add(TrustId::kSubNanosecondTimeRounded, defects_.rounded_time);
    if (top_level_array_) autograd_profiler_ = MapAutogradProfilerEvents(&trace_->graph);
  }
  PairBeginEnd();
  Scan();
  NoteSyncEventsAbsent();
  // Time order and nesting per track, and the correlation-id join, touch
  // disjoint state; flows need both.
  tbb::parallel_invoke(
      [this] {
        OrderTracks();
        Nest();
      },
      [this] { LinkLaunches(); });
  trace_->trust.Add(TrustId::kCrossingSlice, crossing_slices_);
  LinkFlows();
  CollectSteps();
  NameTracks();
}

}  // namespace th::kineto
