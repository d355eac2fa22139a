// Test helpers for the steps and step-breakdown plugins: load a built plugin
// library, fill its options with the declared defaults, write a trace from
// JSON text and run plugins on it in pipeline order.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/test_files.h"

namespace th::testing {

// The plugin library `file` (e.g. "th_steps.so") of this build; loaded once.
inline const LoadedPlugin& BuiltPlugin(const std::string& file) {
  static std::map<std::string, std::shared_ptr<const LoadedPlugin>> loaded;
  auto& p = loaded[file];
  if (!p) {
    auto l = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/" + file);
    if (!l.ok()) throw std::runtime_error(l.status().message());
    p = *l;
  }
  return *p;
}

// Every declared option at its default, then `set` on top.
inline std::map<std::string, OptionValue> OptionsOf(const LoadedPlugin& p,
                                                    const std::map<std::string, OptionValue>& set) {
  std::map<std::string, OptionValue> out;
  for (const OptionDeclaration& o : p.declaration.options) out[o.name] = o.default_value;
  for (const auto& [k, v] : set) out[k] = v;
  return out;
}

// Writes `json` to a temporary file named `name` and loads it.
inline TraceSet LoadJson(const std::string& name, const std::string& json) {
  auto set = LoadTraceSet({WriteTempFile(name, json)}, LoadOptions{});
  if (!set.ok()) throw std::runtime_error(set.status().message());
  return std::move(*set);
}

using Options = std::map<std::string, OptionValue>;

// Runs steps, then (when `breakdown`) step-breakdown, into one result set.
inline PluginResults RunSteps(const TraceSet& set, const Options& steps_options,
                              bool breakdown = false, const Options& breakdown_options = {}) {
  PluginResults r;
  const LoadedPlugin& steps = BuiltPlugin("th_steps.so");
  Status s = RunPlugin(steps, set, OptionsOf(steps, steps_options), &r);
  if (!s.ok()) throw std::runtime_error(s.message());
  if (breakdown) {
    const LoadedPlugin& sb = BuiltPlugin("th_step_breakdown.so");
    s = RunPlugin(sb, set, OptionsOf(sb, breakdown_options), &r);
    if (!s.ok()) throw std::runtime_error(s.message());
  }
  return r;
}

template <typename T>
decltype(auto) Column(const DerivedTable& t, const char* column) {
  return th::testing::Col<T>(t, column);
}

}  // namespace th::testing
