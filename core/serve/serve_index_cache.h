// The on-disk cache of level-of-detail indexes, keyed by the content of the
// trace: reopening a trace reads its index instead of building it.
//
// Key: XXH3-128 over the format version and, per file of the input (in the
// order ExpandInputs lists them), its size and bytes; 32 hex digits. File
// name: DIR/lod-KEY.v<kLodFormatVersion>.thidx. Files are written atomically
// (a temporary name in DIR, then a rename). A file that does not read back
// (truncated, another graph, checksum) is not an error: the caller rebuilds.
#pragma once

#include <string>

#include "core/graph/event_graph.h"
#include "core/graph/status.h"
#include "core/serve/lod_index.h"

namespace th::serve {

// $XDG_CACHE_HOME/tracehound, else $HOME/.cache/tracehound, else "".
std::string DefaultIndexCacheDir();

// The content key of an input (file, directory, glob, archive); an error names it.
StatusOr<std::string> InputContentKey(const std::string& input);

// The fast key of an input: XXH3-128 over, per file (as ExpandInputs lists
// them), its size, modification time (ns), device, inode and the XXH3 of its
// first and last MiB; 32 hex digits. It reads at most 2 MiB per file, so it
// can find a cache entry before the import; the content key confirms it.
StatusOr<std::string> InputFastKey(const std::string& input);

// Writes `bytes` to `path` (in `dir`, created if needed) through a
// temporary name and a rename: a reader never sees half a file.
Status WriteFileAtomically(const std::string& dir, const std::string& path,
                           const std::string& bytes);

std::string IndexCachePath(const std::string& dir, const std::string& key);

// The cached index of `graph` under `key`: NotFound when there is none,
// another error (naming the file) when the file is there but unusable.
StatusOr<LodIndex> ReadCachedIndex(const std::string& dir, const std::string& key,
                                   const EventGraph& graph);

// Stores `index` under `key`, creating `dir` if needed.
Status WriteCachedIndex(const std::string& dir, const std::string& key, const LodIndex& index);

}  // namespace th::serve
