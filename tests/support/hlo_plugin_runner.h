// Runs a built-in HLO plugin on a capture holding one module written by the
// test (XSpace with the module embedded, no kernels).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "hlo.pb.h"

namespace th::testing {

struct PluginRun {
  PluginResults results;
  std::map<std::string, double> metrics;
};

// `library` is the plugin's file name in the built-in plugin directory.
PluginRun RunHloPlugin(const std::string& plugin_dir, const std::string& library,
                       const tracehound::hlo::HloModuleProto& module,
                       const std::map<std::string, OptionValue>& options = {});

}  // namespace th::testing
