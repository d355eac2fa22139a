// Helpers for tests: temporary files, gzip fixtures, the shared data folder.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace th::testing {

// A fresh directory under the system temp dir, removed at process exit.
std::string TempDir();
// Writes `bytes` to TempDir()/name and returns the path.
std::string WriteTempFile(const std::string& name, std::string_view bytes);
// gzip-compresses bytes (libdeflate).
std::string Gzip(std::string_view bytes);
// Decompresses one gzip member (libdeflate; its size from the trailer); ""
// when the bytes are not a whole gzip member.
std::string Gunzip(std::string_view packed);
// ../shared/data, or "" when it is absent (tests then GTEST_SKIP).
std::string SharedDataDir();
std::string ReadFile(const std::string& path);
// Paths, relative to SharedDataDir(), of every data file ending in `suffix`
// that has an oracle file in expected/, sorted; the corrupt upstream copy is
// left out unless `with_corrupt`. Empty when the data is absent.
std::vector<std::string> FilesWithOracle(std::string_view suffix, bool with_corrupt = false);
// A GoogleTest parameter name made from a path (non-alphanumerics become '_').
std::string ParamName(const std::string& path);

}  // namespace th::testing
