#include "core/import/xspace/xspace_reader.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/import/xspace/wire_reader.h"
#include "tests/support/test_files.h"

namespace th::xspace {
namespace {

namespace fs = std::filesystem;

constexpr char kSuffix[] = ".oracle.json";
constexpr char kCorrupt[] =
    "xprof/corrupted_upstream/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb";
constexpr char kGood[] = "xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb";

// Relative paths (under the data dir) of every .xplane.pb with an oracle file.
std::vector<std::string> XPlaneFiles(const std::string& data) {
  std::vector<std::string> out;
  fs::path expected = fs::path(data) / "expected";
  if (!fs::is_directory(expected)) return out;
  for (const auto& e : fs::recursive_directory_iterator(expected)) {
    std::string rel = fs::relative(e.path(), expected).string();
    std::string want = std::string(".xplane.pb") + kSuffix;
    if (rel.size() > want.size() && rel.ends_with(want)) {
      out.push_back(rel.substr(0, rel.size() - std::strlen(kSuffix)));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---- hand-built wire bytes ----
void Varint(std::string* s, uint64_t v) {
  while (v >= 0x80) {
    s->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  s->push_back(static_cast<char>(v));
}
void Tag(std::string* s, uint32_t field, uint32_t wt) { Varint(s, (field << 3) | wt); }
void VarintField(std::string* s, uint32_t field, uint64_t v) {
  Tag(s, field, 0);
  Varint(s, v);
}
void LenField(std::string* s, uint32_t field, std::string_view payload) {
  Tag(s, field, 2);
  Varint(s, payload.size());
  s->append(payload);
}
void DoubleField(std::string* s, uint32_t field, double d) {
  Tag(s, field, 1);
  char b[8];
  std::memcpy(b, &d, 8);
  s->append(b, 8);
}
std::string StatMd(int64_t id, std::string_view name) {
  std::string md, entry;
  VarintField(&md, 1, static_cast<uint64_t>(id));
  LenField(&md, 2, name);
  VarintField(&entry, 1, static_cast<uint64_t>(id));
  LenField(&entry, 2, md);
  return entry;
}

TEST(WireReaderTest, Utf8Validation) {
  size_t bad = 99;
  EXPECT_TRUE(ValidUtf8("plain ascii text, long enough for words", &bad));
  EXPECT_TRUE(ValidUtf8("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80", &bad));
  EXPECT_FALSE(ValidUtf8("abc\xC0\x80", &bad));  // overlong
  EXPECT_EQ(bad, 3u);
  EXPECT_FALSE(ValidUtf8("ab\xED\xA0\x80", &bad));  // surrogate
  EXPECT_EQ(bad, 2u);
  EXPECT_FALSE(ValidUtf8("0123456789\xE2\x82", &bad));  // truncated
  EXPECT_EQ(bad, 10u);
  EXPECT_FALSE(ValidUtf8("\xF4\x90\x80\x80", &bad));  // > U+10FFFF
  EXPECT_EQ(bad, 0u);
}

TEST(XSpaceReaderTest, HandBuiltRoundTrip) {
  std::string stat_int, stat_double, stat_str, stat_ref, plane_stat;
  VarintField(&stat_int, 1, 10);
  VarintField(&stat_int, 4, static_cast<uint64_t>(int64_t{-42}));
  VarintField(&stat_double, 1, 11);
  DoubleField(&stat_double, 2, 2.5);
  VarintField(&stat_str, 1, 12);
  LenField(&stat_str, 5, "fusion.3");
  VarintField(&stat_ref, 1, 13);
  VarintField(&stat_ref, 7, 14);  // -> stat metadata 14, "resolved"
  VarintField(&plane_stat, 1, 10);
  VarintField(&plane_stat, 3, 7u);

  std::string ev_md, ev_md_entry;
  VarintField(&ev_md, 1, 5);
  LenField(&ev_md, 2, "my_kernel<float>");
  LenField(&ev_md, 4, "kernel");
  VarintField(&ev_md_entry, 1, 5);
  LenField(&ev_md_entry, 2, ev_md);

  std::string ev1, ev2;
  VarintField(&ev1, 1, 5);
  VarintField(&ev1, 2, 1500);
  VarintField(&ev1, 3, 250);
  LenField(&ev1, 4, stat_int);
  LenField(&ev1, 4, stat_double);
  VarintField(&ev2, 1, 5);
  VarintField(&ev2, 5, 3);  // num_occurrences
  LenField(&ev2, 4, stat_str);
  LenField(&ev2, 4, stat_ref);

  std::string line;
  VarintField(&line, 1, 77);
  LenField(&line, 2, "Stream #7(Compute)");
  LenField(&line, 11, "Stream 7");
  VarintField(&line, 10, 3);
  VarintField(&line, 3, 123456);
  VarintField(&line, 9, 999);
  LenField(&line, 4, ev1);
  LenField(&line, 4, ev2);
  VarintField(&line, 15, 1);  // unknown field

  std::string plane;
  VarintField(&plane, 1, 1);
  LenField(&plane, 2, "/device:GPU:0");
  LenField(&plane, 3, line);
  LenField(&plane, 4, ev_md_entry);
  LenField(&plane, 5, StatMd(10, "int_stat"));
  LenField(&plane, 5, StatMd(11, "double_stat"));
  LenField(&plane, 5, StatMd(12, "hlo_op"));
  LenField(&plane, 5, StatMd(13, "kernel_details"));
  LenField(&plane, 5, StatMd(14, "resolved"));
  LenField(&plane, 6, plane_stat);
  Tag(&plane, 1, 2);  // known field, wrong wire type: skipped as unknown
  Varint(&plane, 1);
  plane.push_back('x');

  std::string space;
  LenField(&space, 1, plane);
  LenField(&space, 4, "host-a");
  LenField(&space, 3, "dropped 3 events");

  auto r = ReadXSpace(space, "tiny");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const XSpaceData& x = *r;
  ASSERT_EQ(x.planes.size(), 1u);
  EXPECT_EQ(x.hostnames, std::vector<std::string>{"host-a"});
  EXPECT_EQ(x.warnings.size(), 1u);
  EXPECT_EQ(x.unknown_fields, 2u);
  EXPECT_EQ(x.EventsTotal(), 2u);
  const Plane& p = x.planes[0];
  EXPECT_EQ(p.id, 1);
  EXPECT_EQ(p.name, "/device:GPU:0");
  ASSERT_EQ(p.lines.size(), 1u);
  const Line& l = p.lines[0];
  EXPECT_EQ(l.id, 77);
  EXPECT_EQ(l.display_id, 3);
  EXPECT_EQ(l.name, "Stream #7(Compute)");
  EXPECT_EQ(l.display_name, "Stream 7");
  EXPECT_EQ(l.timestamp_ns, 123456);
  EXPECT_EQ(l.duration_ps, 999);
  ASSERT_EQ(l.events.size(), 2u);
  const Event& e1 = l.events[0];
  EXPECT_EQ(e1.offset_ps, 1500);
  EXPECT_FALSE(e1.has_num_occurrences);
  EXPECT_EQ(e1.duration_ps, 250);
  const EventMetadata* md = p.FindEventMetadata(e1.metadata_id);
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->name, "my_kernel<float>");
  EXPECT_EQ(md->display_name, "kernel");
  auto s1 = p.StatsOf(e1);
  ASSERT_EQ(s1.size(), 2u);
  EXPECT_EQ(p.StatName(s1[0].metadata_id), "int_stat");
  EXPECT_EQ(s1[0].kind, StatKind::kInt64);
  EXPECT_EQ(s1[0].int64_value(), -42);
  EXPECT_EQ(p.StatName(s1[1].metadata_id), "double_stat");
  EXPECT_EQ(s1[1].kind, StatKind::kDouble);
  EXPECT_DOUBLE_EQ(s1[1].double_value(), 2.5);
  const Event& e2 = l.events[1];
  EXPECT_TRUE(e2.has_num_occurrences);
  EXPECT_EQ(e2.num_occurrences, 3);
  auto s2 = p.StatsOf(e2);
  ASSERT_EQ(s2.size(), 2u);
  EXPECT_EQ(s2[0].kind, StatKind::kStr);
  EXPECT_EQ(p.StatString(s2[0]), "fusion.3");
  EXPECT_EQ(p.StatName(s2[1].metadata_id), "kernel_details");
  EXPECT_EQ(s2[1].kind, StatKind::kRef);
  EXPECT_EQ(p.StatString(s2[1]), "resolved");
  ASSERT_EQ(p.stats.size(), 1u);
  EXPECT_EQ(p.stats[0].kind, StatKind::kUint64);
  EXPECT_EQ(p.stats[0].uint64_value(), 7u);
  EXPECT_EQ(p.stat_metadata.size(), 5u);
}

TEST(XSpaceReaderTest, ErrorsNameOffsetAndPath) {
  // Event stat with a truncated varint: planes[0].lines[0].events[0].stats[0].
  std::string stat = "\x08";  // tag of field 1, varint missing
  std::string ev, line, plane, space;
  LenField(&ev, 4, stat);
  LenField(&line, 4, ev);
  LenField(&plane, 3, line);
  LenField(&space, 1, plane);
  auto r = ReadXSpace(space, "t.pb");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "t.pb: truncated varint at byte offset 9 (in planes[0].lines[0].events[0].stats[0])");

  std::string bad_utf8;
  LenField(&bad_utf8, 4, "ok\xFF");
  auto u = ReadXSpace(bad_utf8, "u.pb");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().message(),
            "u.pb: invalid UTF-8 in string field at byte offset 4 (in XSpace.hostnames)");

  auto z = ReadXSpace(std::string("\x00\x01", 2), "z.pb");
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().message(), "z.pb: invalid field number 0 at byte offset 0 (in XSpace)");

  auto g = ReadXSpace("\x0b", "g.pb");  // field 1, wire type 3 (start group)
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "g.pb: unsupported wire type 3 (field 1) at byte offset 0 (in XSpace)");
}

TEST(XSpaceReaderTest, MatchesOracleOnEveryXPlane) {
  std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "shared data folder absent: no real XSpace files to check";
  std::vector<std::string> files = XPlaneFiles(data);
  ASSERT_FALSE(files.empty()) << "no expected/*.xplane.pb.oracle.json under " << data;
  simdjson::dom::parser parser;
  size_t checked = 0;
  for (const std::string& rel : files) {
    SCOPED_TRACE(rel);
    std::string json_path = data + "/expected/" + rel + kSuffix;
    simdjson::dom::element o;
    ASSERT_EQ(parser.load(json_path).get(o), simdjson::SUCCESS) << json_path;
    auto r = ReadXSpaceFile(data + "/" + rel);
    std::string_view oracle_error;
    if (o["error"].get(oracle_error) == simdjson::SUCCESS) {
      ASSERT_FALSE(r.ok()) << "oracle says: " << oracle_error;
      int64_t off = o["error_offset"].get_int64().value();
      EXPECT_NE(r.status().message().find(" at byte offset " + std::to_string(off) + " "),
                std::string::npos)
          << r.status().message();
      EXPECT_NE(r.status().message().find(std::string(oracle_error)), std::string::npos)
          << r.status().message();
      ++checked;
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status().message();
    const XSpaceData& x = *r;
    ASSERT_EQ(x.planes.size(), o["planes_count"].get_uint64().value());
    EXPECT_EQ(x.EventsTotal(), o["events_total"].get_uint64().value());
    EXPECT_EQ(x.unknown_fields, o["unknown_fields"].get_uint64().value());
    EXPECT_EQ(x.errors.size(), o["errors_count"].get_uint64().value());
    EXPECT_EQ(x.warnings.size(), o["warnings_count"].get_uint64().value());
    size_t pi = 0;
    for (simdjson::dom::element op : o["planes"].get_array()) {
      const Plane& p = x.planes[pi++];
      SCOPED_TRACE(p.name);
      EXPECT_EQ(p.name, std::string_view(op["name"].get_string().value()));
      EXPECT_EQ(p.id, op["id"].get_int64().value());
      ASSERT_EQ(p.lines.size(), op["lines_count"].get_uint64().value());
      size_t li = 0;
      for (simdjson::dom::element ol : op["lines"].get_array()) {
        const Line& l = p.lines[li++];
        EXPECT_EQ(l.name, std::string_view(ol["name"].get_string().value()));
        EXPECT_EQ(l.id, ol["id"].get_int64().value());
        EXPECT_EQ(l.display_id, ol["display_id"].get_int64().value());
        EXPECT_EQ(l.events.size(), ol["events"].get_uint64().value()) << l.name;
        EXPECT_EQ(l.timestamp_ns, ol["timestamp_ns"].get_int64().value()) << l.name;
        EXPECT_EQ(l.duration_ps, ol["duration_ps"].get_int64().value()) << l.name;
        int64_t sum = 0;
        for (const Event& e : l.events) sum += e.duration_ps;
        EXPECT_EQ(sum, ol["sum_duration_ps"].get_int64().value()) << l.name;
      }
      std::vector<std::string> line_names;
      for (simdjson::dom::element n : op["line_names"].get_array())
        line_names.emplace_back(n.get_string().value());
      std::vector<std::string> got_line_names;
      for (const Line& l : p.lines) got_line_names.push_back(l.name);
      EXPECT_EQ(got_line_names, line_names);
      EXPECT_EQ(p.event_metadata.size(), op["event_metadata_count"].get_uint64().value());
      EXPECT_EQ(p.event_metadata_index.size(),
                op["event_metadata_distinct_ids"].get_uint64().value());
      EXPECT_EQ(p.stat_metadata.size(), op["stat_metadata_count"].get_uint64().value());
      EXPECT_EQ(p.stats.size(), op["plane_stats_count"].get_uint64().value());
      std::vector<std::string> names;
      for (simdjson::dom::element n : op["stat_metadata_names"].get_array())
        names.emplace_back(n.get_string().value());
      std::vector<std::string> got;
      for (const StatMetadata& md : p.stat_metadata) got.push_back(md.name);
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, names);
    }
    ++checked;
  }
  EXPECT_EQ(checked, files.size());
}

TEST(XSpaceReaderTest, CorruptUpstreamFileFailsAtOffsetOne) {
  std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "shared data folder absent: corrupt XSpace not available";
  auto r = ReadXSpaceFile(data + "/" + kCorrupt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("at byte offset 1 (in XSpace)"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("tpu_inference_2.xplane.pb: "), std::string::npos);
}

TEST(XSpaceReaderTest, TruncatedAndRandomInputFailWithOffset) {
  std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "shared data folder absent: no good XSpace to truncate";
  std::string good = th::testing::ReadFile(data + "/" + kGood);
  ASSERT_FALSE(good.empty());
  std::string path = th::testing::WriteTempFile("half.xplane.pb", good.substr(0, good.size() / 2));
  auto t = ReadXSpaceFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("half.xplane.pb: "), std::string::npos);
  EXPECT_NE(t.status().message().find(" at byte offset "), std::string::npos)
      << t.status().message();

  std::mt19937_64 rng(1234);
  for (int trial = 0; trial < 20; ++trial) {
    std::string noise(4096, '\0');
    for (char& c : noise) c = static_cast<char>(rng());
    auto n = ReadXSpace(noise, "noise");
    ASSERT_FALSE(n.ok()) << "trial " << trial;
    EXPECT_NE(n.status().message().find(" at byte offset "), std::string::npos)
        << n.status().message();
  }
  // Every prefix of a small real-file head must fail cleanly or succeed, never crash.
  std::string head = good.substr(0, 2048);
  for (size_t n = 0; n < head.size(); n += 7) (void)ReadXSpace(head.substr(0, n), "prefix");
}

TEST(XSpaceReaderTest, DecodeSpeed) {
  std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "shared data folder absent";
  std::string largest;
  uintmax_t size = 0;
  for (const std::string& rel : XPlaneFiles(data)) {
    if (rel == kCorrupt) continue;
    uintmax_t s = fs::file_size(data + "/" + rel);
    if (s > size) size = s, largest = rel;
  }
  std::string bytes = th::testing::ReadFile(data + "/" + largest);
  int reps = 20;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) ASSERT_TRUE(ReadXSpace(bytes, largest).ok());
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double mbps = static_cast<double>(bytes.size()) * reps / s / 1e6;
  std::printf("decode %s: %zu bytes, %.1f MB/s\n", largest.c_str(), bytes.size(), mbps);
}

}  // namespace
}  // namespace th::xspace
