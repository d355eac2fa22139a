// The diff result as one self-contained HTML page (no script): the Markdown
// report's sections as tables, and the exact JSON in a
// <script type="application/json" id="diff-data"> element for tools.
#pragma once

#include <string>

#include "core/diff/diff_result.h"

namespace th::diff {

std::string DiffHtml(const DiffResult& r, size_t unchanged_rows = 20);

}  // namespace th::diff
