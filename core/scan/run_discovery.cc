#include "core/scan/run_discovery.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "core/import/common/archive_reader.h"
#include "core/import/trace_loader.h"

namespace th::scan {

namespace fs = std::filesystem;

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The run a file belongs to: (location, name).
std::pair<std::string, std::string> RunKey(const std::string& path) {
  fs::path p(path);
  std::string dir = p.parent_path().string();
  std::string base = p.filename().string();
  std::string prefix = dir.empty() ? "" : dir + "/";
  std::string dir_name = p.parent_path().filename().string();
  if (dir_name.empty()) dir_name = ".";
  if (HasArchiveName(base)) return {path, base};
  if (base.ends_with(".xplane.pb")) return {prefix + "*.xplane.pb", dir_name};
  // Same marker as the loader's rank-from-name (core/import/trace_loader.cc).
  static const std::regex kRank(R"((rank|worker)[-_]?(\d+))", std::regex::icase);
  std::smatch m;
  if (std::regex_search(base, m, kRank)) {
    std::string stem = m.prefix().str() + Lower(m[1].str());
    return {prefix + stem + "*", dir_name + "/" + stem + "*"};
  }
  return {path, base};
}

}  // namespace

StatusOr<std::vector<Run>> DiscoverRuns(const std::vector<std::string>& inputs,
                                        TrustTable* skipped) {
  TrustTable local;
  auto files = ExpandInputs(inputs, skipped ? skipped : &local);
  if (!files.ok()) return files.status();
  std::map<std::string, Run> runs;
  std::set<std::string> seen;
  for (const InputFile& f : *files) {
    std::string path = fs::path(f.path).lexically_normal().string();
    if (!seen.insert(path).second) continue;
    std::error_code ec;
    uint64_t bytes = fs::file_size(path, ec);
    if (ec) bytes = 0;  // unreadable: the scan records the failure
    auto [location, name] = RunKey(path);
    Run& run = runs[location];
    run.location = location;
    run.name = name;
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
  return out;
}

}  // namespace th::scan
