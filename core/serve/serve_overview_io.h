// The on-disk form of a RunOverview (serve_overview.h), stored beside the
// cached index: DIR/overview-FASTKEY.v<kOverviewFormatVersion>.thov, under
// the input's fast key (serve_index_cache.h) so that it is found before the
// import; it holds the content key it was built for.
//
// Layout (little-endian): a 32-byte header (magic "THOVERVW", u32 version,
// u32 0, u64 payload bytes, u64 XXH3-64 of the payload), then the payload:
// content key, events, origin, end, rows, meta tail, and per level its
// dictionary, tiles and bytes. Reading checks the header, the size, the
// checksum and every tile against its bytes (rows, order, lengths, name
// indexes); any failure is an error naming the file, never a crash.
#pragma once

#include <string>
#include <string_view>

#include "core/graph/status.h"
#include "core/serve/serve_overview.h"

namespace th::serve {

// Bump it when the layout, the THVP tile bytes or the choice of levels change:
// an entry of another version is ignored (and rebuilt).
inline constexpr uint32_t kOverviewFormatVersion = 3;  // tiles in THVP version 3

std::string SerializeOverview(const RunOverview& overview);
StatusOr<RunOverview> DeserializeOverview(std::string_view bytes, const std::string& path);

std::string OverviewCachePath(const std::string& dir, const std::string& fast_key);

// NotFound when there is none; another error (naming the file) when unusable.
StatusOr<RunOverview> ReadCachedOverview(const std::string& dir, const std::string& fast_key);
Status WriteCachedOverview(const std::string& dir, const std::string& fast_key,
                           const RunOverview& overview);

}  // namespace th::serve
