#include "tests/support/test_files.h"

#include <libdeflate.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace th::testing {

namespace fs = std::filesystem;

std::string TempDir() {
  static const std::string dir = [] {
    std::string templ = (fs::temp_directory_path() / "tracehound-test-XXXXXX").string();
    char* made = ::mkdtemp(templ.data());
    std::string d = made ? made : "/tmp";
    static std::string to_remove = d;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(to_remove, ec);
    });
    return d;
  }();
  return dir;
}

std::string WriteTempFile(const std::string& name, std::string_view bytes) {
  std::string path = TempDir() + "/" + name;
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

std::string Gzip(std::string_view bytes) {
  libdeflate_compressor* c = libdeflate_alloc_compressor(6);
  std::string out(libdeflate_gzip_compress_bound(c, bytes.size()), '\0');
  size_t n = libdeflate_gzip_compress(c, bytes.data(), bytes.size(), out.data(), out.size());
  libdeflate_free_compressor(c);
  out.resize(n);
  return out;
}

std::string Gunzip(std::string_view packed) {
  if (packed.size() < 18) return "";
  uint32_t size = 0;  // ISIZE: the size mod 2^32, little-endian, last 4 bytes
  for (int i = 3; i >= 0; --i)
    size = size << 8 | static_cast<uint8_t>(packed[packed.size() - 4 + static_cast<size_t>(i)]);
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  std::string out(size, '\0');
  size_t got = 0;
  const auto r =
      libdeflate_gzip_decompress(d, packed.data(), packed.size(), out.data(), out.size(), &got);
  libdeflate_free_decompressor(d);
  if (r != LIBDEFLATE_SUCCESS) return "";
  out.resize(got);
  return out;
}

std::string SharedDataDir() {
  if (const char* env = std::getenv("TRACEHOUND_SHARED_DATA"))
    return fs::is_directory(env) ? env : "";
  return fs::is_directory(TRACEHOUND_SHARED_DATA) ? fs::canonical(TRACEHOUND_SHARED_DATA).string()
                                                  : "";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> FilesWithOracle(std::string_view suffix, bool with_corrupt) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::string data = SharedDataDir();
  if (data.empty()) return out;
  const fs::path expected = fs::path(data) / "expected";
  const std::string want = std::string(suffix) + ".oracle.json";
  for (const auto& e : fs::recursive_directory_iterator(expected)) {
    std::string rel = fs::relative(e.path(), expected).string();
    if (rel.size() <= want.size() || !rel.ends_with(want)) continue;
    rel.resize(rel.size() - std::string_view(".oracle.json").size());
    if (!with_corrupt && rel.find("corrupted_upstream") != std::string::npos) continue;
    out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ParamName(const std::string& path) {
  std::string n = path;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

}  // namespace th::testing
