#include "core/serve/web_assets.h"

#include <algorithm>
#include <string>
#include <vector>

namespace th::serve {
namespace {

std::string_view ContentType(std::string_view name) {
  auto ends = [&](std::string_view s) { return name.ends_with(s); };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".json")) return "application/json";
  if (ends(".txt") || ends("LICENSE")) return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

struct Table {
  std::vector<std::string_view> names;  // sorted, as generated
  std::vector<WebAsset> assets;
};

const Table& Assets() {
  static const Table table = [] {
    Table t;
    for (const EmbeddedWebFile& f : EmbeddedWebFiles()) {
      t.names.push_back(f.name);
      t.assets.push_back({f.body, ContentType(f.name)});
    }
    return t;
  }();
  return table;
}

}  // namespace

const WebAsset* FindWebAsset(std::string_view path) {
  std::string_view name;
  if (path == "/") {
    name = "index.html";
  } else if (path.starts_with("/assets/")) {
    name = path.substr(8);
  } else {
    return nullptr;
  }
  const Table& t = Assets();
  auto it = std::lower_bound(t.names.begin(), t.names.end(), name);
  if (it == t.names.end() || *it != name) return nullptr;
  return &t.assets[static_cast<size_t>(it - t.names.begin())];
}

}  // namespace th::serve
