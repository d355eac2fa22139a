#include "core/scan/content_hash.h"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "core/graph/xxh128_hex.h"

namespace th::scan {

namespace {

struct StateDeleter {
  void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};

}  // namespace

std::string HashBytes(std::string_view bytes) {
  return Xxh128Hex(XXH3_128bits(bytes.data(), bytes.size()));
}

StatusOr<std::string> HashFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(path + ": cannot open: " + std::strerror(errno));
  std::unique_ptr<XXH3_state_t, StateDeleter> state(XXH3_createState());
  XXH3_128bits_reset(state.get());
  constexpr size_t kBlock = 1 << 20;
  std::unique_ptr<char[]> buffer(new char[kBlock]);
  for (;;) {
    ssize_t n = ::read(fd, buffer.get(), kBlock);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return IoError(path + ": cannot read: " + why);
    }
    if (n == 0) break;
    XXH3_128bits_update(state.get(), buffer.get(), static_cast<size_t>(n));
  }
  ::close(fd);
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
