// Prints everything the critical-path plugin reports on a trace set (its
// tables, checks, findings, in the canonical JSON of `tracehound
// test-plugin`), after the collectives plugin as in a pipeline, so that two
// builds of the plugin can be compared byte for byte
// (benchmarks/check_critical_path_tables.sh).
//
//   critical_path_tables --plugin PATH.so [--collectives PATH.so]
//                        [--what-if true|false] [--annotation TEXT] TRACE...
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "core/report/plugin_results_json.h"

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "critical_path_tables: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string plugin, collectives = std::string(TRACEHOUND_PLUGIN_DIR) + "/th_collectives.so";
  std::map<std::string, th::OptionValue> options;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--plugin" || a == "--collectives" || a == "--what-if" || a == "--annotation") &&
        i + 1 < argc) {
      const std::string v = argv[++i];
      if (a == "--plugin") plugin = v;
      if (a == "--collectives") collectives = v;
      if (a == "--what-if") options["what_if"] = v == "true";
      if (a == "--annotation") options["annotation"] = v;
    } else {
      inputs.push_back(a);
    }
  }
  if (plugin.empty() || inputs.empty())
    return Fail(
        "usage: critical_path_tables --plugin PATH.so [--collectives PATH.so] "
        "[--what-if true|false] [--annotation TEXT] TRACE...");
  auto set = th::LoadTraceSet(inputs, {});
  if (!set.ok()) return Fail(set.status().message());
  auto c = th::LoadPluginLibrary(collectives);
  if (!c.ok()) return Fail(c.status().message());
  auto p = th::LoadPluginLibrary(plugin);
  if (!p.ok()) return Fail(p.status().message());
  th::PluginResults base;
  th::Status s = th::RunPlugin(**c, *set, {}, &base);
  if (!s.ok()) return Fail("collectives: " + s.message());
  th::PluginResults r;
  r.tables = base.tables;  // what critical-path reads; only its own results are printed
  s = th::RunPlugin(**p, *set, options, &r);
  if (!s.ok()) return Fail("critical-path: " + s.message());
  for (const auto& [name, table] : base.tables) r.tables.erase(name);
  th::WritePluginResultsJson(r, std::cout);
  return std::cout.good() ? 0 : 1;
}
