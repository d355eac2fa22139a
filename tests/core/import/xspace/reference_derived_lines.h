// The derived XLA lines as 33dad58 made them (see reference_derived_lines.cc).
#pragma once

#include <cstdint>
#include <string>

#include "core/graph/string_pool.h"
#include "core/import/kineto/parsed_chunk.h"
#include "core/import/kineto/shared_tables.h"

namespace th::xspace::reference {

int64_t AppendDerivedXlaLinesReference(int64_t plane_id, const std::string& plane_name,
                                       int32_t device, const StringPool& strings,
                                       kineto::ThreadTables* tables, kineto::ParsedChunk* chunk);

}  // namespace th::xspace::reference
