// A small hand-made plugin catalog and helpers shared by the pipeline tests.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/pipeline/pipeline_loader.h"
#include "core/plugin/plugin_declaration.h"
#include "tests/support/test_files.h"

namespace th::testing {

inline OptionDeclaration Option(std::string name, OptionType type, OptionValue default_value,
                                std::string doc) {
  OptionDeclaration o;
  o.name = std::move(name);
  o.type = type;
  o.default_value = std::move(default_value);
  o.doc = std::move(doc);
  return o;
}

inline PluginDeclaration Plugin(std::string id, std::vector<std::string> reads,
                                std::vector<std::string> publishes) {
  PluginDeclaration d;
  d.id = std::move(id);
  d.version = "1.0.0";
  d.summary = "test plugin " + d.id;
  d.reads = std::move(reads);
  for (std::string& table : publishes) {
    TableSchema schema;
    schema.name = std::move(table);
    schema.columns.push_back({"rank", ColumnType::kI64, "", ""});
    d.publishes.push_back(std::move(schema));
  }
  return d;
}

// kernel-stats -> kernel_stats; stream-budget -> stream_budget -> stragglers;
// long-kernels reads only core tables; cyc-a and cyc-b need each other.
inline std::vector<PluginDeclaration> TestCatalog() {
  std::vector<PluginDeclaration> c;
  c.push_back(Plugin("kernel-stats", {"events"}, {"kernel_stats"}));
  c.back().options.push_back(Option("top_k", OptionType::kInt, int64_t{20}, "kernels listed"));
  c.back().options.back().min = 1;

  c.push_back(Plugin("stream-budget", {"events", "tracks"}, {"stream_budget"}));
  c.back().options.push_back(Option("tolerance_pct", OptionType::kDouble, 0.5,
                                    "allowed gap between the parts and the span"));
  c.back().options.back().min = 0;
  c.back().options.back().max = 100;

  c.push_back(Plugin("stragglers", {"stream_budget"}, {}));
  c.back().kind = PluginKind::kDetector;
  c.back().options.push_back(
      Option("min_ranks", OptionType::kInt, int64_t{2}, "ranks needed to compare"));
  c.back().options.back().min = 2;
  c.back().options.push_back(
      Option("metric", OptionType::kString, std::string("wait"), "what is compared"));
  c.back().options.back().choices = {"wait", "arrival"};

  c.push_back(Plugin("long-kernels", {"events"}, {}));
  c.back().kind = PluginKind::kDetector;
  c.back().options.push_back(
      Option("threshold_us", OptionType::kInt, int64_t{1000}, "report kernels at least this long"));
  c.back().options.push_back(
      Option("include_memcpy", OptionType::kBool, false, "count memcpy as kernels"));
  c.back().options.push_back(
      Option("label", OptionType::kString, std::string("long \"kernel\""), "title prefix"));

  c.push_back(Plugin("cyc-a", {"table_b"}, {"table_a"}));
  c.push_back(Plugin("cyc-b", {"table_a"}, {"table_b"}));
  return c;
}

// Writes `yaml` to a fresh temp file and loads it with the test catalog.
inline std::string WritePipeline(const std::string& yaml) {
  static int counter = 0;
  return WriteTempFile("pipeline_" + std::to_string(++counter) + ".yaml", yaml);
}

using Env = std::map<std::string, std::string>;

inline LoadPipelineOptions Options(std::vector<std::string> sets = {}, Env env = {}) {
  LoadPipelineOptions o;
  o.set_overrides = std::move(sets);
  o.getenv = [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  return o;
}

}  // namespace th::testing
