#include "core/diff/diff_tree.h"

#include <gtest/gtest.h>

namespace th::diff {
namespace {

using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

TEST(AlignSequences, LongestCommonSubsequence) {
  EXPECT_EQ(AlignSequences({"a", "b", "c"}, {"a", "b", "c"}), (Pairs{{0, 0}, {1, 1}, {2, 2}}));
  EXPECT_EQ(AlignSequences({"a", "c"}, {"a", "x", "c"}), (Pairs{{0, 0}, {1, 2}}));
  EXPECT_EQ(AlignSequences({"a", "b", "c"}, {"c", "a", "b"}), (Pairs{{0, 1}, {1, 2}}));
  EXPECT_EQ(AlignSequences({"a"}, {}), Pairs{});
  EXPECT_EQ(AlignSequences({"x", "y"}, {"z"}), Pairs{});
}

// Two hand-made trees: module M with op o1 (kernel k1) and op o2 (cuDNN
// kernel) against M with o1 (k1, twice as long), o2 (MIOpen kernel) and an
// inserted op o3.
StepTree Tree(bool b) {
  StepTree t;
  auto add = [&](uint32_t parent, NodeLevel l, const char* name, int64_t start, int64_t ns) {
    t.nodes.push_back({l, name, start, ns, {}});
    t.nodes[parent].children.push_back(static_cast<uint32_t>(t.nodes.size() - 1));
    return static_cast<uint32_t>(t.nodes.size() - 1);
  };
  t.nodes.push_back({});
  uint32_t m = add(0, NodeLevel::kModule, "M", 0, 0);
  uint32_t o1 = add(m, NodeLevel::kOp, "o1", 1, 0);
  add(o1, NodeLevel::kKernel, "k1", 2, b ? 200000 : 100000);
  uint32_t o2 = add(m, NodeLevel::kOp, "o2", 3, 0);
  add(o2, NodeLevel::kKernel, b ? "miopen_conv" : "cudnn_conv", 4, 5000);
  if (b) {
    uint32_t o3 = add(m, NodeLevel::kOp, "o3", 5, 7000);
    add(o3, NodeLevel::kKernel, "k3", 6, 7000);
  }
  return t;
}

TEST(AlignTrees, AddedSubtreeReplacedKernelsAndTimeChange) {
  StepPair p;
  AlignTrees(Tree(false), Tree(true), DiffOptions{}, &p);
  EXPECT_EQ(p.matched, 4);  // M, o1, k1, o2
  EXPECT_EQ(p.a_unmatched, 1);
  EXPECT_EQ(p.b_unmatched, 3);  // miopen_conv, o3, k3
  ASSERT_EQ(p.rows.size(), 3u);
  EXPECT_EQ(p.rows[0].kind, "time_changed");
  EXPECT_EQ(p.rows[0].path, (std::vector<std::string>{"M", "o1"}));
  EXPECT_EQ(p.rows[1].kind, "added");
  EXPECT_EQ(p.rows[1].level, "op");
  EXPECT_EQ(p.rows[1].b_name, "o3");
  EXPECT_EQ(p.rows[1].path, std::vector<std::string>{"M"});
  EXPECT_EQ(p.rows[1].b_device_ns, 7000);
  EXPECT_EQ(p.rows[2].kind, "kernels_replaced");
  EXPECT_EQ(p.rows[2].path, (std::vector<std::string>{"M", "o2"}));
  EXPECT_EQ(p.rows[2].a_name, "cudnn_conv");
  EXPECT_EQ(p.rows[2].b_name, "miopen_conv");
}

TEST(AlignTrees, SameTreeHasNoRows) {
  StepPair p;
  AlignTrees(Tree(true), Tree(true), DiffOptions{}, &p);
  EXPECT_EQ(p.matched, 7);  // M, o1, k1, o2, miopen_conv, o3, k3
  EXPECT_EQ(p.a_unmatched + p.b_unmatched, 0);
  EXPECT_TRUE(p.rows.empty());
}

TEST(AlignTrees, KeepsTheLargestRows) {
  StepPair p;
  DiffOptions o;
  o.max_structural = 1;
  AlignTrees(Tree(false), Tree(true), o, &p);
  ASSERT_EQ(p.rows.size(), 1u);
  EXPECT_EQ(p.rows[0].kind, "time_changed");
  EXPECT_EQ(p.rows_left_out, 2);
}

}  // namespace
}  // namespace th::diff

namespace th::diff {
namespace {

// Two modules whose order differs (threads interleaved differently): a move,
// aligned, so no row.
TEST(AlignTrees, SiblingsInAnotherOrderAreMoves) {
  auto tree = [](std::vector<const char*> modules) {
    StepTree t;
    t.nodes.push_back({});
    for (const char* m : modules) {
      t.nodes.push_back({NodeLevel::kModule, m, 0, 10, {}});
      t.nodes[0].children.push_back(static_cast<uint32_t>(t.nodes.size() - 1));
    }
    return t;
  };
  StepPair p;
  AlignTrees(tree({"forward", "load_batch", "backward"}),
             tree({"load_batch", "backward", "forward"}), DiffOptions{}, &p);
  EXPECT_EQ(p.matched, 3);
  EXPECT_EQ(p.a_unmatched + p.b_unmatched, 0);
  EXPECT_TRUE(p.rows.empty());
}

}  // namespace
}  // namespace th::diff
