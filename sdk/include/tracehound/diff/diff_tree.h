// The structural level: one step of one rank as a module → op → kernel tree,
// and the alignment of two such trees. Header-only, over ProfileTrace columns
// (the `tracehound diff` command and the `trace-diff` plugin alike).
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
#ifndef TRACEHOUND_DIFF_DIFF_TREE_H_
#define TRACEHOUND_DIFF_DIFF_TREE_H_

#include <tracehound/diff/diff_names.h>
#include <tracehound/diff/diff_profile.h>
#include <tracehound/diff/diff_types.h>
#include <tracehound/plugin_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace th::diff {

enum class NodeLevel : uint8_t { kRoot, kModule, kOp, kKernel };

inline const char* NodeLevelName(NodeLevel l) {
  switch (l) {
    case NodeLevel::kRoot:
      return "root";
    case NodeLevel::kModule:
      return "module";
    case NodeLevel::kOp:
      return "op";
    case NodeLevel::kKernel:
      return "kernel";
  }
  return "root";
}

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

// Pairs of aligned indices of two name sequences: the longest common
// subsequence under edit distance, ties resolved to the earliest match.
inline std::vector<std::pair<uint32_t, uint32_t>> AlignSequences(const std::vector<std::string>& a,
                                                                 const std::vector<std::string>& b);

namespace tree_internal {

inline constexpr size_t kMaxDpCells = 4'000'000;

// Whether a host event is a tree node, a module or an op (cached per name id).
inline NodeLevel HostLevel(const ProfileTrace& t, uint64_t e, std::vector<int8_t>* cache) {
  const uint32_t k = t.kind[e];
  if (k == TH_EVENT_CPU_OP) return NodeLevel::kOp;
  if (k != TH_EVENT_USER_ANNOTATION && k != TH_EVENT_PYTHON_FUNCTION) return NodeLevel::kRoot;
  const uint32_t name = t.name[e];
  if (name >= cache->size()) cache->resize(name + 1, -1);
  int8_t& c = (*cache)[name];
  if (c < 0) {
    const std::string_view s = t.string(name);
    c = k == TH_EVENT_USER_ANNOTATION ? !s.starts_with("ProfilerStep#")
                                      : s.starts_with("nn.Module: ");
  }
  return c ? NodeLevel::kModule : NodeLevel::kRoot;
}

// The nearest node enclosing `e` (e excluded), or the root.
inline uint32_t EnclosingNode(const ProfileTrace& t, uint32_t e,
                              const std::unordered_map<uint32_t, uint32_t>& node_of) {
  for (uint32_t p = t.parent[e]; p != 0xFFFFFFFFu; p = t.parent[p]) {
    auto it = node_of.find(p);
    if (it != node_of.end()) return it->second;
  }
  return 0;
}

struct Aligner {
  const StepTree& a;
  const StepTree& b;
  const DiffOptions& options;
  StepPair* pair;

  int64_t Size(const StepTree& t, uint32_t n) const {
    int64_t s = 1;
    for (uint32_t c : t.nodes[n].children) s += Size(t, c);
    return s;
  }

  static std::vector<std::string> Keys(const StepTree& t, uint32_t n) {
    std::vector<std::string> keys;
    for (uint32_t c : t.nodes[n].children)
      keys.push_back(std::string(1, static_cast<char>('0' + static_cast<int>(t.nodes[c].level))) +
                     t.nodes[c].name);
    return keys;
  }

  void Row(const char* kind, const std::vector<std::string>& path, NodeLevel level,
           std::string a_name, std::string b_name, int64_t a_ns, int64_t b_ns) {
    pair->rows.push_back(
        {kind, path, NodeLevelName(level), std::move(a_name), std::move(b_name), a_ns, b_ns});
  }

  // Unaligned kernels of one side under an aligned pair: distinct names
  // joined by "; " in order, and their summed time.
  static std::pair<std::string, int64_t> Kernels(const StepTree& t,
                                                 const std::vector<uint32_t>& ks) {
    std::vector<std::string_view> names;
    int64_t ns = 0;
    for (uint32_t k : ks) {
      ns += t.nodes[k].device_ns;
      if (std::find(names.begin(), names.end(), t.nodes[k].name) == names.end())
        names.push_back(t.nodes[k].name);
    }
    std::string joined;
    for (std::string_view n : names) joined += (joined.empty() ? "" : "; ") + std::string(n);
    return {joined, ns};
  }

  void Align(uint32_t na, uint32_t nb, std::vector<std::string>& path) {
    ++pair->matched;
    const auto& ca = a.nodes[na].children;
    const auto& cb = b.nodes[nb].children;
    const std::vector<std::string> keys_a = Keys(a, na), keys_b = Keys(b, nb);
    auto matches = AlignSequences(keys_a, keys_b);
    std::vector<bool> used_a(ca.size(), false), used_b(cb.size(), false);
    for (auto [i, j] : matches) used_a[i] = used_b[j] = true;
    // Moves: unaligned siblings with equal names, paired in order.
    std::unordered_map<std::string_view, std::vector<uint32_t>> free_b;
    for (size_t j = cb.size(); j-- > 0;)
      if (!used_b[j]) free_b[keys_b[j]].push_back(static_cast<uint32_t>(j));
    for (size_t i = 0; i < ca.size(); ++i) {
      if (used_a[i]) continue;
      auto it = free_b.find(keys_a[i]);
      if (it == free_b.end() || it->second.empty()) continue;
      const uint32_t j = it->second.back();
      it->second.pop_back();
      used_a[i] = used_b[j] = true;
      matches.emplace_back(static_cast<uint32_t>(i), j);
    }
    for (auto [i, j] : matches) {
      const TreeNode& x = a.nodes[ca[i]];
      const TreeNode& y = b.nodes[cb[j]];
      if (x.level == NodeLevel::kKernel) {
        ++pair->matched;
        const int64_t d = std::llabs(y.device_ns - x.device_ns);
        if (d > options.threshold_ns && d * 10 > std::max(x.device_ns, y.device_ns))
          Row("time_changed", path, x.level, x.name, y.name, x.device_ns, y.device_ns);
        continue;
      }
      path.push_back(x.name);
      Align(ca[i], cb[j], path);
      path.pop_back();
    }
    std::vector<uint32_t> ka, kb;
    for (size_t i = 0; i < ca.size(); ++i) {
      if (used_a[i]) continue;
      const TreeNode& x = a.nodes[ca[i]];
      pair->a_unmatched += Size(a, ca[i]);
      if (x.level == NodeLevel::kKernel)
        ka.push_back(ca[i]);
      else
        Row("removed", path, x.level, x.name, "", x.device_ns, 0);
    }
    for (size_t j = 0; j < cb.size(); ++j) {
      if (used_b[j]) continue;
      const TreeNode& y = b.nodes[cb[j]];
      pair->b_unmatched += Size(b, cb[j]);
      if (y.level == NodeLevel::kKernel)
        kb.push_back(cb[j]);
      else
        Row("added", path, y.level, "", y.name, 0, y.device_ns);
    }
    auto [an, ans] = Kernels(a, ka);
    auto [bn, bns] = Kernels(b, kb);
    if (!ka.empty() && !kb.empty())
      Row("kernels_replaced", path, NodeLevel::kKernel, an, bn, ans, bns);
    else if (!ka.empty())
      Row("removed", path, NodeLevel::kKernel, an, "", ans, 0);
    else if (!kb.empty())
      Row("added", path, NodeLevel::kKernel, "", bn, 0, bns);
  }
};

// Alignment by name and occurrence: the k-th `x` of a with the k-th `x` of b.
inline std::vector<std::pair<uint32_t, uint32_t>> AlignByOccurrence(
    const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::unordered_map<std::string_view, std::vector<uint32_t>> in_b;
  for (uint32_t j = 0; j < b.size(); ++j) in_b[b[j]].push_back(j);
  std::unordered_map<std::string_view, size_t> seen;
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint32_t i = 0; i < a.size(); ++i) {
    auto it = in_b.find(a[i]);
    if (it == in_b.end()) continue;
    size_t& k = seen[a[i]];
    if (k < it->second.size()) out.emplace_back(i, it->second[k++]);
  }
  return out;
}

}  // namespace tree_internal

// The tree of the step [ts, ts + dur) of `trace` (its launch pairs in the
// order the trace lists them).
inline StepTree BuildStepTree(const ProfileTrace& trace, int64_t ts, int64_t dur) {
  using tree_internal::EnclosingNode;
  const ProfileTrace& g = trace;
  const ProfileTrace& ev = trace;
  const int64_t end = ts + dur;
  StepTree t;
  t.nodes.emplace_back();
  t.nodes[0].start = ts;
  std::vector<int8_t> cache;
  std::vector<std::pair<uint32_t, NodeLevel>> host;
  for (uint32_t e = 0; e < ev.events; ++e) {
    if (ev.ts[e] < ts || ev.ts[e] >= end) continue;
    const NodeLevel l = tree_internal::HostLevel(g, e, &cache);
    if (l != NodeLevel::kRoot) host.emplace_back(e, l);
  }
  std::sort(host.begin(), host.end(), [&](const auto& x, const auto& y) {
    return std::make_tuple(ev.ts[x.first], -ev.dur[x.first], x.first) <
           std::make_tuple(ev.ts[y.first], -ev.dur[y.first], y.first);
  });
  std::unordered_map<uint32_t, uint32_t> node_of;
  std::vector<uint32_t> parent{0};
  for (auto [e, level] : host) {
    const uint32_t p = EnclosingNode(g, e, node_of);
    const auto id = static_cast<uint32_t>(t.nodes.size());
    node_of[e] = id;
    t.nodes.push_back({level, NormaliseName(g.string(ev.name[e])), ev.ts[e], 0, {}});
    t.nodes[p].children.push_back(id);
    parent.push_back(p);
  }
  std::vector<uint8_t> launched(ev.events, 0);
  auto add_kernel = [&](uint32_t k, uint32_t p, int64_t start) {
    const auto id = static_cast<uint32_t>(t.nodes.size());
    const int64_t d = std::max<int64_t>(ev.dur[k], 0);
    t.nodes.push_back({NodeLevel::kKernel, NormaliseName(g.string(ev.name[k])), start, d, {}});
    t.nodes[p].children.push_back(id);
    parent.push_back(p);
    for (uint32_t q = p;; q = parent[q]) {
      t.nodes[q].device_ns += d;
      if (q == 0) break;
    }
  };
  for (uint64_t i = 0; i < g.launches; ++i) {
    const uint32_t src = g.launch[i], dst = g.launched[i];
    if (!profile_internal::IsGpuActivity(ev.kind[dst])) continue;
    launched[dst] = 1;
    if (ev.ts[src] < ts || ev.ts[src] >= end) continue;
    add_kernel(dst, EnclosingNode(g, src, node_of), ev.ts[src]);
  }
  for (uint32_t e = 0; e < ev.events; ++e)
    if (profile_internal::IsGpuActivity(ev.kind[e]) && !launched[e] && ev.ts[e] >= ts &&
        ev.ts[e] < end)
      add_kernel(e, 0, ev.ts[e]);
  for (TreeNode& n : t.nodes)
    std::stable_sort(n.children.begin(), n.children.end(),
                     [&](uint32_t x, uint32_t y) { return t.nodes[x].start < t.nodes[y].start; });
  return t;
}

inline std::vector<std::pair<uint32_t, uint32_t>> AlignSequences(
    const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const size_t n = a.size(), m = b.size();
  if (n == 0 || m == 0) return {};
  if ((n + 1) * (m + 1) > tree_internal::kMaxDpCells) return tree_internal::AlignByOccurrence(a, b);
  // Names as ids, then lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  std::unordered_map<std::string_view, uint32_t> ids;
  std::vector<uint32_t> ia(n), ib(m);
  for (size_t i = 0; i < n; ++i) ia[i] = ids.try_emplace(a[i], ids.size()).first->second;
  for (size_t j = 0; j < m; ++j) ib[j] = ids.try_emplace(b[j], ids.size()).first->second;
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      at(i, j) = ia[i] == ib[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  std::vector<std::pair<uint32_t, uint32_t>> out;
  size_t i = 0, j = 0;
  while (i < n && j < m) {
    if (ia[i] == ib[j] && at(i, j) == at(i + 1, j + 1) + 1) {
      out.emplace_back(static_cast<uint32_t>(i++), static_cast<uint32_t>(j++));
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

// Aligns two step trees; fills pair->matched, unmatched counts and rows
// (largest |Δ device| first, at most options.max_structural; the rest
// counted in rows_left_out).
inline void AlignTrees(const StepTree& a, const StepTree& b, const DiffOptions& options,
                       StepPair* pair) {
  tree_internal::Aligner aligner{a, b, options, pair};
  std::vector<std::string> path;
  aligner.Align(0, 0, path);
  --pair->matched;  // the roots
  auto& rows = pair->rows;
  std::stable_sort(rows.begin(), rows.end(), [](const StructuralRow& x, const StructuralRow& y) {
    return std::llabs(x.b_device_ns - x.a_device_ns) > std::llabs(y.b_device_ns - y.a_device_ns);
  });
  if (static_cast<int64_t>(rows.size()) > options.max_structural) {
    pair->rows_left_out = static_cast<int64_t>(rows.size()) - options.max_structural;
    rows.resize(static_cast<size_t>(options.max_structural));
  }
}

// Step pairs: the i-th trace of A with the i-th of B, their k-th kept steps
// together, at most max_step_pairs in all, each pair's trees aligned.
inline std::vector<StepPair> AlignStepPairs(const std::vector<ProfileTrace>& ta, const Profile& a,
                                            const std::vector<ProfileTrace>& tb, const Profile& b,
                                            const DiffOptions& options) {
  std::vector<StepPair> out;
  const size_t traces = std::min(ta.size(), tb.size());
  for (size_t t = 0; t < traces; ++t) {
    std::vector<const ProfileStep*> xa, xb;
    for (const ProfileStep& s : a.steps)
      if (s.trace == t) xa.push_back(&s);
    for (const ProfileStep& s : b.steps)
      if (s.trace == t) xb.push_back(&s);
    for (size_t k = 0; k < std::min(xa.size(), xb.size()); ++k) {
      if (static_cast<int64_t>(out.size()) >= options.max_step_pairs) return out;
      StepPair p;
      p.a_rank = xa[k]->rank;
      p.a_step = xa[k]->step;
      p.b_rank = xb[k]->rank;
      p.b_step = xb[k]->step;
      StepTree sa = BuildStepTree(ta[t], xa[k]->ts, xa[k]->dur);
      StepTree sb = BuildStepTree(tb[t], xb[k]->ts, xb[k]->dur);
      AlignTrees(sa, sb, options, &p);
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace th::diff

#endif  // TRACEHOUND_DIFF_DIFF_TREE_H_
