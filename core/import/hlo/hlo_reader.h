// Reads XLA HLO modules (`*.hlo_proto.pb` side files, or the bytes of an
// "Hlo Proto" XStat) without libprotobuf.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/graph/hlo_model.h"
#include "core/graph/status.h"

namespace th::hlo {

// Decodes an `xla.HloProto` (field 1 = hlo_module, 3 = buffer_assignment) or a
// bare `xla.HloModuleProto`, choosing exactly as ../shared/tools/oracle.py
// does: it is an HloProto when the top level holds only fields 1 and 3, field
// 1 occurs once as a message and that message has computations (field 3) or an
// entry_computation_name (field 2). Decoding is strict (see
// core/import/xspace/wire_reader.h); errors read
// "<name>: <what> at byte offset N (in <path>)", e.g. path
// `hlo_module.computations[1].instructions[4].shape`. The result holds one
// module (both containers carry exactly one).
th::StatusOr<std::vector<HloModule>> ReadHloProto(std::string_view bytes, const std::string& name);

// Reads the file and decodes it; the name in errors is `path`.
th::StatusOr<std::vector<HloModule>> ReadHloProtoFile(const std::string& path);

}  // namespace th::hlo
