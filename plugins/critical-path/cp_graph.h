// The critical path graph: nodes are instants (the start or end of an event,
// or a barrier of a collective across ranks), edges carry a weight in ns
// (the measured time they stand for; 0 for dependencies and waits). The
// longest path is found in linear time over a topological order.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace th::critical_path {

inline constexpr uint32_t kNone = 0xFFFFFFFFu;

enum class EdgeType : uint8_t {
  kOperator,      // the span of a CPU op, runtime call or GPU activity (or a part of one)
  kDependency,    // nesting, serial ops, the runtime lock: weight 0
  kLaunch,        // runtime call start -> GPU activity start into an empty stream queue
  kKernelKernel,  // previous activity end -> next activity start on one stream
  kSync,          // GPU -> host or GPU -> GPU synchronisation: weight 0
  kBarrierIn,     // a rank's collective start -> the collective's barrier: weight 0
  kTransfer,      // barrier in -> barrier out: the collective's transfer time
  kBarrierOut,    // barrier out -> a rank's collective end: weight 0
  kStart,         // the common start -> a rank's first instant: its late start
};

// What an edge's weight is spent on.
enum class Category : uint8_t {
  kNone,  // weight 0 by construction
  kCompute,
  kCommunication,
  kLaunchOverhead,
  kKernelGap,
  kHost,
  kLateStart,  // inferred: a rank entering the step later than the first (corrected clocks)
};

struct Node {
  int64_t ts = 0;          // ns on its rank's clock; 0 for a barrier
  uint32_t event = kNone;  // event row on its rank, kNone for a barrier
  uint32_t rank_slot = 0;  // which trace of the set
  bool start = false;
};

struct Edge {
  uint32_t src = 0, dst = 0;
  int64_t weight = 0;  // ns, >= 0
  EdgeType type = EdgeType::kDependency;
  Category category = Category::kNone;
  uint32_t attributed = kNone;  // the event the weight belongs to (rank of `src`)
  bool disabled = false;        // replaced (a collective's span, by its barrier)
};

class Graph {
 public:
  uint32_t AddNode(const Node& n) {
    nodes_.push_back(n);
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  // Adds an edge; a negative weight (clock rounding) counts as 0.
  uint32_t AddEdge(Edge e) {
    if (e.weight < 0) e.weight = 0;
    edges_.push_back(e);
    return static_cast<uint32_t>(edges_.size() - 1);
  }
  std::vector<Node>& nodes() { return nodes_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<Edge>& edges() { return edges_; }
  const std::vector<Edge>& edges() const { return edges_; }
  // Empties the graph, keeping its buffers for the next one.
  void Clear() {
    nodes_.clear();
    edges_.clear();
  }

 private:
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
};

struct LongestPath {
  std::vector<uint32_t> edges;  // edge indices along the path, in order
  int64_t length = 0;           // sum of their weights (ns)
  std::vector<int64_t> dist;    // per node: the longest path ending there (ns)
  std::vector<uint32_t> pred;   // per node: the edge it came in by, kNone at a source
};

// A topological order of a graph over its enabled edges and their CSR by
// source, in edge order. The buffers are kept for the next graph. A critical
// path graph numbers its nodes by time, so nearly every edge goes to a higher
// node: the order is the nodes' own, but for the few short ranges an edge to
// a lower node spans, each ordered among itself by Kahn's algorithm.
class GraphOrder {
 public:
  // False when the graph has a cycle: order() then lacks the nodes on or
  // after one (Kahn's over the whole graph: sources first, then as they
  // become ready).
  bool Compute(const Graph& g);
  // How many nodes the last Compute ordered other than by their number.
  size_t reordered() const { return reordered_; }
  const std::vector<uint32_t>& order() const { return order_; }
  // The enabled edges leaving node v, by index.
  std::span<const uint32_t> out(uint32_t v) const {
    return {out_.data() + first_[v], out_.data() + first_[v + 1]};
  }

 private:
  // Kahn's over the nodes [begin, end) and the edges among them, into
  // order_[begin, end); false when they hold a cycle.
  bool OrderRange(const Graph& g, uint32_t begin, uint32_t end);
  bool Kahn(const Graph& g);

  std::vector<uint32_t> first_, out_, in_degree_, fill_, order_;
  std::vector<std::pair<uint32_t, uint32_t>> back_;  // (dst, src) of edges to a lower node
  size_t reordered_ = 0;
};

// The longest path of `g` (enabled edges only). Returns false and sets
// `error` when the graph has a cycle. Ties: the earliest node (by index)
// ending the path, the first edge (by index) reaching a node; so the answer
// does not depend on the topological order taken.
bool FindLongestPath(const Graph& g, LongestPath* out, std::string* error);
// The same over `order`, computed on `g` (Compute's result: `acyclic`).
bool FindLongestPath(const Graph& g, const GraphOrder& order, bool acyclic, LongestPath* out,
                     std::string* error);
// Completes `out` from its dist and pred (FindLongestPath's rules): the path
// ends at the earliest node of the greatest distance; its length and edges.
void TraceLongestPath(const Graph& g, LongestPath* out);

}  // namespace th::critical_path
