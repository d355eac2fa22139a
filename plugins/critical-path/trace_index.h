// What the critical path needs of one trace, worked out once for all its
// windows: the runtime call of each GPU event (same correlation; else, for a
// GPU activity, the host call of its launch edge: XSpace captures), in one
// list by the call's start (no array over every event), whether
// each activity was launched into an empty stream queue (HTA's queue length:
// +1 at a launch call, -1 when the activity starts), the CPU thread
// each host event's call stack runs on (the backward thread merged into the
// forward thread, as HTA does), the role of each name, and the launch calls
// and cudaEventRecord calls in time order for event synchronisation.
#pragma once

#include <tracehound/sdk.h>

#include <cstdint>
#include <exception>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "call_by_correlation.h"
#include "cp_graph.h"

namespace th::critical_path {

// Roles of an event by its name (bit flags).
enum NameRole : uint8_t {
  kRuntimeLock = 1,   // cudaLaunchKernel, cudaMemcpyAsync, cudaHostAlloc: hold the runtime lock
  kBlocking = 2,      // synchronising calls: their own time is a wait (weight 0)
  kLaunchCall = 4,    // enqueues a GPU activity (counts in the queue length)
  kEventRecord = 8,   // cudaEventRecord
  kStreamSync = 16,   // GPU sync "Stream Sync"
  kContextSync = 32,  // GPU sync "Context Sync"
  kEventSync = 64,    // GPU sync "Event Sync"
  kStreamWait = 128,  // GPU sync "Stream Wait Event"
};

class TraceIndex {
 public:
  // `annotation`: the text whose instances annotated() lists ("" none);
  // `activity_lookup`: whether ActivityAt will be asked (paths across ranks).
  explicit TraceIndex(const th::sdk::Trace& t, std::string_view annotation = {},
                      bool activity_lookup = true);

  // A host call and a GPU event of its (the activity it launched, or a sync
  // it waited in: the event with its correlation id; an activity without
  // one: that of its launch edge); ts: the call's.
  struct Link {
    int64_t ts;
    uint32_t call, gpu;
  };

  uint8_t role(uint64_t event) const { return role_[event]; }
  // Whether the activity was launched into an empty stream queue: the queue
  // length was 1 after its launch call and 0 after its start (false when it
  // was not launched by a launch call).
  bool launched_into_empty_queue(uint64_t event) const {
    return queue_bits_[event] == (kOneAfterLaunch | kEmptyAfterStart);
  }
  // The call-stack thread of a CPU track (tracks merged by HTA's rule).
  uint32_t thread_of(uint32_t track) const { return thread_of_[track]; }
  // A CPU op or a runtime/driver call.
  bool is_node_kind(uint64_t event) const {
    const uint32_t k = t_.kind(event);
    return k == TH_EVENT_CPU_OP || k == TH_EVENT_RUNTIME || k == TH_EVENT_DRIVER;
  }
  bool has_sync_events() const { return has_sync_; }
  bool has_event_records() const { return !records_by_thread_.empty(); }
  bool is_stream_wait_call(uint64_t event) const {
    return stream_wait_names_.count(t_.name_id(event)) != 0;
  }

  // The activity the event a sync waits on was recorded after: the last
  // launch on the recorded stream before the last cudaEventRecord on the
  // waiting call's thread (the recorded stream: that of the thread's last
  // launch before the record). kNone if not found.
  uint32_t RecordedActivity(uint32_t wait_call) const;
  // The first activity launched on `stream_track` (kNone: any stream) from
  // the thread of `wait_call` after it, kNone if none. Asked only where
  // RecordedActivity found one: in a trace without cudaEventRecord calls it
  // answers kNone (the launch lists it reads are not kept).
  uint32_t NextActivity(uint32_t wait_call, uint32_t stream_track) const;
  // Host ops and calls (on CPU tracks) by start, then row.
  const std::vector<uint32_t>& host_by_start() const { return host_by_start_; }
  // The events whose name holds the annotation, by row: on a CPU track,
  // neither flows, metadata nor GPU user annotations.
  const std::vector<uint32_t>& annotated() const { return annotated_; }
  // GPU syncs on no stream (Event Sync, Context Sync) with their host call,
  // by the sync's start, then row.
  const std::vector<Link>& unstreamed_syncs() const { return unstreamed_syncs_; }
  // Every GPU event with a host call, by (the call's ts, call, event row):
  // the GPU events of the host calls that start in a window are one stretch
  // of it, in host_by_start()'s order.
  const std::vector<Link>& links() const { return links_; }
  // The GPU activity that starts at `ts` and lasts `dur` (ns), kNone if none;
  // throws when the index was built without the activity lookup.
  uint32_t ActivityAt(int64_t ts, int64_t dur) const;

 private:
  void IndexNames(const th::sdk::Trace& t, std::string_view annotation);
  // Lists the host events (host_by_start_, sorted on host_sort_) and the GPU
  // activities by start; returns the host calls' (correlation, row) and puts
  // the GPU activities and syncs, by row, in *gpu.
  std::vector<std::pair<int64_t, uint32_t>> ListEvents(const th::sdk::Trace& t,
                                                       std::vector<uint32_t>* gpu,
                                                       bool activity_lookup);
  // links_ of the GPU events `gpu` (by row).
  void LinkCalls(const th::sdk::Trace& t, const CallByCorrelation& call_of,
                 const std::vector<uint32_t>& gpu);
  // From links_: the syncs on no stream.
  void IndexUnstreamedSyncs(const th::sdk::Trace& t);
  void IndexQueues(const th::sdk::Trace& t);
  void MergeThreads(const th::sdk::Trace& t);

  const th::sdk::Trace& t_;
  std::vector<uint8_t> on_stream_;  // per track: 1 for a GPU stream
  std::vector<uint8_t> role_;
  std::vector<Link> links_;
  enum : uint8_t { kOneAfterLaunch = 1, kEmptyAfterStart = 2 };
  std::vector<uint8_t> queue_bits_;  // per event: the bits above
  std::vector<uint32_t> thread_of_;
  bool has_sync_ = false;
  std::unordered_set<uint32_t> stream_wait_names_;  // ids of "cudaStreamWaitEvent"
  // A launch: a Link whose call is a launch call and whose event an activity
  // on a stream (the activity's track).
  std::unordered_map<uint32_t, std::vector<Link>> launches_by_thread_, launches_by_stream_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> records_by_thread_;
  bool activity_lookup_ = false;
  std::vector<std::pair<int64_t, uint32_t>> activity_at_;  // (start ts, GPU activity), sorted
  std::vector<uint32_t> host_by_start_, annotated_;
  std::vector<Link> unstreamed_syncs_;
  std::thread host_sort_;  // sorts host_by_start_ while the constructor goes on
  std::exception_ptr host_sort_error_;
};

}  // namespace th::critical_path
