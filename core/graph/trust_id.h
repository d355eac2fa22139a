// TrustId: every kind of defect an importer or loader can put in a trust
// table, listed once with its stable name, its severity and its description.
// Call sites add and count by id; the severity and the text shown in reports
// come from this list only. A name is snake_case and never changes once
// released (JSON outputs carry it as `id`); a description is the sentence
// reports show.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace th {

enum class Severity : uint8_t { kInfo, kDataLoss, kError };
std::string_view SeverityName(Severity s);

// X(enumerator, name, severity, description)
#define TH_TRUST_IDS(X)                                                                            \
  /* Kineto/Chrome JSON: events */                                                                 \
  X(kNonObjectEvent, "non_object_event", kDataLoss, "non-object element in traceEvents (skipped)") \
  X(kEventWithoutPhase, "event_without_phase", kDataLoss, "event without ph")                      \
  X(kUnknownPhase, "unknown_phase", kDataLoss, "event with an unknown phase")                      \
  X(kEventWithoutValidTs, "event_without_valid_ts", kDataLoss, "event without a valid ts")         \
  X(kCompleteEventWithoutDur, "complete_event_without_dur", kDataLoss,                             \
    "complete (X) event without dur")                                                              \
  X(kNegativeDur, "negative_dur", kDataLoss, "event with a negative dur")                          \
  X(kNonFiniteNumber, "non_finite_number", kDataLoss,                                              \
    "non-finite number (NaN/Infinity: not JSON; value not used)")                                  \
  X(kPicosecondTimeRounded, "picosecond_time_rounded", kInfo,                                      \
    "time value with picosecond digits (rounded to the nearest ns)")                               \
  X(kSubNanosecondTimeRounded, "sub_nanosecond_time_rounded", kInfo,                               \
    "time value with digits below 1 ns (rounded half to even)")                                    \
  X(kNonIntegerArgument, "non_integer_argument", kDataLoss,                                        \
    "argument that should hold an integer does not (value ignored)")                               \
  X(kUnmatchedEndEvent, "unmatched_end_event", kDataLoss, "E event without a matching B")          \
  X(kUnmatchedBeginEvent, "unmatched_begin_event", kDataLoss,                                      \
    "B event without a matching E (duration unknown, kept as 0)")                                  \
  X(kCrossingSlice, "crossing_slice", kInfo,                                                       \
    "slice overlaps its enclosing slice on the same thread (not nested)")                          \
  /* Kineto/Chrome JSON: launches and flows */                                                     \
  X(kKernelLaunchedBeforeCapture, "kernel_launched_before_capture", kInfo,                         \
    "kernel with no launch event: launched before the capture window started")                     \
  X(kKernelWithoutLaunch, "kernel_without_launch", kDataLoss,                                      \
    "kernel with no launch event inside the capture window")                                       \
  X(kCopyWithoutLaunch, "copy_without_launch", kInfo, "memcpy/memset with no launch event")        \
  X(kKernelWithoutCorrelationId, "kernel_without_correlation_id", kInfo,                           \
    "kernel without a correlation id (the capture does not link device work to launches)")         \
  X(kGpuSyncEventsAbsent, "gpu_sync_events_absent", kInfo,                                         \
    "synchronising runtime call (stream wait, stream/device/event sync) with no GPU sync event "   \
    "in the trace (cuda_sync not recorded): the GPU side of the wait is inferred")                 \
  X(kFlowEndWithoutStart, "flow_end_without_start", kInfo,                                         \
    "flow end (f/t) whose start (s) is not in the trace")                                          \
  X(kFlowStartWithoutEnd, "flow_start_without_end", kInfo,                                         \
    "flow start (s) whose end is not in the trace")                                                \
  X(kUnboundFlowPoint, "unbound_flow_point", kInfo, "flow point not bound to any slice")           \
  /* Kineto/Chrome JSON: the file */                                                               \
  X(kMalformedTopLevelValue, "malformed_top_level_value", kDataLoss,                               \
    "top-level key with malformed JSON value (not read)")                                          \
  X(kTrailingComma, "trailing_comma", kInfo,                                                       \
    "trailing comma before the end of traceEvents (invalid JSON, tolerated)")                      \
  X(kInputTruncated, "input_truncated", kError,                                                    \
    "input truncated: events after the cut are missing (kept the complete ones)")                  \
  X(kBareEventArray, "bare_event_array", kInfo,                                                    \
    "a bare event array, no traceEvents object: the file has no distributedInfo, "                 \
    "deviceProperties or baseTimeNanoseconds (rank from a run manifest or the file name)")         \
  X(kAutogradProfilerTrace, "autograd_profiler_trace", kInfo,                                      \
    "autograd profiler trace (PyTorch without Kineto): no GPU kernels, launch correlation, "       \
    "memory events or input shapes recorded")                                                      \
  X(kMergedRanksSplit, "merged_ranks_split", kInfo,                                                \
    "a merged trace of several ranks, split into one trace per rank")                              \
  X(kMergedTraceEventWithoutRank, "merged_trace_event_without_rank", kDataLoss,                    \
    "event of a merged trace with no rank (no args.rank, process not named RANK n)")               \
  /* XSpace */                                                                                     \
  X(kEventDerivedFromKernelLabels, "event_derived_from_kernel_labels", kInfo,                      \
    "event derived from GPU kernel labels (XLA Modules / XLA Ops / Steps lines)")                  \
  /* HLO modules and kernel attribution */                                                         \
  X(kHloModuleUndecodable, "hlo_module_undecodable", kDataLoss,                                    \
    "HLO module that does not decode (skipped)")                                                   \
  X(kHloModuleDuplicate, "hlo_module_duplicate", kInfo,                                            \
    "HLO module found twice (metadata plane and side file; kept once)")                            \
  X(kHloOperandUnresolved, "hlo_operand_unresolved", kDataLoss,                                    \
    "HLO operand id that resolves to no instruction")                                              \
  X(kHloWhileTripCountUnknown, "hlo_while_trip_count_unknown", kInfo,                              \
    "HLO while loop without a known trip count (expanded once)")                                   \
  X(kHloScheduleCut, "hlo_schedule_cut", kDataLoss,                                                \
    "HLO module schedule cut at 4M kernels (attribution past it is none)")                         \
  X(kGpuEventUnknownHloModule, "gpu_event_unknown_hlo_module", kDataLoss,                          \
    "GPU event whose XLA module is not among the capture's HLO modules")                           \
  X(kGpuEventUnknownHloOp, "gpu_event_unknown_hlo_op", kDataLoss,                                  \
    "GPU event whose hlo_op is not an instruction of its module")                                  \
  X(kGpuEventFromRuntimeTransfer, "gpu_event_from_runtime_transfer", kInfo,                        \
    "GPU event launched by an unlabelled memcpy/memset call (runtime transfer, none)")             \
  /* Inputs: directories, archives, the set of ranks */                                            \
  X(kJaxJsonBesideXPlane, "jax_json_beside_xplane", kInfo,                                         \
    "JAX JSON trace beside its .xplane.pb (same capture; the .xplane.pb is read)")                 \
  X(kDirectoryTraceFileNotRegular, "directory_trace_file_not_regular", kDataLoss,                  \
    "file in an input directory that is not a regular file (not read)")                            \
  X(kDirectoryOtherFileNotRegular, "directory_other_file_not_regular", kInfo,                      \
    "file in an input directory that is not a regular file, not named like a trace (not read)")    \
  X(kDirectoryFileOtherFormat, "directory_file_other_format", kInfo,                               \
    "file in an input directory with another format (not .json/.json.gz/.xplane.pb/archive)")      \
  X(kInputOtherJsonDocument, "input_other_json_document", kInfo,                                   \
    "input skipped: a JSON document of another kind (no traceEvents)")                             \
  X(kInputNotATrace, "input_not_a_trace", kDataLoss,                                               \
    "input skipped: empty or not a trace (if it was a rank, the run misses it)")                   \
  X(kArchiveMemberHardLink, "archive_member_hard_link", kInfo,                                     \
    "archive member that is a hard link (its content is read once, under the name it links to)")   \
  X(kArchiveTraceMemberNotRegular, "archive_trace_member_not_regular", kDataLoss,                  \
    "archive member that is not a regular file (link, FIFO or device: not read)")                  \
  X(kArchiveOtherMemberNotRegular, "archive_other_member_not_regular", kInfo,                      \
    "archive member that is not a regular file, not named like a trace (link, FIFO or device: "    \
    "not read)")                                                                                   \
  X(kArchiveMemberOtherFormat, "archive_member_other_format", kInfo,                               \
    "archive member of no trace format (not read)")                                                \
  X(kRunManifestRead, "run_manifest_read", kInfo,                                                  \
    "rank, host and start time read from the run manifest beside the trace (tracehound.capture)")  \
  X(kRunManifestUnreadable, "run_manifest_unreadable", kDataLoss,                                  \
    "run manifest beside the trace that does not read (its rank, host and start time not used)")   \
  X(kDuplicateRank, "duplicate_rank", kDataLoss, "two inputs claim the same rank")

enum class TrustId : uint16_t {
#define TH_TRUST_ID_ENUMERATOR(id, name, severity, description) id,
  TH_TRUST_IDS(TH_TRUST_ID_ENUMERATOR)
#undef TH_TRUST_ID_ENUMERATOR
};

struct TrustIdInfo {
  TrustId id;
  std::string_view name;  // stable snake_case, e.g. "kernel_without_launch"
  Severity severity;
  std::string_view description;  // the sentence reports show
};

// Every id, in list order.
std::span<const TrustIdInfo> AllTrustIds();
const TrustIdInfo& InfoOf(TrustId id);

}  // namespace th
