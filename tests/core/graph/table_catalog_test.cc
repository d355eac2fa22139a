#include "core/graph/table_catalog.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "core/graph/core_tables.h"
#include "core/import/trace_loader.h"
#include "tests/support/synthetic_traces.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

TEST(TableCatalog, CoreSchemasHaveUniqueNamesAndDocumentedColumns) {
  std::set<std::string> names;
  for (const TableSchema& t : CoreTableSchemas()) {
    EXPECT_TRUE(names.insert(t.name).second) << t.name;
    EXPECT_FALSE(t.doc.empty()) << t.name;
    std::set<std::string> columns;
    for (const ColumnSchema& c : t.columns) {
      EXPECT_TRUE(columns.insert(c.name).second) << t.name << "." << c.name;
      EXPECT_FALSE(c.doc.empty()) << t.name << "." << c.name;
      EXPECT_GT(ColumnTypeSize(c.type), 0u);
    }
  }
  // Times are ns, sizes bytes: the units a report prints.
  EXPECT_EQ(CoreTableSchema("events")->Find("ts")->unit, "ns");
  EXPECT_EQ(CoreTableSchema("events")->Find("name")->type, ColumnType::kStringId);
  EXPECT_EQ(CoreTableSchema("memory_args")->Find("bytes")->unit, "bytes");
  EXPECT_EQ(CoreTableSchema("steps"), nullptr);  // the steps plugin's table, not a core one
  EXPECT_NE(CoreTableSchema("profiler_steps"), nullptr);
}

TEST(TableCatalog, EveryGraphTableOfATraceIsRegisteredWithoutCopies) {
  std::string path = testing::WriteTempFile("catalog.json", testing::kMoeTrainingTrace);
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  const Trace& trace = *set->traces[0];
  TraceTables tables;
  AddGraphTables(trace, &tables);
  const std::set<std::string> host_facts = {"name_classes", "class_rules", "graph_capture",
                                            "event_launches", "gpu_activity"};
  for (const TableSchema& s : CoreTableSchemas()) {
    if (host_facts.count(s.name)) {
      EXPECT_EQ(tables.Find(s.name), nullptr) << s.name << " is the plugin host's to register";
      continue;
    }
    const CatalogTable* t = tables.Find(s.name);
    ASSERT_NE(t, nullptr) << s.name;
    EXPECT_EQ(t->columns.size(), s.columns.size());
  }
  const CatalogTable* events = tables.Find("events");
  EXPECT_EQ(events->rows, trace.graph.events.size());
  EXPECT_EQ(events->columns[0], trace.graph.events.ts.data());  // zero copy
  EXPECT_EQ(tables.Find("tracks")->rows, trace.graph.tracks.size());
  EXPECT_EQ(tables.Find("gpu_args")->rows, trace.graph.gpu_args.size());
  EXPECT_EQ(tables.Find("gpu_hlo")->rows, 0u);  // not an XProf capture
}

TEST(TableCatalog, RegistrationChecksCountWidthAndNames) {
  TableSchema schema{
      "t", "a table", {{"a", ColumnType::kI64, "ns", "a"}, {"b", ColumnType::kU8, "", "b"}}, ""};
  std::vector<int64_t> a = {1, 2};
  std::vector<uint8_t> b = {3, 4};
  std::vector<int32_t> wide = {5, 6};
  TraceTables tables;
  EXPECT_THROW(tables.Add(schema, 2, {a.data()}), std::logic_error);
  try {
    tables.Add(schema, 2, {a.data(), wide.data()});
    FAIL() << "a 4-byte column registered as u8";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "table t column b: values of 4 bytes, its type u8 has 1");
  }
  tables.Add(schema, 2, {a.data(), b.data()});
  EXPECT_THROW(tables.Add(schema, 2, {a.data(), b.data()}), std::logic_error);
  ASSERT_NE(tables.Find("t"), nullptr);
  EXPECT_EQ(tables.Find("t")->rows, 2u);
}

TEST(TableCatalog, TrackOrderTablesListEachTracksEventsByStartWithoutCopies) {
  std::string path = testing::WriteTempFile("track-order.json", testing::kMoeTrainingTrace);
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  Trace& trace = *set->traces[0];
  const EventGraph& g = trace.graph;
  TraceTables tables;
  AddGraphTables(trace, &tables);
  const CatalogTable* per_track = tables.Find("track_events");
  const CatalogTable* order = tables.Find("track_order");
  ASSERT_EQ(per_track->rows, g.tracks.size());
  ASSERT_EQ(order->rows, g.track_offsets.back());
  EXPECT_EQ(order->columns[0], g.track_order.data());  // zero copy
  const auto* first = static_cast<const uint32_t*>(per_track->columns[0]);
  const auto* count = static_cast<const uint32_t*>(per_track->columns[1]);
  const auto* first_row = static_cast<const uint32_t*>(per_track->columns[2]);
  const auto* rows = static_cast<const uint32_t*>(order->columns[0]);
  // A track's events: listed in the slots, or, when they are consecutive
  // rows already by start, described by the first row (slots not read).
  auto at = [&](TrackId t, uint32_t k) {
    return first_row[t] != kNoRow ? first_row[t] + k : rows[first[t] + k];
  };
  size_t listed = 0, described = 0;
  for (TrackId t = 0; t < g.tracks.size(); ++t) {
    EXPECT_EQ(first_row[t], g.track_first_row[t]);
    described += first_row[t] != kNoRow;
    listed += count[t];
    for (uint32_t k = 0; k < count[t]; ++k) {
      const EventId i = at(t, k);
      EXPECT_EQ(g.events.track[i], t);
      if (k == 0) continue;
      const EventId p = at(t, k - 1);
      const auto& e = g.events;
      EXPECT_TRUE(e.ts[p] < e.ts[i] || (e.ts[p] == e.ts[i] && e.dur[p] > e.dur[i]) ||
                  (e.ts[p] == e.ts[i] && e.dur[p] == e.dur[i] && p < i))
          << "track " << t << " slot " << k;
    }
  }
  size_t slices = 0;  // every event but metadata and flows (the fixture has no B/E pairs)
  for (EventId i = 0; i < g.events.size(); ++i)
    slices += g.events.kind[i] != EventKind::kMetadata && g.events.kind[i] != EventKind::kFlow;
  EXPECT_EQ(listed, slices);
  EXPECT_GT(described, 0u);
  EXPECT_LT(described, g.tracks.size());  // both forms are read above

  // A graph without a per-track order (none of the importers) gets no rows.
  trace.graph.track_offsets.clear();
  TraceTables none;
  AddGraphTables(trace, &none);
  EXPECT_EQ(none.Find("track_events")->rows, 0u);
  EXPECT_EQ(none.Find("track_order")->rows, 0u);
}

}  // namespace
}  // namespace th
