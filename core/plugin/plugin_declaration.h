// PluginDeclaration: what a plugin says about itself, independent of how it
// was loaded. The pipeline schema, `tracehound plugins describe ID`, option
// validation and dependency ordering are all generated from this one record.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/graph/table_catalog.h"

namespace th {

enum class PluginKind : uint8_t { kAnalyzer, kDetector };

enum class OptionType : uint8_t { kBool, kInt, kDouble, kString };

// A value of an option: the type of its declaration.
using OptionValue = std::variant<bool, int64_t, double, std::string>;

struct OptionDeclaration {
  std::string name;  // snake_case, e.g. "min_ranks"
  OptionType type = OptionType::kString;
  OptionValue default_value;
  std::string doc;
  std::optional<double> min, max;    // numeric bounds, inclusive
  std::vector<std::string> choices;  // allowed strings (empty = any)
};

struct PluginDeclaration {
  std::string id;  // kebab-case, stable: "kernel-stats"
  std::string version;
  PluginKind kind = PluginKind::kAnalyzer;
  std::string summary;
  std::vector<OptionDeclaration> options;
  std::vector<std::string> reads;      // tables read: core tables or other plugins' publishes
  std::vector<TableSchema> publishes;  // tables this plugin publishes, with their schemas
  std::string library;                 // where it was loaded from ("" for a test double)
  // Runs over every input group (API 2.1, TH_PLUGIN_INPUT_GROUPS): the
  // pipeline's baseline traces beside its inputs.
  bool input_groups = false;

  // The schema of the table it publishes under `name`, or nullptr.
  const TableSchema* Published(std::string_view name) const {
    for (const TableSchema& t : publishes)
      if (t.name == name) return &t;
    return nullptr;
  }
  bool Reads(std::string_view name) const {
    for (const std::string& r : reads)
      if (r == name) return true;
    return false;
  }
};

}  // namespace th
