#include "core/scan/pipeline_record.h"

#include "core/graph/text_escape.h"
#include "core/scan/content_hash.h"

namespace th::scan {

const char* TracehoundVersion() { return TRACEHOUND_VERSION; }

PipelineRecord MakePipelineRecord(const Pipeline& pipeline, const PluginRegistry& registry,
                                  const std::string& pipeline_hash) {
  PipelineRecord r;
  r.pipeline_hash = pipeline_hash;
  r.yaml = EffectivePipelineText(pipeline);
  r.plugin_versions = "{";
  bool first = true;
  for (const PluginStep& s : pipeline.plugins) {
    if (!s.enabled) continue;
    const LoadedPlugin* plugin = registry.Find(s.id);
    r.plugin_versions += (first ? "" : ", ") + JsonString(s.id) + ": " +
                         JsonString(plugin ? plugin->declaration.version : std::string("?"));
    first = false;
  }
  r.plugin_versions += "}";
  r.tracehound_version = TracehoundVersion();
  return r;
}

Status WritePipelineRecord(Database& db, const PipelineRecord& r) {
  // ON CONFLICT DO NOTHING: SQLite 3.24+ and PostgreSQL 9.5+; concurrent
  // scanners of one pipeline insert it once.
  return db.Exec(
      "INSERT INTO pipelines (pipeline_hash, yaml, plugin_versions, tracehound_version) VALUES "
      "($1, $2, $3, $4) ON CONFLICT (pipeline_hash) DO NOTHING",
      {r.pipeline_hash, r.yaml, r.plugin_versions, r.tracehound_version});
}

}  // namespace th::scan
