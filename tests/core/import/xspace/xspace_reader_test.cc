#include "core/import/xspace/xspace_reader.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/xspace_amplifier.h"
#include "core/import/xspace/wire_reader.h"
#include "tests/support/test_files.h"

namespace th::xspace {
namespace {

namespace fs = std::filesystem;

constexpr char kSuffix[] = ".oracle.json";
constexpr char kCorrupt[] =
    "xprof/corrupted_upstream/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb";
constexpr char kGood[] = "xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb";

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

// Everything a decode produced, as text (or its error): two decodes compare
// equal when they agree on every field.
std::string Describe(const th::StatusOr<XSpaceData>& r) {
  if (!r.ok()) return "error: " + r.status().message();
  std::string d;
  auto add = [&d](auto v) { d += std::to_string(v) + ","; };
  auto str = [&d](std::string_view v) {
    d += std::to_string(v.size()) + ":";
    d.append(v);
  };
  auto stat = [&](const Stat& s) {
    add(int64_t{s.metadata_id});
    add(static_cast<int>(s.kind));
    if (s.kind == StatKind::kStr || s.kind == StatKind::kBytes) {
      str(s.str);
    } else {
      add(s.raw);
    }
  };
  const XSpaceData& x = r.value();
  add(x.unknown_fields);
  for (const auto* list : {&x.hostnames, &x.errors, &x.warnings})
    for (const std::string& s : *list) str(s);
  for (const Plane& p : x.planes) {
    add(p.id);
    str(p.name);
    for (const Stat& s : p.stats) stat(s);
    for (const EventMetadata& m : p.event_metadata) {
      add(m.key), add(m.id), str(m.name), str(m.display_name), str(m.metadata);
      for (const Stat& s : m.stats) stat(s);
      for (int64_t c : m.child_ids) add(c);
    }
    for (const StatMetadata& m : p.stat_metadata)
      add(m.key), add(m.id), str(m.name), str(m.description);
    for (const Line& l : p.lines) {
      add(l.id), add(l.display_id), str(l.name), str(l.display_name), add(l.timestamp_ns),
          add(l.duration_ps);
      d += "[";
      for (const Event& e : l.events) {
        add(e.metadata_id), add(e.has_num_occurrences ? e.num_occurrences : e.offset_ps);
        add(static_cast<int>(e.has_num_occurrences)), add(e.duration_ps);
        for (const Stat& s : p.StatsOf(e)) stat(s);
        d += ";";
      }
      d += "]";
    }
  }
  return d;
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
  std::vector<std::string> files = testing::FilesWithOracle(".xplane.pb", /*with_corrupt=*/true);
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

// ---- the fast paths for events and stats against the strict decoder ----

// A space of one plane and one line holding `events` (encoded XEvents), the
// line last in the plane and the plane last in the space, so the last event
// ends at the last byte of the buffer.
std::string OneLineSpace(const std::vector<std::string>& events) {
  std::string line, plane, space;
  VarintField(&line, 1, 7);
  LenField(&line, 2, "main");
  VarintField(&line, 3, 1000);
  for (const std::string& e : events) LenField(&line, 4, e);
  VarintField(&plane, 1, 2);
  LenField(&plane, 2, "/host:CPU");
  LenField(&plane, 5, StatMd(10, "int_stat"));
  LenField(&plane, 5, StatMd(11, "name"));
  LenField(&plane, 3, line);
  LenField(&space, 1, plane);
  return space;
}

std::string IntStat(uint64_t id, uint64_t v, uint32_t field = 4) {
  std::string st;
  VarintField(&st, 1, id);
  VarintField(&st, field, v);
  return st;
}

// Decodes with and without the fast paths; they must agree. Returns the decode.
th::StatusOr<XSpaceData> ReadBoth(const std::string& bytes) {
  auto fast = ReadXSpace(bytes, "t");
  EXPECT_EQ(Describe(fast), Describe(ReadXSpaceStrictOnly(bytes, "t")));
  return fast;
}

TEST(XSpaceReaderTest, FastPathAgreesWithStrictDecoderOnOddEncodings) {
  std::string str_stat;
  VarintField(&str_stat, 1, 11);
  LenField(&str_stat, 5, "fusion.3");

  std::string canonical;
  VarintField(&canonical, 1, 5);
  VarintField(&canonical, 2, 1500);
  VarintField(&canonical, 3, 250);
  LenField(&canonical, 4, IntStat(10, 42));
  LenField(&canonical, 4, str_stat);
  // The same fields in reverse order, and with metadata_id written twice.
  std::string reversed;
  LenField(&reversed, 4, IntStat(10, 42));
  LenField(&reversed, 4, str_stat);
  VarintField(&reversed, 3, 250);
  VarintField(&reversed, 1, 99);
  VarintField(&reversed, 2, 1500);
  VarintField(&reversed, 1, 5);
  // offset_ps written as a two-byte (non-minimal) tag.
  std::string long_tag;
  VarintField(&long_tag, 1, 5);
  long_tag += std::string("\x90\x00", 2);
  Varint(&long_tag, 1500);
  VarintField(&long_tag, 3, 250);
  LenField(&long_tag, 4, IntStat(10, 42));
  LenField(&long_tag, 4, str_stat);
  auto a = ReadBoth(OneLineSpace({canonical}));
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(Describe(a), Describe(ReadBoth(OneLineSpace({reversed}))));
  EXPECT_EQ(Describe(a), Describe(ReadBoth(OneLineSpace({long_tag}))));
  const Event& e = a->planes[0].lines[0].events[0];
  EXPECT_EQ(e.metadata_id, 5);
  EXPECT_EQ(e.offset_ps, 1500);
  EXPECT_EQ(e.duration_ps, 250);
  ASSERT_EQ(e.stats_count, 2u);
  EXPECT_EQ(a->planes[0].StatString(a->planes[0].StatsOf(e)[1]), "fusion.3");

  // oneof offset_ps / num_occurrences: the last one written wins.
  std::string off_then_num, num_then_off;
  VarintField(&off_then_num, 2, 1500);
  VarintField(&off_then_num, 5, 3);
  VarintField(&num_then_off, 5, 3);
  VarintField(&num_then_off, 2, 1500);
  auto o = ReadBoth(OneLineSpace({off_then_num, num_then_off, ""}));
  ASSERT_TRUE(o.ok());
  const auto& ev = o->planes[0].lines[0].events;
  EXPECT_TRUE(ev[0].has_num_occurrences);
  EXPECT_EQ(ev[0].num_occurrences, 3);
  EXPECT_FALSE(ev[1].has_num_occurrences);
  EXPECT_EQ(ev[1].offset_ps, 1500);
  EXPECT_FALSE(ev[2].has_num_occurrences);  // empty event: offset 0
  EXPECT_EQ(ev[2].offset_ps, 0);

  // Extreme varints: 10-byte negative offset, 9-byte duration, 10-byte
  // metadata id, max uint64 stat, and a double; unknown and mistyped fields.
  std::string wide, dbl, stat_mix, unknown;
  VarintField(&wide, 1, uint64_t{1} << 63);
  VarintField(&wide, 2, static_cast<uint64_t>(int64_t{-1}));
  VarintField(&wide, 3, static_cast<uint64_t>(INT64_MAX));
  LenField(&wide, 4, IntStat(10, UINT64_MAX, 3));
  VarintField(&dbl, 1, 10);
  DoubleField(&dbl, 2, -0.5);
  LenField(&wide, 4, dbl);
  LenField(&stat_mix, 5, "dropped");  // str then int: an int stat
  VarintField(&stat_mix, 1, 11);
  VarintField(&stat_mix, 4, 9);
  LenField(&wide, 4, stat_mix);
  LenField(&wide, 4, "");       // an empty stat
  LenField(&unknown, 1, "x");   // metadata_id with the wrong wire type
  VarintField(&unknown, 9, 1);  // unknown field
  VarintField(&unknown, 2, 77);
  std::string stat_unknown = IntStat(10, 1);
  VarintField(&stat_unknown, 15, 1);
  LenField(&unknown, 4, stat_unknown);
  std::string bytes_stat;
  VarintField(&bytes_stat, 1, 11);
  LenField(&bytes_stat, 6, std::string("\xFF\x00\x01", 3));
  LenField(&unknown, 4, bytes_stat);
  auto w = ReadBoth(OneLineSpace({wide, unknown}));
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->unknown_fields, 3u);
  const Plane& p = w->planes[0];
  const Event& we = p.lines[0].events[0];
  EXPECT_EQ(we.metadata_id, INT64_MIN);
  EXPECT_EQ(we.offset_ps, -1);
  EXPECT_EQ(we.duration_ps, INT64_MAX);
  auto ws = p.StatsOf(we);
  ASSERT_EQ(ws.size(), 4u);
  EXPECT_EQ(ws[0].uint64_value(), UINT64_MAX);
  EXPECT_EQ(ws[1].double_value(), -0.5);
  EXPECT_EQ(ws[2].kind, StatKind::kInt64);
  EXPECT_TRUE(ws[2].str.empty());
  EXPECT_EQ(ws[3].kind, StatKind::kNone);
  auto us = p.StatsOf(p.lines[0].events[1]);
  ASSERT_EQ(us.size(), 2u);
  EXPECT_EQ(us[1].kind, StatKind::kBytes);
  EXPECT_EQ(us[1].str, std::string_view("\xFF\x00\x01", 3));

  // Varints of every length (1 to 10 bytes), in the middle of the buffer and
  // ending at its last byte, and cut short by the end of their message.
  for (int bits = 0; bits < 64; ++bits) {
    for (uint64_t v : {uint64_t{1} << bits, (uint64_t{1} << bits) - 1}) {
      std::string e, last;
      VarintField(&e, 2, v);
      VarintField(&e, 3, v);
      VarintField(&last, 3, v);
      auto r = ReadBoth(OneLineSpace({e, last}));
      ASSERT_TRUE(r.ok()) << v;
      EXPECT_EQ(static_cast<uint64_t>(r->planes[0].lines[0].events[0].offset_ps), v);
      EXPECT_EQ(static_cast<uint64_t>(r->planes[0].lines[0].events[1].duration_ps), v);
      std::string cut = e.substr(0, e.size() - 1);  // the last varint loses its last byte
      EXPECT_FALSE(ReadBoth(OneLineSpace({cut, last})).ok()) << v;
    }
  }

  // Errors inside events: both decoders report the same offset and path.
  std::string too_long = canonical;
  too_long +=
      std::string("\x10\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x01", 12);  // 11-byte varint
  std::string bad_utf8;
  VarintField(&bad_utf8, 1, 11);
  LenField(&bad_utf8, 5, "ok\xC0\x80");
  std::string bad_stat_event;
  LenField(&bad_stat_event, 4, bad_utf8);
  for (const std::string& bad : {too_long, bad_stat_event, std::string("\x18", 1)}) {
    auto r = ReadBoth(OneLineSpace({canonical, bad}));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("(in planes[0].lines[0].events[1]"), std::string::npos)
        << r.status().message();
  }
}

TEST(XSpaceReaderTest, StatMetadataIdsBeyond56BitsAreRefused) {
  const int64_t max = Stat::kMaxMetadataId;
  for (int64_t id : {max, -max - 1, int64_t{1}}) {
    std::string ev;
    LenField(&ev, 4, IntStat(static_cast<uint64_t>(id), 1));
    auto r = ReadBoth(OneLineSpace({ev}));
    ASSERT_TRUE(r.ok()) << id;
    EXPECT_EQ(r->planes[0].event_stats[0].metadata_id, id);
  }
  std::string ev;
  LenField(&ev, 4, IntStat(uint64_t{1} << 55, 1));
  auto r = ReadBoth(OneLineSpace({"", ev}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("stat metadata_id 36028797018963968 beyond +-2^55 (not "
                                      "supported)"),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("(in planes[0].lines[0].events[1].stats[0])"),
            std::string::npos)
      << r.status().message();
}

TEST(XSpaceReaderTest, StringStatsReadAsStringsAndSurviveCopies) {
  std::string str_stat, ev;
  VarintField(&str_stat, 1, 11);
  LenField(&str_stat, 5, "a string stat longer than the small-string buffer");
  LenField(&ev, 4, str_stat);
  std::optional<XSpaceData> original;
  {
    auto r = ReadXSpace(OneLineSpace({ev}), "t");
    ASSERT_TRUE(r.ok());
    original = std::move(*r);
  }
  XSpaceData copy = *original;
  original.reset();
  const Plane& p = copy.planes[0];
  const Stat& s = p.event_stats.at(0);
  const std::string& as_string = s.str;
  std::string_view as_view = s.str;
  std::string owned = s.str;
  EXPECT_EQ(as_string, "a string stat longer than the small-string buffer");
  EXPECT_EQ(as_view, as_string);
  EXPECT_EQ(owned, as_string);
  EXPECT_TRUE(s.str == "a string stat longer than the small-string buffer");
  EXPECT_EQ(s.str.size(), as_string.size());
  EXPECT_EQ(s.str.find("stat"), 9u);
  EXPECT_EQ(&p.StatString(s), &as_string);
  EXPECT_TRUE(Stat().str.empty());
  EXPECT_EQ(Stat().str, "");
}

TEST(XSpaceReaderTest, FastPathAgreesWithStrictDecoderOnRealAndDamagedFiles) {
  std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "shared data folder absent: no real XSpace files";
  std::mt19937_64 rng(20240601);
  size_t files = 0, damaged_ok = 0;
  for (const std::string& rel : testing::FilesWithOracle(".xplane.pb", /*with_corrupt=*/true)) {
    SCOPED_TRACE(rel);
    const std::string good = th::testing::ReadFile(data + "/" + rel);
    (void)ReadBoth(good);
    ++files;
    if (rel == kCorrupt) continue;
    // Damaged copies: a few bytes overwritten in each (no truncation), so
    // most damage lands inside events and stats, valid or not.
    for (int trial = 0; trial < 12; ++trial) {
      std::string bad = good;
      for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k) {
        size_t at = rng() % bad.size();
        bad[at] = static_cast<char>(rng() % 2 ? rng() : bad[at] ^ (1 << (rng() % 8)));
      }
      damaged_ok += ReadBoth(bad).ok();
    }
  }
  EXPECT_GT(files, 1u);
  std::printf("fast path == strict decoder on %zu files and their damaged copies (%zu decoded)\n",
              files, damaged_ok);
}

// ---- the streaming decoder (StreamXSpaceFile) ----

// Counts what the streaming decoder hands over, reading every stat and string
// value while it is valid (so the sanitizer build catches a dangling one).
class CountingSink : public XSpaceSink {
 public:
  std::vector<size_t> BeginPlane(const Plane& plane) override {
    ++planes;
    std::vector<size_t> all(plane.lines.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;  // every line previewed too
  }
  void Preview(const Plane& plane, size_t, std::span<const Event> events) override {
    previewed += events.size();
    Touch(plane, events);
  }
  void BeginLine(const Plane&, size_t) override {}
  void LineEvents(const Plane& plane, size_t, std::span<const Event> events) override {
    Touch(plane, events);
  }
  void EndLine(const Plane&, size_t, uint64_t n) override { events += n; }
  void EndPlane(const Plane&) override {}

  size_t planes = 0;
  uint64_t events = 0, previewed = 0, checksum = 0;

 private:
  void Touch(const Plane& plane, std::span<const Event> batch) {
    for (const Event& e : batch)
      for (const Stat& s : plane.StatsOf(e))
        checksum += s.raw + s.str.size() + plane.StatString(s).size();
  }
};

TEST(XSpaceReaderTest, StreamingDecoderAgreesWithModelOnRealAndDamagedFiles) {
  std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "shared data folder absent: no real XSpace files";
  std::mt19937_64 rng(7);
  size_t checked = 0, decoded = 0;
  for (const std::string& rel : testing::FilesWithOracle(".xplane.pb", /*with_corrupt=*/true)) {
    SCOPED_TRACE(rel);
    const std::string good = th::testing::ReadFile(data + "/" + rel);
    for (int trial = 0; trial < 16; ++trial) {
      std::string bytes = good;
      if (trial % 4 == 1) {
        bytes.resize(rng() % bytes.size());
      } else if (trial > 0) {
        for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k) {
          size_t at = rng() % bytes.size();
          bytes[at] = static_cast<char>(rng() % 2 ? rng() : bytes[at] ^ (1 << (rng() % 8)));
        }
      }
      const std::string path = th::testing::WriteTempFile("stream.xplane.pb", bytes);
      auto model = ReadXSpaceFile(path);
      CountingSink sink;
      th::Status streamed = StreamXSpaceFile(path, &sink);
      ASSERT_EQ(streamed.ok(), model.ok()) << "trial " << trial << ": " << streamed.message();
      ++checked;
      if (!model.ok()) {
        EXPECT_EQ(streamed.message(), model.status().message()) << "trial " << trial;
        continue;
      }
      ++decoded;
      EXPECT_EQ(sink.planes, model->planes.size());
      EXPECT_EQ(sink.events, model->EventsTotal());
      EXPECT_EQ(sink.previewed, model->EventsTotal());
    }
  }
  EXPECT_GT(decoded, 0u);
  std::printf("streaming == model decoder on %zu real and damaged copies (%zu decoded)\n", checked,
              decoded);
}

// ---- the XSpace amplifier (benchmarks/xspace_amplifier.h) ----

// Amplifies `src` K times and checks the result event by event against it.
void CheckAmplified(const std::string& src, int64_t k) {
  th::bench::XSpaceAmplifyOptions options;
  options.repetitions = k;
  std::string out;
  auto stats =
      th::bench::AmplifyXSpace(src, options, [&out](std::string_view piece) { out.append(piece); });
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->repetitions, k);
  EXPECT_EQ(stats->bytes_written, static_cast<int64_t>(out.size()));
  auto a = ReadXSpace(src, "source");
  auto b = ReadXSpace(out, "amplified");  // the strict reader accepts it
  ASSERT_TRUE(a.ok() && b.ok()) << b.status().message();
  EXPECT_EQ(b->EventsTotal(), static_cast<uint64_t>(k) * a->EventsTotal());
  EXPECT_EQ(stats->events_written, static_cast<int64_t>(b->EventsTotal()));
  EXPECT_EQ(b->hostnames, a->hostnames);
  EXPECT_EQ(b->unknown_fields, a->unknown_fields);
  ASSERT_EQ(b->planes.size(), a->planes.size());
  const int64_t period = stats->period_ps, stride = stats->correlation_stride;
  EXPECT_GT(period, 0);
  EXPECT_EQ(period % 1000, 0);
  for (size_t pi = 0; pi < a->planes.size(); ++pi) {
    const Plane& pa = a->planes[pi];
    const Plane& pb = b->planes[pi];
    EXPECT_EQ(pb.id, pa.id);
    EXPECT_EQ(pb.name, pa.name);
    EXPECT_EQ(pb.event_metadata.size(), pa.event_metadata.size());
    EXPECT_EQ(pb.stat_metadata.size(), pa.stat_metadata.size());
    EXPECT_EQ(pb.stats.size(), pa.stats.size());
    int64_t correlation_id = INT64_MIN;
    for (const StatMetadata& m : pa.stat_metadata)
      if (m.name == "correlation_id") correlation_id = m.key;
    ASSERT_EQ(pb.lines.size(), pa.lines.size());
    for (size_t li = 0; li < pa.lines.size(); ++li) {
      const Line& la = pa.lines[li];
      const Line& lb = pb.lines[li];
      EXPECT_EQ(lb.id, la.id);
      EXPECT_EQ(lb.name, la.name);
      EXPECT_EQ(lb.timestamp_ns, la.timestamp_ns);
      const size_t n = la.events.size();
      ASSERT_EQ(lb.events.size(), static_cast<size_t>(k) * n);
      int64_t last_end = INT64_MIN;
      for (int64_t j = 0; j < k; ++j) {
        int64_t first_begin = INT64_MAX;
        for (size_t i = 0; i < n; ++i) {
          const Event& ea = la.events[i];
          const Event& eb = lb.events[j * n + i];
          ASSERT_EQ(eb.metadata_id, ea.metadata_id);
          ASSERT_EQ(eb.duration_ps, ea.duration_ps);
          ASSERT_EQ(eb.has_num_occurrences, ea.has_num_occurrences);
          if (ea.has_num_occurrences) {
            ASSERT_EQ(eb.num_occurrences, ea.num_occurrences);
          } else {
            ASSERT_EQ(eb.offset_ps, ea.offset_ps + j * period);
            first_begin = std::min(first_begin, eb.offset_ps);
            if (j == 0) last_end = std::max(last_end, eb.offset_ps + eb.duration_ps);
          }
          auto sa = pa.StatsOf(ea);
          auto sb = pb.StatsOf(eb);
          ASSERT_EQ(sb.size(), sa.size());
          for (size_t si = 0; si < sa.size(); ++si) {
            ASSERT_EQ(sb[si].metadata_id, sa[si].metadata_id);
            ASSERT_EQ(sb[si].kind, sa[si].kind);
            ASSERT_EQ(sb[si].str, sa[si].str);
            const bool shifted =
                sa[si].metadata_id == correlation_id && sa[si].int64_value() > 0 &&
                (sa[si].kind == StatKind::kInt64 || sa[si].kind == StatKind::kUint64);
            ASSERT_EQ(sb[si].raw, sa[si].raw + (shifted ? static_cast<uint64_t>(j * stride) : 0));
          }
        }
        // Copy j starts after copy 0 of this line has ended.
        if (j > 0 && first_begin != INT64_MAX) {
          EXPECT_GT(first_begin, last_end);
        }
      }
    }
  }
}

TEST(XSpaceAmplifierTest, RepeatsEveryLinesEventsKTimes) {
  // Hand-built: a timed event, one with neither offset nor num_occurrences
  // (offset 0), an aggregate, correlation ids on two planes.
  std::string corr_md = StatMd(3, "correlation_id");
  std::string e1, e2, e3;
  VarintField(&e1, 1, 1);
  VarintField(&e1, 2, 5000);
  VarintField(&e1, 3, 700);
  LenField(&e1, 4, IntStat(3, 41));
  VarintField(&e2, 3, 10);
  VarintField(&e3, 5, 12);
  std::string line, plane, gpu_line, gpu, space;
  VarintField(&line, 1, 1);
  VarintField(&line, 3, 100);
  LenField(&line, 4, e1);
  LenField(&line, 4, e2);
  LenField(&line, 4, e3);
  VarintField(&line, 9, 123);
  LenField(&plane, 2, "/host:CPU");
  LenField(&plane, 3, line);
  LenField(&plane, 5, corr_md);
  std::string k1;
  VarintField(&k1, 2, 6000);
  VarintField(&k1, 3, 50);
  LenField(&k1, 4, IntStat(3, 41, 3));
  VarintField(&gpu_line, 3, 100);
  LenField(&gpu_line, 4, k1);
  LenField(&gpu, 2, "/device:GPU:0");
  LenField(&gpu, 3, gpu_line);
  LenField(&gpu, 5, corr_md);
  LenField(&space, 1, plane);
  LenField(&space, 1, gpu);
  LenField(&space, 4, "host-a");
  CheckAmplified(space, 1);
  CheckAmplified(space, 5);

  std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "shared data folder absent: no real XSpace to amplify";
  CheckAmplified(th::testing::ReadFile(data + "/" + kGood), 3);
  CheckAmplified(th::testing::ReadFile(
                     data + "/tracelens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb"),
                 2);
}

TEST(XSpaceAmplifierTest, ReachesTheTargetSize) {
  std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "shared data folder absent";
  const std::string src = th::testing::ReadFile(data + "/" + kGood);
  th::bench::XSpaceAmplifyOptions options;
  options.target_bytes = 8 << 20;
  int64_t size = 0;
  auto stats =
      th::bench::AmplifyXSpace(src, options, [&size](std::string_view p) { size += p.size(); });
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(size, stats->bytes_written);
  EXPECT_NEAR(static_cast<double>(size), 8 << 20, 0.05 * (8 << 20));
  EXPECT_FALSE(th::bench::AmplifyXSpace("\x0b", options, [](std::string_view) {}).ok());
}

TEST(XSpaceReaderTest, DecodeSpeed) {
  std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "shared data folder absent";
  std::string largest;
  uintmax_t size = 0;
  for (const std::string& rel : testing::FilesWithOracle(".xplane.pb", /*with_corrupt=*/true)) {
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
