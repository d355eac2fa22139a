// The op-stats analyzer's phases (plugins/op-stats/op_stats_phases.h) on a
// small hand-built event tree; every expected figure is worked out in the
// comments.
#include "op_stats_phases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace th::op_stats {
namespace {

// 0 op [0, 100)
// ├─ 1 Python frame [10, 60)
// │  └─ 2 op [20, 50)
// │     └─ 3 launch call [25, 30)
// ├─ 4 launch call [80, 120)  (runs past its parent's end)
// └─ 5 instant [90, 90)
// 6 launch call [200, 210), outside every op
// └─ 7 launch call [201, 206)
// Ops 0 and 2 have keys 0 and 1.
EventTree Tree() {
  static const std::vector<uint32_t> parent = {kNone, 0, 1, 2, 0, 0, kNone, 6};
  static const std::vector<int64_t> ts = {0, 10, 20, 25, 80, 90, 200, 201};
  static const std::vector<int64_t> dur = {100, 50, 30, 5, 40, 0, 10, 5};
  static const std::vector<uint32_t> key = {0, kNone, 1, kNone, kNone, kNone, kNone, kNone};
  return {parent, ts, dur, key};
}

// The same tree with its keys given by name and kind (KeyByName): op 0 is a
// kind-1 event named 3 (key 0), op 2 a kind-2 event of the same name (key 1);
// event 5 is of kind 1 too, but its name lies past the table (no op).
EventTree TreeKeyedByName() {
  EventTree t = Tree();
  static const std::vector<uint32_t> name = {3, 0, 3, 1, 1, 100, 2, 2};
  static const std::vector<uint8_t> kind = {1, 0, 2, 0, 0, 1, 0, 0};
  static const std::vector<uint32_t> by_name = {kNone, kNone, kNone, kNone, kNone, kNone, 1, 0};
  t.key = {};
  t.by_name = {name, kind, by_name, 1, 2};
  return t;
}

KeyTotals TwoKeys() {
  KeyTotals totals;
  totals.Resize(2);
  return totals;
}

TEST(EventTree, KeysByNameAndKindAsPerEvent) {
  const EventTree per_event = Tree(), by_name = TreeKeyedByName();
  for (uint32_t i = 0; i < per_event.parent.size(); ++i)
    EXPECT_EQ(by_name.key_of(i), per_event.key_of(i)) << i;
  KeyTotals a = TwoKeys(), b = TwoKeys();
  AddHostTime(per_event, a);
  AddHostTime(by_name, b);
  const std::vector<Launch> launches = {{3, 7}, {4, 11}, {2, 13}, {7, 17}};
  AddDeviceTime(per_event, launches, a);
  AddDeviceTime(by_name, launches, b);
  EXPECT_EQ(b.calls, a.calls);
  EXPECT_EQ(b.host_self, a.host_self);
  EXPECT_EQ(b.device_total, a.device_total);
  EXPECT_EQ(b.device_self, a.device_self);
}

TEST(AddHostTime, SelfTimeLessDirectChildrenClippedToTheOp) {
  // Op 0: frame 1 covers 50, call 4 covers 100 - 80 = 20 of it, the instant
  // nothing: self 100 - 70. Op 2: call 3 covers 5: self 30 - 5. Frame 1 is
  // no op: its child is not counted for it.
  KeyTotals totals = TwoKeys();
  AddHostTime(Tree(), totals);
  EXPECT_EQ(totals.calls, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(totals.host_total, (std::vector<int64_t>{100, 30}));
  EXPECT_EQ(totals.host_self, (std::vector<int64_t>{30, 25}));
  AddHostTime(Tree(), totals);  // a second trace adds to the same keys
  EXPECT_EQ(totals.calls, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(totals.host_self, (std::vector<int64_t>{60, 50}));
}

TEST(OpsAbove, NearestEnclosingOpThroughNonOps) {
  const EventTree t = Tree();
  OpsAbove above(t);
  EXPECT_EQ(above(3), 2u);
  EXPECT_EQ(above(2), 0u);  // through frame 1
  EXPECT_EQ(above(1), 0u);
  EXPECT_EQ(above(0), kNone);
  EXPECT_EQ(above(7), kNone);
  EXPECT_EQ(above(2), 0u);  // memoised answer unchanged
}

TEST(KindAtOrAbove, NearestFrameOfTheKindThroughOtherEvents) {
  // 0 frame ─ 1 op ─ 2 frame ─ 3 op ─ 4 op;  5 op (a root) ─ 6 op
  const std::vector<uint32_t> parent = {kNone, 0, 1, 2, 3, kNone, 5};
  const std::vector<uint8_t> kinds = {9, 1, 9, 1, 1, 1, 1};
  KindAtOrAbove frame(parent, kinds, 9);
  EXPECT_EQ(frame(4), 2u);
  EXPECT_EQ(frame(3), 2u);  // memoised on the way up from 4
  EXPECT_EQ(frame(2), 2u);  // itself
  EXPECT_EQ(frame(1), 0u);
  EXPECT_EQ(frame(6), kNone);
  EXPECT_EQ(frame(5), kNone);
  EXPECT_EQ(frame(4), 2u);
}

TEST(KindAtOrAbove, NoEventOfTheKindAnswersNoneEverywhere) {
  const std::vector<uint32_t> parent = {kNone, 0, 1, kNone};
  const std::vector<uint8_t> kinds = {1, 1, 1, 1};
  KindAtOrAbove frame(parent, kinds, 9);
  for (uint32_t e = 0; e < parent.size(); ++e) EXPECT_EQ(frame(e), kNone) << e;
}

TEST(AddDeviceTime, InnermostOpGetsSelfEveryEnclosingOpTotal) {
  // 3 -> 7 ns: self of op 2, total of 2 and 0. 4 -> 11: self and total of 0.
  // Op 2 itself -> 13: self and total of 2, total of 0. 7 -> 17: outside.
  KeyTotals totals = TwoKeys();
  DeviceTime d = AddDeviceTime(Tree(), {{3, 7}, {4, 11}, {2, 13}, {7, 17}}, totals);
  EXPECT_EQ(totals.device_self, (std::vector<int64_t>{11, 7 + 13}));
  EXPECT_EQ(totals.device_total, (std::vector<int64_t>{7 + 11 + 13, 7 + 13}));
  EXPECT_EQ(totals.kernels, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(totals.calls, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(d.in_ops, 31);
  EXPECT_EQ(d.outside_ops, 17);
  EXPECT_EQ(d.launched_total, 48);
}

// Against a walk up the parents of each launch to every op around it, on a
// random forest with runs of launches from one call.
TEST(AddDeviceTime, EqualsAWalkUpTheParentsPerLaunch) {
  std::mt19937 rng(11);
  const uint32_t n = 3000;
  std::vector<uint32_t> parent(n), key(n);
  std::vector<int64_t> ts(n, 0), dur(n, 1);
  for (uint32_t e = 0; e < n; ++e) {
    parent[e] = e == 0 || rng() % 20 == 0 ? kNone : e - 1 - rng() % std::min<uint32_t>(e, 8);
    key[e] = rng() % 3 == 0 ? kNone : rng() % 5;
  }
  std::vector<Launch> launches;
  for (int k = 0; k < 5000; ++k) {
    // Runs of launches from one call, as a thread launches in time order.
    const uint32_t src = rng() % n;
    for (int r = 0, runs = 1 + rng() % 3; r < runs; ++r)
      launches.push_back({src, static_cast<int64_t>(1 + rng() % 1000)});
  }
  KeyTotals want;
  want.Resize(5);
  auto op_above = [&](uint32_t e) {
    for (uint32_t p = parent[e]; p != kNone; p = parent[p])
      if (key[p] != kNone) return p;
    return kNone;
  };
  for (const Launch& l : launches) {
    const uint32_t owner = key[l.src] != kNone ? l.src : op_above(l.src);
    if (owner == kNone) continue;
    want.device_self[key[owner]] += l.dur;
    for (uint32_t a = owner; a != kNone; a = op_above(a)) {
      want.device_total[key[a]] += l.dur;
      want.kernels[key[a]] += 1;
    }
  }
  KeyTotals got;
  got.Resize(5);
  AddDeviceTime({parent, ts, dur, key}, launches, got);
  EXPECT_EQ(got.device_self, want.device_self);
  EXPECT_EQ(got.device_total, want.device_total);
  EXPECT_EQ(got.kernels, want.kernels);
  EXPECT_GT(want.kernels[0] + want.kernels[1], 1000);  // the forest holds launches under ops
}

TEST(KeyTotals, AddCountsACallAndSumsTheRest) {
  KeyTotals totals;
  totals.Resize(1);
  totals.Add(0, -1, -1, 5, 5, 1);
  totals.Resize(2);
  totals.Add(0, -1, -1, 7, 7, 1);
  EXPECT_EQ(totals.calls, (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(totals.host_total, (std::vector<int64_t>{-2, 0}));
  EXPECT_EQ(totals.device_self, (std::vector<int64_t>{12, 0}));
  EXPECT_EQ(totals.kernels, (std::vector<int64_t>{2, 0}));
}

TEST(OpRows, KeysByKindAndNameAndCallSiteOnlyByStack) {
  OpRows by_name(false);
  EXPECT_EQ(by_name.Key("cpu_op", "mm", "a <- b"), 0u);
  EXPECT_EQ(by_name.Key("cpu_op", "mm", "c"), 0u);
  EXPECT_EQ(by_name.Key("user_annotation", "mm", ""), 1u);
  ASSERT_EQ(by_name.keys.size(), 2u);
  EXPECT_EQ(by_name.keys[0].stack, "");
  OpRows by_stack(true);
  EXPECT_EQ(by_stack.Key("cpu_op", "mm", "a <- b"), 0u);
  EXPECT_EQ(by_stack.Key("cpu_op", "mm", "c"), 1u);
  EXPECT_EQ(by_stack.keys[1].stack, "c");
}

// Keys 0 cpu_op b_op, 1 cpu_op a_op, 2 xla_op fusion, 3 user_annotation z,
// 4 user_annotation a_op, with their totals.
OpRows FiveKeys(bool by_stack) {
  OpRows rows(by_stack);
  rows.Key("cpu_op", "b_op", "s2");
  rows.Key("cpu_op", "a_op", "");
  rows.Key("xla_op", "fusion", "f.py:3");
  rows.Key("user_annotation", "z", "");
  rows.Key("user_annotation", "a_op", "");
  rows.site_time = {{{0, "s1"}, 10}, {{0, "s2"}, 30}, {{0, "s3"}, 30}, {{2, "f.py:3"}, 300}};
  return rows;
}
KeyTotals Totals() {
  KeyTotals t;
  t.calls = {2, 1, 3, 0, 1};
  t.host_total = {50, 70, -3, 5, 5};
  t.host_self = {20, 70, -3, 5, 5};
  t.device_total = {100, 100, 300, 0, 0};
  t.device_self = {40, 100, 300, 0, 0};
  t.kernels = {4, 1, 3, 0, 0};
  return t;
}

TEST(SummarizeOps, ByDeviceThenHostTimeThenName) {
  std::vector<OpStatRow> r = SummarizeOps(FiveKeys(false), Totals(), false);
  // Device 300 (fusion); 100 twice: host 70 (a_op) before 50 (b_op); 0
  // twice with host 5: "a_op" before "z".
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].name, "fusion");
  EXPECT_EQ(r[1].name, "a_op");
  EXPECT_EQ(r[1].kind, "cpu_op");
  EXPECT_EQ(r[2].name, "b_op");
  EXPECT_EQ(r[3].name, "a_op");
  EXPECT_EQ(r[3].kind, "user_annotation");
  EXPECT_EQ(r[4].name, "z");
  // XLA ops have no host time; their call site is the HLO source.
  EXPECT_EQ(r[0].host_total, -1);
  EXPECT_EQ(r[0].host_self, -1);
  EXPECT_EQ(r[0].host_mean, -1);
  EXPECT_EQ(r[0].call_site, "f.py:3");
  EXPECT_EQ(r[0].call_sites, 1);
  // b_op: mean 50 / 2; sites s1 10, s2 30, s3 30: the first of the longest.
  EXPECT_EQ(r[2].host_mean, 25);
  EXPECT_EQ(r[2].host_self, 20);
  EXPECT_EQ(r[2].device_self, 40);
  EXPECT_EQ(r[2].launched, 4);
  EXPECT_EQ(r[2].call_site, "s2");
  EXPECT_EQ(r[2].call_sites, 3);
  EXPECT_EQ(r[1].call_site, "");
  EXPECT_EQ(r[1].call_sites, 0);
  EXPECT_EQ(r[4].host_mean, -1);  // no calls
  EXPECT_EQ(r[3].host_mean, 5);
}

TEST(SummarizeOps, ByStackTheKeysOwnCallSite) {
  std::vector<OpStatRow> r = SummarizeOps(FiveKeys(true), Totals(), true);
  EXPECT_EQ(r[2].name, "b_op");
  EXPECT_EQ(r[2].call_site, "s2");
  EXPECT_EQ(r[2].call_sites, 1);
  EXPECT_EQ(r[1].call_site, "");
  EXPECT_EQ(r[1].call_sites, 0);
}

TEST(SortHloStats, ByDeviceTimeThenModuleAndName) {
  std::map<std::pair<std::string, std::string>, HloStat> hlo;
  hlo[{"m1", "b"}] = {"m1", "b", "", "", "", "", 1, 5, 1, 0};
  hlo[{"m1", "a"}] = {"m1", "a", "", "", "", "", 1, 5, 0, 1};
  hlo[{"m0", "z"}] = {"m0", "z", "", "", "", "", 2, 9, 2, 0};
  std::vector<HloStat> r = SortHloStats(hlo);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].name, "z");
  EXPECT_EQ(r[1].name, "a");
  EXPECT_EQ(r[2].name, "b");
  EXPECT_EQ(r[1].inferred, 1);
}

}  // namespace
}  // namespace th::op_stats
