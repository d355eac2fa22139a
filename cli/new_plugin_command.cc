#include "cli/new_plugin_command.h"

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "core/graph/text_escape.h"
#include "core/sdk_scaffold/in_tree_plugin.h"
#include "core/sdk_scaffold/plugin_scaffold.h"

namespace th::cli {
namespace {

struct NewPluginOptions {
  std::string id;
  std::string dir = ".";
  std::string in_tree;  // a tracehound source tree, for a built-in plugin
  std::string kind = "analyzer";
};

}  // namespace

void AddNewPluginCommand(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<NewPluginOptions>();
  CLI::App* cmd = app.add_subcommand(
      "new-plugin",
      "Write a buildable out-of-tree plugin skeleton (CMake project, analyzer or detector, its "
      "test on the SDK's test kit, README)");
  cmd->add_option("id", opt->id, "plugin id, kebab-case (e.g. long-kernels)")->required();
  cmd->add_option("--dir", opt->dir, "where to create the ID/ folder")->capture_default_str();
  cmd->add_option("--in-tree", opt->in_tree,
                  "a tracehound source tree: write a built-in plugin there (plugins/ID, "
                  "tests/plugins/ID, a row in plugins/README.md's index)");
  cmd->add_option("--kind", opt->kind,
                  "analyzer (a metric and a published table) or detector (findings)")
      ->check(CLI::IsMember({"analyzer", "detector"}))
      ->capture_default_str();
  cmd->callback([opt, exit_code] {
    if (!opt->in_tree.empty()) {
      auto written = WriteInTreePlugin(
          opt->id,
          opt->kind == "detector" ? InTreePluginKind::kDetector : InTreePluginKind::kAnalyzer,
          opt->in_tree);
      if (!written.ok()) {
        std::cerr << "tracehound: error: " << PrintableBytes(written.status().message()) << "\n";
        *exit_code = written.status().code() == StatusCode::kInvalidInput ? 2 : 1;
        return;
      }
      for (const std::string& path : *written) std::cout << path << "\n";
      std::cerr << "next: ninja -C <build> (CMake finds the new folders), then ctest -R "
                << PluginIdToSnakeCase(opt->id) << "\n";
      *exit_code = 0;
      return;
    }
    auto written = WritePluginScaffold(opt->id, opt->dir, *ParseScaffoldKind(opt->kind));
    if (!written.ok()) {
      std::cerr << "tracehound: error: " << PrintableBytes(written.status().message()) << "\n";
      *exit_code = written.status().code() == StatusCode::kInvalidInput ? 2 : 1;
      return;
    }
    for (const std::string& path : *written) std::cout << path << "\n";
    const std::string dir = (std::filesystem::path(opt->dir) / opt->id).string();
    std::cerr << "next: cmake -S " << dir << " -B " << dir
              << "/build -G Ninja -DCMAKE_PREFIX_PATH=<tracehound install prefix>"
              << " && cmake --build " << dir << "/build && ctest --test-dir " << dir << "/build\n";
    *exit_code = 0;
  });
}

}  // namespace th::cli
