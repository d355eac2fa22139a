// The XSpace importer before its speed rewrite (see the .cc): the reference
// the equivalence test compares ImportXSpaceFile with.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/graph/trace.h"
#include "core/import/xspace/xspace_importer.h"

namespace th::xspace::reference {

StatusOr<std::unique_ptr<Trace>> ImportXSpaceFileReference(
    const std::string& path, std::vector<EmbeddedHloProto>* hlo_protos = nullptr);

}  // namespace th::xspace::reference
