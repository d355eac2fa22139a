// XLA lines derived from GPU kernel labels, as XProf derives them at analysis
// time (a raw GPU capture has only stream lines; formats.md §1.6).
//
// Per GPU device (all its streams, in time order), consecutive labelled
// device events with the same key become one derived event spanning them:
//   "Steps"       key group_id          name "<group_id>"
//   "XLA Modules" key module/program_id name "<module>(<program_id>)"
//   "XLA Ops"     key module + hlo_op   name "<hlo_op>"
// on tracks (pid = device plane id, tid = 0xdeadbeef + 0 / 4 / 5, XProf's
// derived line ids). Derived events have kind other, category "derived" and
// kFlagDerived; summaries of what the file held leave them out.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/string_pool.h"
#include "core/import/kineto/parsed_chunk.h"
#include "core/import/kineto/shared_tables.h"

namespace th::xspace {

// `chunk` holds the whole capture's events, GPU args and XLA labels. For each
// of `gpu_planes` ({plane id, name}; the plane id is the device of its GPU
// rows), in order, its derived lines are appended; one pass over the labels
// serves all of them. Returns the number of derived events appended.
int64_t AppendDerivedXlaLines(const std::vector<std::pair<int64_t, std::string>>& gpu_planes,
                              const StringPool& strings, kineto::ThreadTables* tables,
                              kineto::ParsedChunk* chunk);

}  // namespace th::xspace
