// The viewer's files (core/serve/web/), compiled into the binary: nothing is
// read from disk at run time and no request can name a file.
#pragma once

#include <span>
#include <string_view>

namespace th::serve {

struct WebAsset {
  std::string_view body, content_type;
};

// "/" is index.html, "/assets/NAME" the file NAME of the folder (NAME may
// hold '/' for a subfolder); nullptr for any other path.
const WebAsset* FindWebAsset(std::string_view path);

// The generated table (embed_web_assets.cmake): file names relative to the
// folder, sorted, with their bytes.
struct EmbeddedWebFile {
  std::string_view name, body;
};
std::span<const EmbeddedWebFile> EmbeddedWebFiles();

}  // namespace th::serve
