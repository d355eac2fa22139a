#include "core/plugin/plugin_loader.h"

#include <tracehound/plugin_api.h>

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#include <filesystem>

#include "core/graph/core_tables.h"

namespace th {

namespace fs = std::filesystem;

namespace {

std::string Str(const char* s) { return s ? s : ""; }

// Lower-case words of [a-z0-9] joined by single `separator`s, the first word
// starting with a letter: kebab-case ('-') or snake_case ('_').
bool IsCaseJoined(const std::string& name, char separator) {
  if (name.empty() || name[0] < 'a' || name[0] > 'z' || name.back() == separator) return false;
  for (size_t i = 1; i < name.size(); ++i) {
    const char c = name[i];
    if (c == separator) {
      if (name[i - 1] == separator) return false;
    } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return true;
}

StatusOr<OptionValue> DefaultOf(const th_option_decl& o, const std::string& where) {
  switch (o.type) {
    case TH_TYPE_BOOL:
      return OptionValue(o.default_value.i64 != 0);
    case TH_TYPE_I64:
      return OptionValue(o.default_value.i64);
    case TH_TYPE_F64:
      return OptionValue(o.default_value.f64);
    case TH_TYPE_STRING:
      return OptionValue(Str(o.default_value.str));
    default:
      return InvalidInput(where + ": option '" + Str(o.name) + "' has an unknown type " +
                          std::to_string(o.type));
  }
}

// A published table's schema, checked: a snake_case name that is no core
// table's, columns of distinct names and of the types a plugin can publish.
StatusOr<TableSchema> SchemaOf(const th_table_schema& t, const std::string& where) {
  TableSchema out;
  out.name = Str(t.name);
  out.doc = Str(t.doc);
  out.view = Str(t.view);
  if (t.struct_size < sizeof(th_table_schema))
    return InvalidInput(where + " declares table '" + out.name + "' with a short schema struct");
  if (!IsCaseJoined(out.name, '_'))
    return InvalidInput(where + " declares a table named '" + out.name + "', not snake_case");
  if (CoreTableSchema(out.name))
    return InvalidInput(where + " declares table '" + out.name +
                        "', the name of a core table of the catalog");
  if (t.column_count == 0)
    return InvalidInput(where + " declares table '" + out.name + "' without columns");
  for (uint32_t c = 0; c < t.column_count; ++c) {
    const th_column_schema& col = t.columns[c];
    ColumnSchema cs;
    cs.name = Str(col.name);
    cs.unit = Str(col.unit);
    cs.doc = Str(col.doc);
    if (col.type != TH_TYPE_I64 && col.type != TH_TYPE_F64 && col.type != TH_TYPE_STRING)
      return InvalidInput(where + " declares column '" + cs.name + "' of table '" + out.name +
                          "' with type " + std::to_string(col.type) +
                          "; published columns are i64, f64 or string");
    cs.type = static_cast<ColumnType>(col.type);
    if (cs.name.empty() || out.Find(cs.name))
      return InvalidInput(where + " declares table '" + out.name +
                          "' with an empty or repeated column name '" + cs.name + "'");
    out.columns.push_back(std::move(cs));
  }
  return out;
}

StatusOr<PluginDeclaration> Declare(const th_plugin_descriptor& d, const std::string& path) {
  PluginDeclaration decl;
  decl.id = Str(d.id);
  decl.version = Str(d.version);
  decl.summary = Str(d.summary);
  decl.library = path;
  if (!IsCaseJoined(decl.id, '-')) {
    return InvalidInput(path + ": plugin id '" + decl.id + "' is not kebab-case");
  }
  if (d.kind != TH_KIND_ANALYZER && d.kind != TH_KIND_DETECTOR) {
    return InvalidInput(path + ": plugin '" + decl.id + "' has an unknown kind");
  }
  decl.kind = d.kind == TH_KIND_ANALYZER ? PluginKind::kAnalyzer : PluginKind::kDetector;
  // A 2.0 descriptor's flags field was reserved: only a 2.1 plugin sets it.
  decl.input_groups = d.api_minor >= 1 && (d.flags & TH_PLUGIN_INPUT_GROUPS) != 0;
  for (uint32_t i = 0; i < d.read_count; ++i) {
    std::string read = Str(d.reads[i]);
    if (read.empty())
      return InvalidInput(path + ": plugin '" + decl.id + "' reads a table with no name");
    decl.reads.push_back(std::move(read));
  }
  for (uint32_t i = 0; i < d.publish_count; ++i) {
    auto schema = SchemaOf(d.publishes[i], path + ": plugin '" + decl.id + "'");
    if (!schema.ok()) return schema.status();
    for (const TableSchema& earlier : decl.publishes)
      if (earlier.name == schema->name)
        return InvalidInput(path + ": plugin '" + decl.id + "' declares table '" + schema->name +
                            "' twice");
    decl.publishes.push_back(std::move(*schema));
  }
  for (uint32_t i = 0; i < d.option_count; ++i) {
    const th_option_decl& o = d.options[i];
    OptionDeclaration od;
    od.name = Str(o.name);
    // A pipeline's plugin entry takes these keys itself (`enabled: false`,
    // `severity: P0`): an option so named could never be set.
    if (od.name == "enabled" || od.name == "severity")
      return InvalidInput(path + ": plugin '" + decl.id + "' declares an option named '" + od.name +
                          "', a key the pipeline reserves for every plugin (enabled, severity); "
                          "rename the option (a plugin's finding severity is set by the "
                          "pipeline's 'severity:')");
    for (const OptionDeclaration& earlier : decl.options)
      if (earlier.name == od.name)
        return InvalidInput(path + ": plugin '" + decl.id + "' declares option '" + od.name +
                            "' twice");
    od.doc = Str(o.doc);
    od.type = o.type == TH_TYPE_BOOL  ? OptionType::kBool
              : o.type == TH_TYPE_I64 ? OptionType::kInt
              : o.type == TH_TYPE_F64 ? OptionType::kDouble
                                      : OptionType::kString;
    auto def = DefaultOf(o, path);
    if (!def.ok()) return def.status();
    od.default_value = *def;
    if (o.has_min) od.min = o.min;
    if (o.has_max) od.max = o.max;
    for (uint32_t c = 0; c < o.choice_count; ++c) od.choices.push_back(Str(o.choices[c]));
    decl.options.push_back(std::move(od));
  }
  return decl;
}

}  // namespace

StatusOr<std::shared_ptr<const LoadedPlugin>> LoadPluginLibrary(const std::string& path) {
  auto lib = std::make_shared<boost::dll::shared_library>();
  boost::dll::fs::error_code ec;
  lib->load(path, boost::dll::load_mode::rtld_lazy | boost::dll::load_mode::rtld_local, ec);
  if (ec) return InvalidInput(path + ": cannot load plugin library: " + ec.message());
  if (!lib->has(TH_PLUGIN_ENTRY_SYMBOL)) {
    return InvalidInput(path + ": not a tracehound plugin: no symbol " TH_PLUGIN_ENTRY_SYMBOL);
  }
  auto entry = lib->get<const th_plugin_descriptor*()>(TH_PLUGIN_ENTRY_SYMBOL);
  return AdoptPluginDescriptor(entry(), lib, path);
}

StatusOr<std::shared_ptr<const LoadedPlugin>> AdoptPluginDescriptor(const th_plugin_descriptor* d,
                                                                    std::shared_ptr<void> owner,
                                                                    const std::string& path) {
  if (!d) return InvalidInput(path + ": the plugin entry returned no descriptor");
  if (d->api_major < TH_PLUGIN_API_MAJOR) {
    return InvalidInput(
        path + ": plugin built against plugin API " + std::to_string(d->api_major) + "." +
        std::to_string(d->api_minor) + "; this host speaks " + std::to_string(TH_PLUGIN_API_MAJOR) +
        "." + std::to_string(TH_PLUGIN_API_MINOR) +
        ", where plugins read the table catalog: rebuild the plugin against the "
        "tracehound " +
        std::to_string(TH_PLUGIN_API_MAJOR) + ".x SDK (sdk/README.md says what changed)");
  }
  if (d->struct_size < sizeof(th_plugin_descriptor) || d->api_major != TH_PLUGIN_API_MAJOR ||
      d->api_minor > TH_PLUGIN_API_MINOR) {
    return InvalidInput(path + ": plugin API " + std::to_string(d->api_major) + "." +
                        std::to_string(d->api_minor) + " does not match the host's " +
                        std::to_string(TH_PLUGIN_API_MAJOR) + "." +
                        std::to_string(TH_PLUGIN_API_MINOR) +
                        " (same major and a minor no newer are required); rebuild the plugin "
                        "against this SDK");
  }
  if (!d->run) return InvalidInput(path + ": plugin descriptor has no run function");
  auto decl = Declare(*d, path);
  if (!decl.ok()) return decl.status();
  auto plugin = std::make_shared<LoadedPlugin>();
  plugin->library = std::move(owner);
  plugin->descriptor = d;
  plugin->declaration = std::move(*decl);
  return std::shared_ptr<const LoadedPlugin>(std::move(plugin));
}

Status PluginRegistry::Add(std::shared_ptr<const LoadedPlugin> plugin) {
  const std::string& id = plugin->declaration.id;
  auto [it, inserted] = plugins_.emplace(id, plugin);
  if (!inserted) {
    return InvalidInput(plugin->declaration.library + ": plugin id '" + id +
                        "' is already provided by " + it->second->declaration.library);
  }
  return Ok();
}

namespace {

// The .so files directly in `dir`, sorted by path; `ec` says why it could not
// be listed.
std::vector<std::string> SharedLibrariesIn(const std::string& dir, std::error_code* ec) {
  std::vector<std::string> libraries;
  for (const auto& entry : fs::directory_iterator(dir, *ec)) {
    if (entry.is_regular_file(*ec) && entry.path().extension() == ".so")
      libraries.push_back(entry.path().string());
  }
  std::sort(libraries.begin(), libraries.end());
  return libraries;
}

}  // namespace

Status PluginRegistry::LoadDirectories(const std::vector<std::string>& directories) {
  for (const std::string& dir : directories) {
    std::error_code ec;
    std::vector<std::string> libraries = SharedLibrariesIn(dir, &ec);
    if (ec) return IoError(dir + ": cannot list plugin directory: " + ec.message());
    for (const std::string& path : libraries) {
      auto plugin = LoadPluginLibrary(path);
      if (!plugin.ok()) return plugin.status();
      TH_RETURN_IF_ERROR(Add(std::move(*plugin)));
    }
  }
  return Ok();
}

Status PluginRegistry::LoadPlugin(const std::vector<std::string>& directories,
                                  const std::string& id) {
  std::string conventional = "th_" + id + ".so";
  std::replace(conventional.begin(), conventional.end(), '-', '_');
  std::string first_failure;
  for (const std::string& dir : directories) {
    std::error_code ec;  // an unreadable folder holds no plugin here
    std::vector<std::string> libraries = SharedLibrariesIn(dir, &ec);
    std::stable_partition(libraries.begin(), libraries.end(), [&](const std::string& path) {
      return fs::path(path).filename() == conventional;
    });
    for (const std::string& path : libraries) {
      auto plugin = LoadPluginLibrary(path);
      if (!plugin.ok()) {
        if (first_failure.empty()) first_failure = plugin.status().message();
        continue;
      }
      if ((*plugin)->declaration.id == id) return Add(std::move(*plugin));
    }
  }
  return NotFound("no plugin '" + id + "' on the plugin path" +
                  (first_failure.empty() ? std::string() : " (" + first_failure + ")"));
}

const LoadedPlugin* PluginRegistry::Find(const std::string& id) const {
  auto it = plugins_.find(id);
  return it == plugins_.end() ? nullptr : it->second.get();
}

std::vector<PluginDeclaration> PluginRegistry::Declarations() const {
  std::vector<PluginDeclaration> out;
  for (const auto& [id, p] : plugins_) out.push_back(p->declaration);
  return out;
}

std::vector<std::string> PluginSearchPath(const std::vector<std::string>& extra) {
  std::vector<std::string> candidates = extra;
  if (const char* env = std::getenv("TRACEHOUND_PLUGIN_PATH")) {
    std::string s = env;
    size_t start = 0;
    while (start <= s.size()) {
      size_t colon = s.find(':', start);
      std::string part =
          s.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!part.empty()) candidates.push_back(part);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  fs::path exe = boost::dll::program_location().string();
  candidates.push_back((exe.parent_path().parent_path() / "plugins").string());
  candidates.push_back(
      (exe.parent_path().parent_path() / "lib" / "tracehound" / "plugins").string());
  std::vector<std::string> out;
  for (const std::string& c : candidates) {
    std::error_code ec;
    if (!fs::is_directory(c, ec)) continue;
    std::string canonical = fs::weakly_canonical(c, ec).string();
    if (std::find(out.begin(), out.end(), canonical) == out.end()) out.push_back(canonical);
  }
  return out;
}

}  // namespace th
