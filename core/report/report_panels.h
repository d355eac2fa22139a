// Report panels: the parts of a report that draw a plugin's table in their
// own way (a chart, a heat map, the timeline's step windows). A plugin names
// the panel in its table's schema (Schema::View); a panel finds its table by
// that view, never by table name, and lists the columns it draws, so a test
// ties every panel to the schemas that feed it (docs/report-panels.md).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/table_catalog.h"

namespace th {

// How many rows of the table a self-contained HTML report keeps.
enum class PanelRows : uint8_t {
  kGrid,   // rank x step tables (HtmlReportLimits::max_grid_rows)
  kMain,   // the tables a reader ranks and sorts (max_table_rows)
  kOther,  // every other table, listed collapsed (max_other_rows)
};

struct ReportPanel {
  std::string view;  // the name a schema's View() gives
  PanelRows rows = PanelRows::kOther;
  std::string drawn_by;                                     // where the drawing code lives
  std::vector<std::pair<std::string, ColumnType>> columns;  // every column it reads
};

// Every panel, in report order. "per-step" draws nothing itself: a rank x
// step table listed with the grid row budget.
const std::vector<ReportPanel>& ReportPanels();
const ReportPanel* FindPanel(std::string_view view);

// The table of `results` published for panel `view`, or nullptr (the plugin
// did not run, or published no rows).
const DerivedTable* TableForPanel(const PluginResults& results, std::string_view view);

// The columns `panel` reads that `table` lacks or has with another type, as
// "name (type)"; empty when the panel can draw it.
std::vector<std::string> MissingPanelColumns(const ReportPanel& panel, const TableSchema& table);

}  // namespace th
