// The LodIndex as bytes and back, for the on-disk cache (keyed by the trace's
// content hash, by the caller).
//
// Layout, version 1, little-endian, no padding:
//   header (48 bytes): magic "THLODIDX", u32 version, u32 header bytes (48),
//     u64 events of the graph, u64 rows, u64 payload bytes, u64 checksum of
//     the payload (LodChecksum);
//   payload, per row: u32 track, u16 depth, u16 pyramid levels, u32 events n,
//     u32 tree leaves, i64 first start, i64 reach; n × u32 event ids in time
//     order; n × i8 duration classes; 2·leaves × i8 tree max class;
//     2·leaves × i64 tree max end; ceil(n / 64) × i64 first start of each
//     block of 64 events; per pyramid level: u32 level, u32 entries m,
//     m × i64 bucket, m × u32 count, m × i64 busy ns.
// Reading refuses, with an error naming `source`, bytes that are not an index,
// another version, an index of a graph with another event count, truncated or
// trailing bytes, a checksum mismatch, and values out of range for the graph
// (event ids, tracks, classes, levels, bucket order): never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/graph/event_graph.h"
#include "core/graph/status.h"
#include "core/serve/lod_index.h"

namespace th::serve {

inline constexpr uint32_t kLodFormatVersion = 1;

std::string SerializeLodIndex(const LodIndex& index);

// The index stored in `bytes`, reading `graph` (which must outlive it).
StatusOr<LodIndex> DeserializeLodIndex(std::string_view bytes, const EventGraph& graph,
                                       std::string_view source);

// The payload checksum (a 64-bit multiply-xor hash over 8-byte words).
uint64_t LodChecksum(std::string_view bytes);

}  // namespace th::serve
