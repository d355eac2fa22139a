#include "core/pipeline/pipeline_schema.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/core/pipeline/pipeline_test_catalog.h"

namespace th {
namespace {

using th::testing::TestCatalog;

TEST(PipelineSchema, DescribesEveryPluginOptionWithTypeAndDefault) {
  std::string schema = PipelineJsonSchema(TestCatalog());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(schema).get(doc), simdjson::SUCCESS) << schema;

  EXPECT_EQ(std::string_view(doc["$schema"]), "https://json-schema.org/draft/2020-12/schema");
  EXPECT_FALSE(bool(doc["additionalProperties"]));
  simdjson::dom::element props = doc["properties"];
  for (const char* key : {"version", "include", "inputs", "execution", "plugin_paths", "plugins",
                          "outputs", "fail_on"})
    EXPECT_EQ(props[key].error(), simdjson::SUCCESS) << key;
  EXPECT_EQ(int64_t(props["version"]["const"]), 1);
  EXPECT_EQ(std::string_view(props["execution"]["properties"]["backend"]["default"]), "auto");

  simdjson::dom::object plugins = props["plugins"]["properties"];
  // Another id is a Python plugin: a map with its `python:` class.
  simdjson::dom::element python = props["plugins"]["additionalProperties"];
  EXPECT_EQ(std::string_view(python["required"].at(0)), "python");
  EXPECT_EQ(std::string_view(python["properties"]["python"]["type"]), "string");
  for (const PluginDeclaration& d : TestCatalog()) {
    simdjson::dom::element plugin;
    ASSERT_EQ(plugins[d.id].get(plugin), simdjson::SUCCESS) << d.id;
    EXPECT_FALSE(bool(plugin["additionalProperties"])) << d.id;
    simdjson::dom::element options = plugin["properties"];
    EXPECT_TRUE(bool(options["enabled"]["default"]));
    EXPECT_EQ(options["severity"].error(), simdjson::SUCCESS);
    for (const OptionDeclaration& o : d.options) {
      simdjson::dom::element opt;
      ASSERT_EQ(options[o.name].get(opt), simdjson::SUCCESS) << d.id << "." << o.name;
      EXPECT_EQ(std::string_view(opt["description"]), o.doc);
    }
  }

  simdjson::dom::element min_ranks = plugins["stragglers"]["properties"]["min_ranks"];
  EXPECT_EQ(std::string_view(min_ranks["type"]), "integer");
  EXPECT_EQ(int64_t(min_ranks["default"]), 2);
  EXPECT_EQ(int64_t(min_ranks["minimum"]), 2);
  simdjson::dom::element metric = plugins["stragglers"]["properties"]["metric"];
  EXPECT_EQ(std::string_view(metric["type"]), "string");
  EXPECT_EQ(std::string_view(metric["default"]), "wait");
  EXPECT_EQ(simdjson::dom::array(metric["enum"]).size(), 2u);
  simdjson::dom::element threshold = plugins["long-kernels"]["properties"]["threshold_us"];
  EXPECT_EQ(std::string_view(threshold["type"]), "integer");
  EXPECT_EQ(int64_t(threshold["default"]), 1000);
  EXPECT_EQ(std::string_view(plugins["long-kernels"]["properties"]["label"]["default"]),
            "long \"kernel\"");  // escaped and read back
  EXPECT_FALSE(bool(plugins["long-kernels"]["properties"]["include_memcpy"]["default"]));
  simdjson::dom::element tolerance = plugins["stream-budget"]["properties"]["tolerance_pct"];
  EXPECT_EQ(std::string_view(tolerance["type"]), "number");
  EXPECT_EQ(double(tolerance["default"]), 0.5);
  EXPECT_EQ(int64_t(tolerance["maximum"]), 100);
}

TEST(PipelineSchema, IsDeterministicAndSortedById) {
  std::vector<PluginDeclaration> reversed = TestCatalog();
  std::reverse(reversed.begin(), reversed.end());
  std::string schema = PipelineJsonSchema(TestCatalog());
  EXPECT_EQ(PipelineJsonSchema(reversed), schema);
  EXPECT_LT(schema.find("\"kernel-stats\""), schema.find("\"stragglers\""));
  // An empty catalog is still a valid schema.
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(PipelineJsonSchema({})).get(doc), simdjson::SUCCESS);
}

}  // namespace
}  // namespace th
