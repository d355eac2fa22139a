// The plugins/ folder as a newcomer meets it: every folder is a plugin that
// is built, has its README.md, and has its row in plugins/README.md's index
// (id, kind) in sorted order.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/plugin/plugin_loader.h"

namespace th {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PluginFolders, EveryFolderIsBuiltDocumentedAndIndexed) {
  PluginRegistry registry;
  Status loaded = registry.LoadDirectories({BUILTIN_PLUGIN_DIR});
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  const std::string index = Read(fs::path(PLUGINS_SOURCE_DIR) / "README.md");
  // Index rows: | [`id`](id/README.md) | kind | what |
  std::vector<std::string> indexed;
  const std::regex row(
      R"(\n\| \[`([a-z0-9-]+)`\]\(([a-z0-9-]+)/README\.md\) \| (analyzer|detector) \|)");
  for (auto it = std::sregex_iterator(index.begin(), index.end(), row);
       it != std::sregex_iterator(); ++it) {
    const std::string id = (*it)[1], folder = (*it)[2], kind = (*it)[3];
    EXPECT_EQ(id, folder) << "index row of " << id << " links another folder";
    const LoadedPlugin* p = registry.Find(id);
    ASSERT_NE(p, nullptr) << "plugins/README.md lists " << id << ", which no library provides";
    EXPECT_EQ(kind, p->declaration.kind == PluginKind::kAnalyzer ? "analyzer" : "detector") << id;
    indexed.push_back(id);
  }
  EXPECT_TRUE(std::is_sorted(indexed.begin(), indexed.end())) << "index rows are sorted by id";
  std::set<std::string> folders;
  for (const auto& entry : fs::directory_iterator(PLUGINS_SOURCE_DIR)) {
    if (!entry.is_directory()) continue;
    const std::string folder = entry.path().filename().string();
    folders.insert(folder);
    EXPECT_TRUE(fs::is_regular_file(entry.path() / "README.md")) << folder << " has no README.md";
    const LoadedPlugin* plugin = registry.Find(folder);
    EXPECT_NE(plugin, nullptr) << "plugins/" << folder << " built no plugin with id " << folder;
    // The README's "**reads:** `a`, `b` · **publishes:**" line names what Declare() reads.
    const std::string readme = Read(entry.path() / "README.md");
    const size_t from = readme.find("**reads:**"), to = readme.find("**publishes:**", from);
    if (plugin == nullptr || from == std::string::npos || to == std::string::npos) {
      ADD_FAILURE() << folder << "/README.md has no '**reads:** ... **publishes:**' line";
      continue;
    }
    std::set<std::string> documented;
    const std::string line = readme.substr(from, to - from);
    const std::regex table("`([a-z_]+)`");
    for (auto it = std::sregex_iterator(line.begin(), line.end(), table);
         it != std::sregex_iterator(); ++it)
      documented.insert((*it)[1]);
    const std::set<std::string> declared(plugin->declaration.reads.begin(),
                                         plugin->declaration.reads.end());
    EXPECT_EQ(documented, declared) << folder << "/README.md's reads line and Declare() differ";
  }
  EXPECT_EQ(std::set<std::string>(indexed.begin(), indexed.end()), folders)
      << "plugins/README.md's index and the folders differ";
  EXPECT_EQ(registry.size(), folders.size()) << "a library in the plugin directory has no folder";
}

}  // namespace
}  // namespace th
