// The HTML report's assets (core/report/html/), embedded into the binary at
// build time (core/report/html/embed_assets.cmake), so an installed
// tracehound needs no file beside it to write a report.
#pragma once

#include <string_view>

namespace th {

struct HtmlAssets {
  std::string_view report_js, report_css;
  std::string_view uplot_js, uplot_css, uplot_license;
  std::string_view uplot_version;  // the pinned npm version (vendor/uplot/VERSION)
};

const HtmlAssets& EmbeddedHtmlAssets();

}  // namespace th
