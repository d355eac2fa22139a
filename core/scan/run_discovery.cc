#include "core/scan/run_discovery.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "core/import/importer_registry.h"
#include "core/import/remote/object_url.h"
#include "core/import/remote/remote_inputs.h"
#include "core/import/trace_loader.h"

namespace th::scan {

namespace fs = std::filesystem;

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct RunKey {
  std::string location;
  bool archive = false;  // the location is an archive file
};

// The run a file belongs to.
RunKey KeyOf(const std::string& path) {
  fs::path p(path);
  std::string dir = p.parent_path().string();
  std::string base = p.filename().string();
  std::string prefix = dir.empty() ? "" : dir + "/";
  Detection detected;
  if (remote::IsRemoteInput(path)) {
    // Not opened here: a remote object's format is hinted by its name.
    detected.importer = Registry().FindByName(path);
    if (detected.importer) detected.kind = Detection::Kind::kFormat;
    if (Registry().NamedLikeArchive(path)) detected.kind = Detection::Kind::kArchive;
  } else {
    detected = Registry().Detect(path);
  }
  if (detected.kind == Detection::Kind::kArchive) return {path, true};
  if (detected.kind == Detection::Kind::kFormat && detected.importer->DirectoryIsOneCapture()) {
    std::vector<std::string_view> hints = detected.importer->name_hints();
    return {prefix + "*" + std::string(hints.empty() ? "" : hints.front())};
  }
  // Same marker as the loader's rank-from-name (core/import/trace_loader.cc).
  static const std::regex kRank(R"((rank|worker)[-_]?(\d+))", std::regex::icase);
  std::smatch m;
  if (std::regex_search(base, m, kRank))
    return {prefix + m.prefix().str() + Lower(m[1].str()) + "*"};
  return {path};
}

// The deepest folder holding every one of `folders` ("" when they share none).
fs::path CommonFolder(const std::vector<fs::path>& folders) {
  if (folders.empty()) return {};
  std::vector<fs::path> common(folders[0].begin(), folders[0].end());
  for (const fs::path& f : folders) {
    size_t k = 0;
    for (auto it = f.begin(); it != f.end() && k < common.size() && *it == common[k]; ++it) ++k;
    common.resize(k);
  }
  fs::path out;
  for (const fs::path& part : common) out /= part;
  return out;
}

// Location-based names: a run alone in its folder is named by the folder, an
// archive or a run sharing its folder by its location; the path is taken
// relative to the folder that holds every run (its own name when a run is
// named by that folder itself).
void NameRuns(std::vector<Run>& runs, const std::set<std::string>& archives) {
  std::vector<fs::path> folders;
  std::map<std::string, int> per_folder;
  for (const Run& r : runs) {
    folders.push_back(fs::path(r.location).parent_path());
    ++per_folder[folders.back().string()];
  }
  const fs::path root = CommonFolder(folders);
  for (size_t i = 0; i < runs.size(); ++i) {
    const bool by_folder =
        !archives.count(runs[i].location) && per_folder[folders[i].string()] == 1;
    fs::path path = by_folder && !folders[i].empty() ? folders[i] : fs::path(runs[i].location);
    std::string name = root.empty() ? path.string() : path.lexically_relative(root).string();
    if (name.empty() || name == ".") name = root.filename().string();
    if (name.empty() || name == "." || name == "..") name = runs[i].location;
    runs[i].name = name;
  }
}

}  // namespace

StatusOr<std::vector<Run>> DiscoverRuns(const std::vector<std::string>& inputs,
                                        TrustTable* skipped) {
  TrustTable local;
  auto files = ExpandInputs(inputs, skipped ? skipped : &local);
  if (!files.ok()) return files.status();
  std::map<std::string, Run> runs;
  std::set<std::string> seen, archives;
  for (const InputFile& f : *files) {
    const bool is_remote = remote::IsRemoteInput(f.path);
    std::string path = is_remote ? f.path : fs::path(f.path).lexically_normal().string();
    if (!seen.insert(path).second) continue;
    uint64_t bytes = 0;  // unreadable: the scan records the failure
    if (is_remote) {
      auto object = remote::LookUpRemoteObject(path);  // listed already: no request
      if (object.ok()) bytes = object->size;
    } else {
      std::error_code ec;
      bytes = fs::file_size(path, ec);
      if (ec) bytes = 0;
    }
    RunKey key = KeyOf(path);
    if (key.archive) archives.insert(key.location);
    Run& run = runs[key.location];
    run.location = key.location;
    run.files.push_back({path, bytes});
    run.bytes += bytes;
  }
  std::vector<Run> out;
  out.reserve(runs.size());
  for (auto& [location, run] : runs) {
    std::sort(run.files.begin(), run.files.end(),
              [](const RunFile& a, const RunFile& b) { return a.path < b.path; });
    out.push_back(std::move(run));
  }
  NameRuns(out, archives);
  return out;
}

}  // namespace th::scan
