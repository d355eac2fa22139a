// The structural level: one step of one rank as a module → op → kernel tree,
// and the alignment of two such trees.
//
// Tree: modules are `nn.Module: …` Python functions and user annotations
// (ProfilerStep#N excluded), ops are cpu_ops, kernels are GPU kernels,
// memcpy and memset. A host node's parent is its nearest enclosing module or
// op on its thread; a kernel hangs under the nearest module or op enclosing
// the runtime call that launched it (the root when it has no launch). Host
// nodes belong to the step whose window holds their start, kernels to the
// step of their launch (their own start when not launched). Children are in
// start order (a kernel by its launch). Each node carries the GPU time of
// its subtree.
//
// Alignment, level by level from the roots: the children of two aligned
// nodes are aligned by edit distance on (level, normalised name) — insertion
// and deletion cost 1, equal names match, different names never do; then
// siblings left unaligned whose names are equal are paired in order (moved:
// the siblings' order differs, as threads interleave differently). Aligned
// pairs recurse. Unaligned modules and ops are reported as added / removed
// subtrees with their GPU time. Unaligned kernels under an aligned pair are
// compared at that pair, their lowest common ancestor: kernels on both sides
// give one "kernels_replaced" row (a cuDNN and a MIOpen convolution under the
// same op), kernels on one side "added" / "removed". Aligned kernels whose
// time differs by more than threshold_ns and 10 % of the larger give a
// "time_changed" row. Sibling lists longer than the DP allows (n·m > 4·10⁶)
// are aligned by name and occurrence instead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/diff/diff_result.h"
#include "core/graph/trace.h"

namespace th::diff {

enum class NodeLevel : uint8_t { kRoot, kModule, kOp, kKernel };
const char* NodeLevelName(NodeLevel l);

struct TreeNode {
  NodeLevel level = NodeLevel::kRoot;
  std::string name;  // normalised
  int64_t start = 0;
  int64_t device_ns = 0;  // GPU time of the subtree
  std::vector<uint32_t> children;
};

// nodes[0] is the root.
struct StepTree {
  std::vector<TreeNode> nodes;
};

// The tree of the step [ts, ts + dur) of `trace`.
StepTree BuildStepTree(const Trace& trace, int64_t ts, int64_t dur);

// Aligns two step trees; fills pair->matched, unmatched counts and rows
// (largest |Δ device| first, at most options.max_structural; the rest
// counted in rows_left_out).
void AlignTrees(const StepTree& a, const StepTree& b, const DiffOptions& options, StepPair* pair);

// Pairs of aligned indices of two name sequences (exposed for tests): the
// longest common subsequence under edit distance, ties resolved to the
// earliest match.
std::vector<std::pair<uint32_t, uint32_t>> AlignSequences(const std::vector<std::string>& a,
                                                          const std::vector<std::string>& b);

}  // namespace th::diff
