// YAML pipelines: parse, include-free validation against a small catalog,
// --set overrides. An input whose first line starts with "--set " uses the
// rest of that line as one override.
#include <string>

#include "core/pipeline/pipeline_loader.h"
#include "tests/core/pipeline/pipeline_test_catalog.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  th::LoadPipelineOptions options;
  if (text.rfind("--set ", 0) == 0) {
    size_t eol = text.find('\n');
    options.set_overrides.push_back(text.substr(6, eol == std::string::npos ? eol : eol - 6));
    text = eol == std::string::npos ? "" : text.substr(eol + 1);
  }
  options.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  std::string path = th::fuzz::WriteScratch("pipeline.yaml", text);
  static const std::vector<th::PluginDeclaration> catalog = th::testing::TestCatalog();
  auto pipeline = th::LoadPipeline(path, catalog, options);
  if (!pipeline.ok()) {
    const std::string& m = pipeline.status().message();
    // One line naming a place ("FILE:LINE:COL: ", "--set:N:COL: ", an included file).
    th::fuzz::Require(!m.empty() && m.find('\n') == std::string::npos && m.find(": ") != m.npos,
                      "error is not one line naming a place: " + m);
  }
  return 0;
}
