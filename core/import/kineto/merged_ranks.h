// Several ranks in one Chrome trace, as TraceLens' TraceFusion merges them.
//
// The layout: every rank's integer pids (and flow ids and correlation ids)
// are offset by rank × 10^k so they stay apart; each process is named
// "RANK <n> - GPU" (it holds kernels, memcpy or memset) or "RANK <n> - CPU"
// (the ranks' own process names are dropped); and "rank": <n> is added to the
// args of every event. Read as one rank, such a file is one rank with many
// GPUs: collectives and stragglers cannot run and per-rank figures mix ranks.
//
// The rule (DetectMergedRanks): a trace is merged when at least one process is
// named "RANK <n> - GPU" or "RANK <n> - CPU". An event then belongs to the
// rank in its args.rank, else to the rank its process is named after; an
// event with neither is counted and left out. SplitMergedRanks cuts the rows
// of the whole file (the importer's phase 1) into one chunk per rank, which
// GraphBuilder turns into one trace per rank as if each rank had its file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/import/kineto/parsed_chunk.h"

namespace th::kineto {

// The rule a split used, as `info` and the trust table name it.
inline constexpr char kMergedRanksRule[] =
    "process names 'RANK <n> - GPU/CPU' and args.rank (TraceLens TraceFusion merge)";

struct RankPart {
  int64_t rank = 0;
  ParsedChunk chunk;             // its rows, args and names; ids renumbered
  std::vector<TrackKey> tracks;  // the chunk's tracks by id
};

struct MergedRanks {
  std::vector<RankPart> parts;  // ascending rank
  int64_t unassigned = 0;       // events with no rank (no args.rank, process not named)
};

// The rank of a "RANK <n> - GPU" / "RANK <n> - CPU" process name, if it is one.
std::optional<int64_t> RankOfProcessName(std::string_view name);

// Phase-1 rows of a whole file (`g`: events and argument tables as appended,
// before GraphBuilder::Finish), its tracks, names and args.rank pairs.
// Nothing when the file is not a merged trace.
std::optional<MergedRanks> SplitMergedRanks(const EventGraph& g,
                                            const std::vector<TrackKey>& tracks,
                                            const std::vector<NameRecord>& names,
                                            const std::vector<std::pair<EventId, int64_t>>& ranks);

}  // namespace th::kineto
