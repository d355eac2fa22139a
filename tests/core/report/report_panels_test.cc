#include "core/report/report_panels.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "core/plugin/plugin_loader.h"

namespace th {
namespace {

// Every panel the reports draw is fed by exactly one shipped plugin table
// whose schema names the panel and has every column the panel reads, with
// its type; every view a shipped schema names is a panel.
TEST(ReportPanels, EveryPanelMatchesTheSchemaThatFeedsIt) {
  PluginRegistry registry;
  Status loaded = registry.LoadDirectories({BUILTIN_PLUGIN_DIR});
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  std::map<std::string, std::vector<const TableSchema*>> by_view;
  const std::vector<PluginDeclaration> declarations = registry.Declarations();
  for (const PluginDeclaration& d : declarations) {
    for (const TableSchema& t : d.publishes) {
      if (t.view.empty()) continue;
      EXPECT_NE(FindPanel(t.view), nullptr)
          << d.id << " table " << t.name << " names panel " << t.view << ", which is no panel";
      by_view[t.view].push_back(&t);
    }
  }
  for (const ReportPanel& p : ReportPanels()) {
    if (p.columns.empty()) continue;  // a listing with a row budget, no drawing of its own
    ASSERT_EQ(by_view[p.view].size(), 1u) << "panel " << p.view;
    const TableSchema& schema = *by_view[p.view][0];
    const std::vector<std::string> missing = MissingPanelColumns(p, schema);
    EXPECT_TRUE(missing.empty()) << "panel " << p.view << " (" << p.drawn_by
                                 << ") reads columns table " << schema.name
                                 << " lacks: " << ::testing::PrintToString(missing);
  }
}

TEST(ReportPanels, ARenamedOrRetypedColumnIsNamed) {
  const ReportPanel* panel = FindPanel("kernel-stats");
  ASSERT_NE(panel, nullptr);
  TableSchema schema{"kernel_stats", "", {}, "kernel-stats"};
  for (const auto& [name, type] : panel->columns) schema.columns.push_back({name, type, "", ""});
  EXPECT_TRUE(MissingPanelColumns(*panel, schema).empty());
  schema.columns[0].name = "kernel";          // was name
  schema.columns[3].type = ColumnType::kF64;  // total, i64
  EXPECT_EQ(MissingPanelColumns(*panel, schema),
            (std::vector<std::string>{"name (string)", "total (i64)"}));
}

TEST(ReportPanels, TablesAreFoundByViewNotByName) {
  PluginResults results;
  DerivedTable t;
  t.name = "my_kernel_table";
  t.view = "kernel-stats";
  t.rows = 1;
  results.tables[t.name] = t;
  EXPECT_EQ(TableForPanel(results, "kernel-stats"), &results.tables.at("my_kernel_table"));
  results.tables.at("my_kernel_table").rows = 0;
  EXPECT_EQ(TableForPanel(results, "kernel-stats"), nullptr);  // nothing to draw
  EXPECT_EQ(TableForPanel(results, "stragglers"), nullptr);
}

}  // namespace
}  // namespace th
