#include "modules/module_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>

namespace th::modules {

namespace fs = std::filesystem;

namespace {

struct LoadedModule {
  void* handle = nullptr;
  std::string error;  // why handle is null
};

fs::path ExecutableFolder() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

LoadedModule Load(const std::string& name, const std::string& purpose) {
  const std::string file = name + ".so";
  std::vector<std::string> folders = ModuleSearchPath();
  for (const std::string& folder : folders) {
    const fs::path path = fs::path(folder) / file;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) continue;
    dlerror();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) return {handle, ""};
    const char* why = dlerror();
    return {nullptr, "cannot load the " + name + " module (" + purpose + ") from " + path.string() +
                         ": " + (why ? why : "unknown dlopen error")};
  }
  std::string looked;
  for (const std::string& folder : folders) looked += (looked.empty() ? "" : ", ") + folder;
  return {nullptr, "cannot load the " + name + " module (" + purpose + "): no " + file + " in " +
                       (looked.empty() ? std::string("any module folder") : looked) +
                       " (set TRACEHOUND_MODULE_PATH to the folder that holds it)"};
}

}  // namespace

std::vector<std::string> ModuleSearchPath() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("TRACEHOUND_MODULE_PATH")) {
    std::string s = env;
    for (size_t start = 0; start <= s.size();) {
      size_t colon = s.find(':', start);
      if (colon == std::string::npos) colon = s.size();
      if (colon > start) out.push_back(s.substr(start, colon - start));
      start = colon + 1;
    }
  }
  const fs::path exe_folder = ExecutableFolder();
  if (!exe_folder.empty())
    out.push_back((exe_folder.parent_path() / "lib" / "tracehound" / "modules").string());
  out.push_back(TRACEHOUND_BUILD_MODULE_DIR);
  return out;
}

void* LoadModuleEntry(const std::string& name, const char* entry, const std::string& purpose,
                      std::string* error) {
  static std::mutex mutex;
  static std::map<std::string, LoadedModule> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded.find(name);
  if (it == loaded.end()) it = loaded.emplace(name, Load(name, purpose)).first;
  if (!it->second.handle) {
    if (error) *error = it->second.error;
    return nullptr;
  }
  void* symbol = dlsym(it->second.handle, entry);
  if (!symbol && error)
    *error = "the " + name + " module (" + purpose + ") has no symbol " + entry +
             ": it does not belong to this tracehound";
  return symbol;
}

}  // namespace th::modules
