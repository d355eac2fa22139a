// How the reports write the changes ranked by the critical path: JSON fields
// (integers in ns, shares as ratios), the Markdown table and the terminal line.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/report/json_writer.h"
#include "core/report/path_changes.h"

namespace th {

// {"available", "ranked_by", "causes": [...]}; `ids`: finding ids by index
// into `findings`.
void WritePathChangesJson(JsonWriter& w, const PathChanges& c, const std::vector<Finding>& findings,
                          const std::vector<std::string>& ids);
// The Markdown table with its explanation (nothing when !c.available).
void WritePathChangesMarkdown(const PathChanges& c, std::ostream& out);
// "23.4 %" of a share.
std::string ShareText(double share);

}  // namespace th
