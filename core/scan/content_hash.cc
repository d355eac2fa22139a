#include "core/scan/content_hash.h"

#include <xxhash.h>

#include "core/graph/file_hash.h"
#include "core/graph/xxh128_hex.h"
#include "core/import/remote/object_url.h"
#include "core/import/remote/remote_inputs.h"

namespace th::scan {

std::string HashBytes(std::string_view bytes) {
  return Xxh128Hex(XXH3_128bits(bytes.data(), bytes.size()));
}

StatusOr<std::string> HashFile(const std::string& path) {
  Xxh3State state = NewXxh3State();
  TH_RETURN_IF_ERROR(UpdateHashWithFile(path, state.get(), nullptr));
  return Xxh128Hex(XXH3_128bits_digest(state.get()));
}

StatusOr<std::string> HashRunFile(const std::string& path) {
  if (!remote::IsRemoteInput(path)) return HashFile(path);
  auto object = remote::LookUpRemoteObject(path);
  if (!object.ok()) return object.status();
  std::string etag = object->etag;
  std::erase(etag, '"');
  if (!etag.empty()) return "etag:" + etag;
  auto source = remote::OpenRemoteObject(path);
  if (!source.ok()) return source.status();
  Xxh3State state = NewXxh3State();
  std::string block(size_t{1} << 20, '\0');
  while (true) {
    auto got = (*source)->Read(block.data(), block.size());
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    XXH3_128bits_update(state.get(), block.data(), *got);
  }
  return Xxh128Hex(XXH3_128bits_digest(state.get()));
}

std::string CombineFileHashes(const std::vector<std::pair<std::string, std::string>>& files) {
  // Length-prefixed fields: no two different lists give the same text.
  std::string text;
  for (const auto& [name, hash] : files) {
    text += std::to_string(name.size()) + ":" + name + ";" + hash + "\n";
  }
  return HashBytes(text);
}

std::string EffectivePipelineText(const Pipeline& pipeline) {
  Pipeline p = pipeline;
  p.source.clear();
  p.inputs.clear();
  p.outputs.clear();
  p.threads = 0;
  p.plugin_paths.clear();
  return DumpEffectivePipeline(p);
}

std::string PipelineHash(const Pipeline& pipeline, const PluginRegistry& registry) {
  std::string text = EffectivePipelineText(pipeline);
  text += "\n# plugins\n";
  for (const PluginStep& s : pipeline.plugins) {
    if (!s.enabled) continue;
    const LoadedPlugin* plugin = registry.Find(s.id);
    text += s.id + " " + (plugin ? plugin->declaration.version : std::string("?")) + "\n";
  }
  return HashBytes(text);
}

}  // namespace th::scan
