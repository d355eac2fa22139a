#include "cli/serve_clock_offsets.h"

#include <cmath>
#include <memory>
#include <mutex>
#include <variant>

#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"

namespace th::cli {
namespace {

struct LoadedStragglers {
  std::mutex mu;
  bool loaded = false;
  Status status;
  PluginRegistry registry;
};

// The (rank, clock_offset) columns of the plugin's `stragglers` table.
StatusOr<std::vector<serve::RankClockOffset>> OffsetsOf(const PluginResults& results) {
  auto table = results.tables.find("stragglers");
  if (table == results.tables.end()) return NotFound("the stragglers plugin published no table");
  const std::vector<int64_t>* ranks = nullptr;
  const std::vector<double>* offsets = nullptr;
  for (const DerivedColumn& c : table->second.columns) {
    if (c.name == "rank") ranks = std::get_if<std::vector<int64_t>>(&c.values);
    if (c.name == "clock_offset") offsets = std::get_if<std::vector<double>>(&c.values);
  }
  if (!ranks || !offsets || ranks->size() != offsets->size())
    return InvalidInput("the stragglers table lacks rank or clock_offset");
  std::vector<serve::RankClockOffset> out;
  for (size_t k = 0; k < ranks->size(); ++k)
    out.push_back({(*ranks)[k], static_cast<int64_t>(std::llround((*offsets)[k]))});
  return out;
}

}  // namespace

serve::ClockOffsetSource StragglersClockOffsets() {
  auto state = std::make_shared<LoadedStragglers>();
  return [state](const TraceSet& set) -> StatusOr<std::vector<serve::RankClockOffset>> {
    std::lock_guard lock(state->mu);
    if (!state->loaded) {
      state->loaded = true;
      state->status = state->registry.LoadPlugin(PluginSearchPath({}), "stragglers");
    }
    if (!state->status.ok()) return state->status;
    const LoadedPlugin* plugin = state->registry.Find("stragglers");
    std::map<std::string, OptionValue> options;
    for (const OptionDeclaration& o : plugin->declaration.options)
      options[o.name] = o.default_value;
    PluginResults results;
    PluginRunContext context;
    context.echo_log = false;
    Status ran = RunPlugin(*plugin, set, options, &results, context);
    if (!ran.ok()) return ran;
    return OffsetsOf(results);
  };
}

}  // namespace th::cli
