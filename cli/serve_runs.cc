#include "cli/serve_runs.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <set>

#include "core/import/run_manifest.h"
#include "core/scan/run_discovery.h"

namespace th::cli {
namespace {

namespace fs = std::filesystem;

// The newest modification time of the run's files, ns since the epoch.
std::optional<int64_t> NewestMtime(const scan::Run& run) {
  std::optional<int64_t> newest;
  for (const scan::RunFile& f : run.files) {
    std::error_code ec;
    const auto t = fs::last_write_time(f.path, ec);
    if (ec) continue;
    const auto since = std::chrono::file_clock::to_sys(t).time_since_epoch();
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(since).count();
    newest = newest ? std::max(*newest, ns) : ns;
  }
  return newest;
}

bool IsArchive(const std::string& path) {
  for (const char* ext : {".tar", ".tar.gz", ".tgz", ".zip"})
    if (path.ends_with(ext)) return true;
  return false;
}

// The facts of tracehound.capture manifests beside the run's traces: the
// earliest start time (captured), the hosts, and the tags as "key=value".
// A manifest that does not read is left out here; importing the run names it.
std::vector<std::string> ApplyManifests(const scan::Run& run, serve::RunSummary* s) {
  std::optional<int64_t> start;
  std::set<std::string> hosts, tags;
  for (const scan::RunFile& f : run.files) {
    auto m = ManifestForTrace(f.path);
    if (!m.ok() || !*m) continue;
    if ((*m)->start_time_ns && (!start || *(*m)->start_time_ns < *start))
      start = (*m)->start_time_ns;
    if (!(*m)->host.empty()) hosts.insert((*m)->host);
    for (const auto& [key, value] : (*m)->tags) tags.insert(key + "=" + value);
  }
  if (start) {
    s->time_ns = start;
    s->time_kind = "captured";
  }
  for (const std::string& h : hosts) s->host += (s->host.empty() ? "" : ",") + h;
  return {tags.begin(), tags.end()};
}

}  // namespace

StatusOr<std::vector<ServeRunSpec>> DiscoverServeRuns(const std::vector<std::string>& inputs) {
  std::vector<ServeRunSpec> out;
  std::vector<std::string> locations;
  std::vector<std::vector<std::string>> manifest_tags;
  for (const std::string& input : inputs) {
    auto runs = scan::DiscoverRuns({input});
    if (!runs.ok()) return runs.status();
    if (runs->empty()) return NotFound(input + ": holds no trace");
    for (const scan::Run& run : *runs) {
      ServeRunSpec spec;
      if (runs->size() == 1) {
        spec.input = input;
        spec.name = fs::path(input).filename().string();
        if (spec.name.empty()) spec.name = fs::path(input).parent_path().filename().string();
        if (spec.name.empty()) spec.name = input;
      } else {
        spec.input = run.files.size() == 1 ? run.files.front().path : run.location;
        spec.name = run.name;
      }
      serve::RunSummary& s = spec.summary;
      s.name = spec.name;
      s.location = run.location;
      s.time_ns = NewestMtime(run);
      if (s.time_ns) s.time_kind = "modified";
      manifest_tags.push_back(ApplyManifests(run, &s));
      if (!(run.files.size() == 1 && IsArchive(run.files.front().path)))
        s.ranks = static_cast<int64_t>(run.files.size());
      s.source = "files";
      locations.push_back(run.location);
      out.push_back(std::move(spec));
    }
  }
  auto tags = serve::PathTags(locations);
  for (size_t k = 0; k < out.size(); ++k) {
    out[k].summary.tags = std::move(tags[k]);
    for (std::string& t : manifest_tags[k]) out[k].summary.tags.push_back(std::move(t));
  }
  return out;
}

std::vector<ServeRunSpec> DatabaseServeRuns(std::vector<serve::RunSummary> summaries) {
  std::vector<ServeRunSpec> out;
  for (serve::RunSummary& s : summaries) {
    ServeRunSpec spec;
    spec.input = s.location;
    spec.name = s.name;
    spec.summary = std::move(s);
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace th::cli
