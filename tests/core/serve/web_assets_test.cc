// The viewer's compiled-in files: "/" is index.html, "/assets/NAME" a file
// of core/serve/web/ by exact name, anything else (paths that climb, other
// folders) nothing.
#include "core/serve/web_assets.h"

#include <gtest/gtest.h>

namespace th::serve {
namespace {

TEST(WebAssetsTest, IndexAndAssetsByName) {
  const WebAsset* index = FindWebAsset("/");
  ASSERT_NE(index, nullptr);
  EXPECT_NE(index->body.find("<html"), std::string_view::npos);
  EXPECT_EQ(index->content_type, "text/html; charset=utf-8");
  const WebAsset* js = FindWebAsset("/assets/viewer.js");
  ASSERT_NE(js, nullptr);
  EXPECT_EQ(js->content_type, "text/javascript; charset=utf-8");
  EXPECT_FALSE(js->body.empty());
}

TEST(WebAssetsTest, EveryEmbeddedFileIsReachable) {
  ASSERT_FALSE(EmbeddedWebFiles().empty());
  for (const EmbeddedWebFile& f : EmbeddedWebFiles()) {
    const WebAsset* a = FindWebAsset("/assets/" + std::string(f.name));
    ASSERT_NE(a, nullptr) << f.name;
    EXPECT_EQ(a->body, f.body);
  }
}

TEST(WebAssetsTest, NothingElse) {
  for (const char* path : {"", "/index.htm", "/assets/", "/assets/../CMakeLists.txt",
                           "/assets/../../etc/passwd", "/etc/passwd", "/assets/viewer.js/",
                           "/assets//viewer.js", "assets/viewer.js", "/web/viewer.js"})
    EXPECT_EQ(FindWebAsset(path), nullptr) << path;
}

}  // namespace
}  // namespace th::serve
