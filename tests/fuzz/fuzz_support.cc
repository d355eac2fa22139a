#include "tests/fuzz/fuzz_support.h"

#include <tbb/global_control.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

namespace th::fuzz {

namespace {

// The folder lives until the process exits and is removed then. (A static
// string with an atexit handler would be destroyed before the handler ran.)
class Scratch {
 public:
  Scratch() {
    std::string base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
    dir_ = base + "/tracehound-fuzz-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir_);
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

const std::string& ScratchDir() {
  static const Scratch scratch;
  return scratch.dir();
}

}  // namespace

std::string WriteScratch(const std::string& name, std::string_view bytes) {
  std::string path = ScratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

void SingleThreaded() {
  static std::unique_ptr<tbb::global_control> control = std::make_unique<tbb::global_control>(
      tbb::global_control::max_allowed_parallelism, 1);
}

void Require(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
  std::abort();
}

}  // namespace th::fuzz
