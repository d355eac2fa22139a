// The hand-written XSpace reader against libprotobuf (generated from the
// project's core/import/xspace/xplane.proto) on every real capture: same
// planes, lines, events, times and stats. libprotobuf also refuses the corrupt
// upstream file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/import/xspace/xspace_reader.h"
#include "tests/support/test_files.h"
#include "xplane.pb.h"

namespace th {
namespace {

class AgainstLibprotobuf : public ::testing::TestWithParam<std::string> {};

TEST_P(AgainstLibprotobuf, SameStructureTimesAndStats) {
  std::string path = testing::SharedDataDir() + "/" + GetParam();
  tracehound::xspace::XSpace ref;
  ASSERT_TRUE(ref.ParseFromString(testing::ReadFile(path)));
  auto mine = xspace::ReadXSpaceFile(path);
  ASSERT_TRUE(mine.ok()) << mine.status().message();
  ASSERT_EQ(static_cast<int>(mine->planes.size()), ref.planes_size());
  for (int p = 0; p < ref.planes_size(); ++p) {
    const auto& rp = ref.planes(p);
    const xspace::Plane& mp = mine->planes[static_cast<size_t>(p)];
    EXPECT_EQ(mp.id, rp.id());
    EXPECT_EQ(mp.name, rp.name());
    EXPECT_EQ(static_cast<int>(mp.event_metadata.size()), rp.event_metadata_size());
    EXPECT_EQ(static_cast<int>(mp.stat_metadata.size()), rp.stat_metadata_size());
    for (const auto& [id, md] : rp.stat_metadata()) EXPECT_EQ(mp.StatName(id), md.name());
    for (const auto& [id, md] : rp.event_metadata()) {
      const xspace::EventMetadata* m = mp.FindEventMetadata(id);
      ASSERT_NE(m, nullptr);
      EXPECT_EQ(m->name, md.name());
      EXPECT_EQ(m->display_name, md.display_name());
      EXPECT_EQ(static_cast<int>(m->stats.size()), md.stats_size());
    }
    ASSERT_EQ(static_cast<int>(mp.lines.size()), rp.lines_size());
    for (int l = 0; l < rp.lines_size(); ++l) {
      const auto& rl = rp.lines(l);
      const xspace::Line& ml = mp.lines[static_cast<size_t>(l)];
      EXPECT_EQ(ml.id, rl.id());
      EXPECT_EQ(ml.display_id, rl.display_id());
      EXPECT_EQ(ml.name, rl.name());
      EXPECT_EQ(ml.display_name, rl.display_name());
      EXPECT_EQ(ml.timestamp_ns, rl.timestamp_ns());
      ASSERT_EQ(static_cast<int>(ml.events.size()), rl.events_size());
      for (int e = 0; e < rl.events_size(); ++e) {
        const auto& re = rl.events(e);
        const xspace::Event& me = ml.events[static_cast<size_t>(e)];
        ASSERT_EQ(me.metadata_id, re.metadata_id());
        ASSERT_EQ(me.duration_ps, re.duration_ps());
        ASSERT_EQ(me.has_num_occurrences, re.data_case() == re.kNumOccurrences);
        if (!me.has_num_occurrences) {
          ASSERT_EQ(me.offset_ps, re.offset_ps());
        }
        auto stats = mp.StatsOf(me);
        ASSERT_EQ(static_cast<int>(stats.size()), re.stats_size());
        for (int s = 0; s < re.stats_size(); ++s) {
          const auto& rs = re.stats(s);
          const xspace::Stat& ms = stats[static_cast<size_t>(s)];
          ASSERT_EQ(ms.metadata_id, rs.metadata_id());
          switch (rs.value_case()) {
            case tracehound::xspace::XStat::kInt64Value:
              ASSERT_EQ(ms.kind, xspace::StatKind::kInt64);
              ASSERT_EQ(ms.int64_value(), rs.int64_value());
              break;
            case tracehound::xspace::XStat::kUint64Value:
              ASSERT_EQ(ms.kind, xspace::StatKind::kUint64);
              ASSERT_EQ(ms.uint64_value(), rs.uint64_value());
              break;
            case tracehound::xspace::XStat::kRefValue:
              ASSERT_EQ(ms.kind, xspace::StatKind::kRef);
              ASSERT_EQ(ms.ref_value(), rs.ref_value());
              break;
            case tracehound::xspace::XStat::kDoubleValue:
              ASSERT_EQ(ms.kind, xspace::StatKind::kDouble);
              ASSERT_EQ(ms.double_value(), rs.double_value());
              break;
            case tracehound::xspace::XStat::kStrValue:
              ASSERT_EQ(ms.kind, xspace::StatKind::kStr);
              ASSERT_EQ(mp.StatString(ms), rs.str_value());
              break;
            default:
              break;
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SharedData, AgainstLibprotobuf,
                         ::testing::ValuesIn(testing::FilesWithOracle(".xplane.pb")),
                         [](const auto& info) { return testing::ParamName(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(AgainstLibprotobuf);

TEST(AgainstLibprotobufCorrupt, BothRefuseTheCorruptUpstreamFile) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: real-capture test skipped";
  std::string path =
      data + "/xprof/corrupted_upstream/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb";
  tracehound::xspace::XSpace ref;
  EXPECT_FALSE(ref.ParseFromString(testing::ReadFile(path)));
  EXPECT_FALSE(xspace::ReadXSpaceFile(path).ok());
}

}  // namespace
}  // namespace th
