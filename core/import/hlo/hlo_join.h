// Joins XLA HLO modules to an imported XProf trace (Trace::xla).
//
// Sources, in order: the "Hlo Proto" stats of the XSpace metadata plane, then
// every `*.hlo_proto.pb` side file in `side_file_dir` (XProf writes them next
// to the .xplane.pb; none when `side_file_dir` is empty). A module met twice (same id and name) is
// kept once, the first copy winning. A payload that does not decode is not fatal: it is counted in
// the trace's trust table (data_loss) with its error, which names the file and byte offset.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/graph/trace.h"
#include "core/import/xspace/xspace_importer.h"

namespace th::hlo {

// `side_file_bytes`: side files already read, (name, content) pairs sorted by
// name (those of a remote input's prefix), joined after `side_file_dir`'s.
void JoinHloModules(Trace* trace, const std::vector<xspace::EmbeddedHloProto>& embedded,
                    const std::string& side_file_dir,
                    const std::vector<std::pair<std::string, std::string>>& side_file_bytes = {});

// The `*.hlo_proto.pb` files directly in `dir`, sorted by name.
std::vector<std::string> FindHloSideFiles(const std::string& dir);

}  // namespace th::hlo
