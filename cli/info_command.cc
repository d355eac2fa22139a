#include "cli/info_command.h"

#include <tbb/global_control.h>
#include <tracehound/kernels/dispatch.h>

#include <iostream>
#include <memory>
#include <sstream>

#include "core/graph/text_escape.h"
#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "core/report/info_report.h"
#include "core/report/output_file.h"
#include "core/report/report_panels.h"

namespace th::cli {

namespace {
struct InfoOptions {
  std::vector<std::string> inputs;
  bool json = false;
  std::string output;
  int threads = 0;
  size_t chunk_kib = 1024;
  bool keep_truncated = false;
  bool backends = false;
};
// The top kernels come from the kernel-stats plugin, like any analysis; a
// missing plugin leaves them out with a note instead of failing `info`.
InfoExtras TopKernels(const TraceSet& set) {
  InfoExtras extras;
  PluginRegistry registry;
  Status loaded = registry.LoadPlugin(PluginSearchPath({}), "kernel-stats");
  const LoadedPlugin* plugin = registry.Find("kernel-stats");
  if (!plugin) {
    extras.top_kernels_note = "kernel-stats plugin not found on the plugin path" +
                              (loaded.ok() ? std::string() : " (" + loaded.message() + ")");
    return extras;
  }
  PluginResults results;
  Status ran = RunPlugin(*plugin, set, {{"include_memory", OptionValue(false)}}, &results);
  const DerivedTable* table = ran.ok() ? TableForPanel(results, "kernel-stats") : nullptr;
  if (!table) {
    extras.top_kernels_note = ran.ok() ? "kernel-stats published no table" : ran.message();
    return extras;
  }
  const DerivedTable& t = *table;
  const TextColumn& names = std::get<TextColumn>(t.Find("name")->values);
  const auto& count = std::get<std::vector<int64_t>>(t.Find("count")->values);
  const auto& total = std::get<std::vector<int64_t>>(t.Find("total")->values);
  for (size_t r = 0; r < t.rows && r < 10; ++r)
    extras.top_kernels.push_back({std::string(names[r]), count[r], total[r]});
  return extras;
}

}  // namespace

void AddInfoCommand(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info",
      "Summarise traces: format, ranks, devices, streams, events, steps, top kernels, trust");
  cmd->add_option("inputs", opt->inputs,
                  "trace files (.json, .json.gz), directories, globs, or .tar.gz/.zip of ranks");
  cmd->add_flag("--backends", opt->backends,
                "list the compute backends built into this tracehound and the devices found");
  cmd->add_flag("--json", opt->json, "print JSON (stable keys) instead of text");
  cmd->add_option("-o,--output", opt->output, "write the report to this file (atomically)");
  cmd->add_option("--threads", opt->threads, "worker threads (0 = all cores)");
  cmd->add_flag("--keep-truncated", opt->keep_truncated,
                "read the complete events of a truncated trace (listed as an error in the trust "
                "table) instead of failing");
  cmd->add_option("--chunk-kib", opt->chunk_kib, "JSON text per parallel chunk, KiB")
      ->check(CLI::Range(4, 1 << 20));
  cmd->callback([opt, exit_code] {
    if (opt->backends) {
      for (const kernels::BackendInfo& b : kernels::DescribeBackends()) {
        std::cout << kernels::BackendName(b.backend) << ": "
                  << (!b.built   ? "not built"
                      : b.usable ? "usable"
                                 : "built, not usable")
                  << " (" << b.detail << ")\n";
      }
      std::cout << "auto uses a GPU from " << kernels::GpuMinRows()
                << " rows (TRACEHOUND_GPU_MIN_ROWS)\n";
      *exit_code = 0;
      if (opt->inputs.empty()) return;
    }
    if (opt->inputs.empty()) {
      std::cerr << "tracehound: error: info needs at least one input (or --backends)\n";
      *exit_code = 2;
      return;
    }
    std::unique_ptr<tbb::global_control> limit;
    if (opt->threads > 0) {
      limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                    static_cast<size_t>(opt->threads));
    }
    LoadOptions load;
    load.import.chunk_bytes = opt->chunk_kib << 10;
    load.import.keep_truncated = opt->keep_truncated;
    auto set = LoadTraceSet(opt->inputs, load);
    if (!set.ok()) {
      std::cerr << "tracehound: error: " << PrintableBytes(set.status().message()) << "\n";
      *exit_code = 2;
      return;
    }
    InfoExtras extras = TopKernels(*set);
    std::ostringstream report;
    if (opt->json)
      WriteInfoJson(*set, extras, report);
    else
      WriteInfoText(*set, extras, report);
    Status written = WriteOutput(opt->output, report.str());
    if (!written.ok()) {
      std::cerr << "tracehound: error: " << PrintableBytes(written.message()) << "\n";
      *exit_code = 2;
      return;
    }
    *exit_code = 0;
  });
}

}  // namespace th::cli
