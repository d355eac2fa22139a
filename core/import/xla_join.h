// XProf captures after import: HLO modules from the metadata plane and the
// `*.hlo_proto.pb` side files in the trace's directory, then kernel ->
// instruction attribution.
#pragma once

#include <vector>

#include "core/graph/trace.h"
#include "core/import/xspace/xspace_importer.h"

namespace th {

// `with_side_files`: false for a trace read from an archive member (no
// directory of its own). A remote trace's side files are the
// `*.hlo_proto.pb` objects beside it (same prefix); one that cannot be
// listed or read is counted as an undecodable module, with the reason.
void JoinXla(Trace* trace, const std::vector<xspace::EmbeddedHloProto>& embedded,
             bool with_side_files);

}  // namespace th
