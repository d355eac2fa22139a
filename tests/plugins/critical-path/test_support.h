// Loading and running the critical-path plugin (after the collectives
// plugin, as in a pipeline) for its tests.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"

namespace th::testing {

inline const LoadedPlugin& LoadBuiltin(const std::string& library) {
  static std::map<std::string, std::shared_ptr<const LoadedPlugin>> kept;
  auto it = kept.find(library);
  if (it == kept.end()) {
    auto p = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/" + library);
    if (!p.ok()) throw std::runtime_error(p.status().message());
    it = kept.emplace(library, *p).first;
  }
  return *it->second;
}

// Runs collectives (when `with_collectives`), then critical-path.
inline PluginResults RunCriticalPath(const TraceSet& set,
                                     const std::map<std::string, OptionValue>& options,
                                     bool with_collectives = true) {
  PluginResults r;
  if (with_collectives) {
    Status c = RunPlugin(LoadBuiltin("th_collectives.so"), set, {}, &r);
    if (!c.ok()) throw std::runtime_error(c.message());
  }
  Status s = RunPlugin(LoadBuiltin("th_critical_path.so"), set, options, &r);
  if (!s.ok()) throw std::runtime_error(s.message());
  return r;
}

}  // namespace th::testing
