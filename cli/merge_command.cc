#include "cli/merge_command.h"

#include <iostream>
#include <memory>

#include "core/graph/text_escape.h"
#include "core/scan/database_merge.h"

namespace th::cli {

namespace {

constexpr int kExitBadInput = 2;

int Merge(const std::string& out_url, const std::vector<std::string>& inputs) {
  auto fail = [](const std::string& message) {
    std::cerr << "tracehound merge: error: " << PrintableBytes(message) << "\n";
    return kExitBadInput;
  };
  auto out = scan::OpenDatabase(out_url);
  if (!out.ok()) return fail(out.status().message());
  size_t copied = 0, present = 0;
  for (const std::string& url : inputs) {
    auto in = scan::OpenExistingDatabase(url);
    if (!in.ok()) return fail(in.status().message());
    auto stats = scan::MergeResults(**in, **out);
    if (!stats.ok()) return fail(stats.status().message());
    std::cout << (*in)->name() << ": " << stats->runs_in << " runs, " << stats->runs_copied
              << " copied, " << stats->runs_present << " already in " << (*out)->name();
    if (stats->runs_replaced > 0)
      std::cout << " (" << stats->runs_replaced << " replaced by the copy at a smaller location)";
    if (stats->locations_added > 0)
      std::cout << ", " << stats->locations_added << " locations added";
    if (stats->diffs_copied > 0) std::cout << ", " << stats->diffs_copied << " diffs copied";
    std::cout << "\n";
    copied += stats->runs_copied;
    present += stats->runs_present;
  }
  std::cout << "merged " << inputs.size() << " database" << (inputs.size() == 1 ? "" : "s")
            << " into " << (*out)->name() << ": " << copied << " runs copied, " << present
            << " already present\n";
  return 0;
}

}  // namespace

void AddMergeCommand(CLI::App& app, int* exit_code) {
  auto out = std::make_shared<std::string>();
  auto inputs = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Join results databases (the shards of `scan --shard`, or several machines' databases) "
      "into OUT: every run OUT lacks is copied with its rows, one transaction per run; "
      "merging again copies nothing");
  cmd->add_option("out", *out, "the merged database: sqlite:PATH, PATH.db or postgresql://...")
      ->required();
  cmd->add_option("inputs", *inputs, "databases to merge into it (must exist)")->required();
  cmd->callback([out, inputs, exit_code] { *exit_code = Merge(*out, *inputs); });
}

}  // namespace th::cli
