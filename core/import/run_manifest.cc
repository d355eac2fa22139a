#include "core/import/run_manifest.h"

#include <simdjson.h>

#include <algorithm>
#include <filesystem>

namespace th {

namespace {

constexpr std::string_view kTraceSuffix = ".trace.json";
constexpr size_t kMaxManifestBytes = size_t{1} << 20;

Status Bad(const std::string& path, const std::string& what) {
  return InvalidInput(path + ": not a tracehound run manifest: " + what);
}

// Reads `field` of `obj` into `out` when present; a wrong type is an error.
template <typename T>
Status Field(simdjson::dom::object obj, std::string_view field, const std::string& path, T* out) {
  simdjson::dom::element e;
  if (obj[field].get(e)) return Ok();
  if constexpr (std::is_same_v<T, std::string>) {
    std::string_view s;
    if (e.get_string().get(s)) return Bad(path, std::string(field) + " is not a string");
    *out = std::string(s);
  } else {
    int64_t v = 0;
    if (e.get_int64().get(v)) return Bad(path, std::string(field) + " is not an integer");
    *out = v;
  }
  return Ok();
}

}  // namespace

bool IsManifestFile(std::string_view path) { return path.ends_with(kManifestSuffix); }

std::string ManifestPathFor(std::string_view trace_path) {
  std::string_view stem = trace_path;
  if (stem.ends_with(".gz")) stem.remove_suffix(3);
  if (!stem.ends_with(kTraceSuffix)) return "";
  stem.remove_suffix(kTraceSuffix.size());
  return std::string(stem) + std::string(kManifestSuffix);
}

StatusOr<RunManifest> ReadRunManifest(const std::string& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return IoError(path + ": cannot read: " + ec.message());
  if (size > kMaxManifestBytes) return Bad(path, "larger than 1 MiB");
  simdjson::padded_string text;
  if (simdjson::padded_string::load(path).get(text)) return IoError(path + ": cannot read");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto err = parser.parse(text).get(doc)) {
    // simdjson does not say where; the manifest is small, so say its size.
    return Bad(path, std::string(simdjson::error_message(err)) + " (in " +
                         std::to_string(text.size()) + " bytes of text)");
  }
  simdjson::dom::object obj;
  if (doc.get_object().get(obj)) return Bad(path, "the text is not a JSON object");
  RunManifest m;
  m.path = path;
  std::optional<int64_t> version;
  TH_RETURN_IF_ERROR(Field(obj, "tracehound_manifest", path, &version));
  if (!version) return Bad(path, "no \"tracehound_manifest\" version");
  m.version = *version;
  TH_RETURN_IF_ERROR(Field(obj, "rank", path, &m.rank));
  TH_RETURN_IF_ERROR(Field(obj, "world_size", path, &m.world_size));
  TH_RETURN_IF_ERROR(Field(obj, "start_time_ns", path, &m.start_time_ns));
  TH_RETURN_IF_ERROR(Field(obj, "steps", path, &m.steps));
  TH_RETURN_IF_ERROR(Field(obj, "first_step", path, &m.first_step));
  TH_RETURN_IF_ERROR(Field(obj, "host", path, &m.host));
  TH_RETURN_IF_ERROR(Field(obj, "framework", path, &m.framework));
  TH_RETURN_IF_ERROR(Field(obj, "framework_version", path, &m.framework_version));
  TH_RETURN_IF_ERROR(Field(obj, "profiler", path, &m.profiler));
  TH_RETURN_IF_ERROR(Field(obj, "mode", path, &m.mode));
  simdjson::dom::element tags;
  if (!obj["tags"].get(tags)) {
    simdjson::dom::object t;
    if (tags.get_object().get(t)) return Bad(path, "tags is not an object");
    for (auto [key, value] : t) {
      std::string_view v;
      if (value.get_string().get(v))
        return Bad(path, "tag " + std::string(key) + " is not a string");
      m.tags.emplace_back(std::string(key), std::string(v));
    }
    std::sort(m.tags.begin(), m.tags.end());
  }
  return m;
}

StatusOr<std::optional<RunManifest>> ManifestForTrace(std::string_view trace_path) {
  std::string path = ManifestPathFor(trace_path);
  std::error_code ec;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec))
    return std::optional<RunManifest>();
  auto m = ReadRunManifest(path);
  if (!m.ok()) return m.status();
  return std::optional<RunManifest>(std::move(*m));
}

}  // namespace th
