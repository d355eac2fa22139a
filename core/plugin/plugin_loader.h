// Loading plugin libraries with Boost.DLL behind the versioned C ABI.
//
// A library is accepted when it loads, exports TH_PLUGIN_ENTRY_SYMBOL, and its
// descriptor has the host's API major and a minor no newer than the host's;
// every refusal names the file and the reason. A LoadedPlugin keeps its library
// mapped for as long as anything holds it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/plugin/plugin_declaration.h"

struct th_plugin_descriptor;

namespace th {

struct LoadedPlugin {
  std::shared_ptr<void> library;  // the boost::dll::shared_library, type-erased
  const th_plugin_descriptor* descriptor = nullptr;
  PluginDeclaration declaration;
};

StatusOr<std::shared_ptr<const LoadedPlugin>> LoadPluginLibrary(const std::string& path);

// A descriptor obtained otherwise than from a library's entry (a Python
// plugin's, built by tracehound.plugin), checked as LoadPluginLibrary checks
// one; `owner` keeps it and what it points to alive, `path` names it.
StatusOr<std::shared_ptr<const LoadedPlugin>> AdoptPluginDescriptor(
    const th_plugin_descriptor* descriptor, std::shared_ptr<void> owner, const std::string& path);

// The plugins found on a search path, by id.
class PluginRegistry {
 public:
  // Loads every shared library (*.so) in each directory, in order. A library
  // that fails to load, or a second library with an id already seen, is an
  // error naming both files.
  Status LoadDirectories(const std::vector<std::string>& directories);
  // Loads only the library that provides plugin `id` (a command that runs one
  // plugin need not map the others): in each directory, in order, the library
  // named as built-in plugins are (th_<id with '_' for '-'>.so) first, then
  // the others until one declares `id`; a library that declares another id,
  // or fails to load, is let go. NotFound, with the first load failure if
  // any, when no library declares `id`.
  Status LoadPlugin(const std::vector<std::string>& directories, const std::string& id);
  Status Add(std::shared_ptr<const LoadedPlugin> plugin);

  const LoadedPlugin* Find(const std::string& id) const;
  std::vector<PluginDeclaration> Declarations() const;  // sorted by id
  size_t size() const { return plugins_.size(); }

 private:
  std::map<std::string, std::shared_ptr<const LoadedPlugin>> plugins_;
};

// Where plugins are looked for: `extra` (from a pipeline), then each entry of
// TRACEHOUND_PLUGIN_PATH, then next to the executable (`<exe>/../plugins` in a
// build tree, `<exe>/../lib/tracehound/plugins` when installed). Only existing
// directories are returned, without duplicates.
std::vector<std::string> PluginSearchPath(const std::vector<std::string>& extra);

}  // namespace th
