// XSpace (.xplane.pb) → one Trace in the common event graph.
//
// Every line of every plane is a track (pid = plane id, tid = line id; names
// from the plane and line). Device planes' stream lines ("Stream #N") hold GPU
// activity: kernels, and memcpy/memset by name; TPU "XLA Ops" lines hold device
// ops (as kernels). Host-plane events are host slices. Times: line
// timestamp_ns + offset_ps / 1000, rounded to the nearest ns (picosecond digits
// below that are counted in the trust table). The `correlation_id` stat links
// kernels to their launches.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/status.h"
#include "core/graph/trace.h"

namespace th::xspace {

// An "Hlo Proto" stat of the metadata plane: the serialized xla.HloProto and
// where it was found (for error messages).
struct EmbeddedHloProto {
  std::string where;  // "<path>: metadata plane event 'jit_f(12)'"
  std::string bytes;
};

// Device events and the host calls that launched them get a row in
// EventGraph::xla_labels (hlo_op, hlo_module, program_id, op name, source,
// group_id). On TPU the op's own name is its hlo_op and the module name comes
// from the "XLA Modules" line ("jit_f(<program fingerprint>)").
// When `hlo_protos` is given, the metadata plane's HLO modules are copied
// there, undecoded (core/import/hlo joins them to the trace).
// The file is decoded straight into the graph, a batch of events at a time
// (StreamXSpaceFile): no model of the whole capture is held. Lines' trailing
// fields are first guessed from their ends; when a guess proves wrong the
// file is decoded again with every line skimmed first (same result, slower).
StatusOr<std::unique_ptr<Trace>> ImportXSpaceFile(
    const std::string& path, std::vector<EmbeddedHloProto>* hlo_protos = nullptr);

// The same over a capture held in memory (an archive member); `name` names it
// in the trace and in errors, `stored_bytes` is its size as stored.
StatusOr<std::unique_ptr<Trace>> ImportXSpaceBytes(
    std::string_view bytes, const std::string& name, uint64_t stored_bytes,
    std::vector<EmbeddedHloProto>* hlo_protos = nullptr);

// The same through the whole in-memory model (ReadXSpaceFile, then the same
// conversion): what ImportXSpaceFile falls back to, and a check for tests.
StatusOr<std::unique_ptr<Trace>> ImportXSpaceFileFromModel(
    const std::string& path, std::vector<EmbeddedHloProto>* hlo_protos = nullptr);

}  // namespace th::xspace
