// What the tracehound command maps: `--version` and `info` load none of the
// libraries only other commands need (Open MPI, libpq, the GPU runtimes,
// libarchive); each is loaded, through its module, by the command that uses
// it. Read from the dynamic loader's own trace (LD_DEBUG=libs), so a new
// direct dependency on any of them fails here.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::CommandResult;
using testing::Tracehound;

// Libraries whose constructors ran (LD_DEBUG=libs: "calling init: PATH").
std::vector<std::string> InitialisedLibraries(const std::string& ld_debug_output) {
  std::vector<std::string> out;
  std::istringstream in(ld_debug_output);
  const std::string marker = "calling init: ";
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find(marker);
    if (at != std::string::npos) out.push_back(line.substr(at + marker.size()));
  }
  return out;
}

bool Loaded(const std::vector<std::string>& libraries, const std::string& name) {
  for (const std::string& path : libraries)
    if (path.find("/" + name) != std::string::npos) return true;
  return false;
}

const char* const kCommandSpecific[] = {
    "libmpi.so",         "libpq.so",     "libamdhip64.so", "libcudart.so",   "libcuda.so",
    "libarchive.so",     "libcrypto.so", "scan-mpi.so",    "db-postgres.so", "gpu-cuda.so",
    "gpu-hip.so",        "archive.so",   "openssl.so",     "remote.so",      "libcurl.so",
    "python-plugins.so", "libpython"};

std::vector<std::string> LibrariesOf(const std::string& args) {
  CommandResult r = Tracehound(args, "LD_DEBUG=libs");
  EXPECT_EQ(r.status, 0) << args << "\n"
                         << r.out.substr(r.out.size() > 4000 ? r.out.size() - 4000 : 0);
  std::vector<std::string> libraries = InitialisedLibraries(r.out);
  EXPECT_TRUE(Loaded(libraries, "libc.so")) << "no LD_DEBUG trace for " << args;
  return libraries;
}

TEST(StartupLibraries, VersionLoadsNoCommandSpecificLibrary) {
  std::vector<std::string> libraries = LibrariesOf("--version");
  for (const char* name : kCommandSpecific) EXPECT_FALSE(Loaded(libraries, name)) << name;
}

TEST(StartupLibraries, InfoOnATraceLoadsNoCommandSpecificLibrary) {
  std::string dir = testing::TempDir() + "/startup_generated";
  ASSERT_EQ(Tracehound("generate --out " + dir + " --ranks 2 --steps 2 --gzip").status, 0);
  std::vector<std::string> libraries = LibrariesOf("info " + dir);
  for (const char* name : kCommandSpecific) EXPECT_FALSE(Loaded(libraries, name)) << name;
}

TEST(StartupLibraries, AnArchiveLoadsTheArchiveModule) {
  std::string dir = testing::TempDir() + "/startup_archived";
  ASSERT_EQ(Tracehound("generate --out " + dir + " --ranks 2 --steps 2").status, 0);
  std::string archive = testing::TempDir() + "/startup_ranks.tar.gz";
  ASSERT_EQ(testing::Shell("tar -czf " + archive + " -C " + dir + " .").status, 0);
  std::vector<std::string> libraries = LibrariesOf("info " + archive);
  EXPECT_TRUE(Loaded(libraries, "archive.so"));
  EXPECT_TRUE(Loaded(libraries, "libarchive.so"));
  EXPECT_FALSE(Loaded(libraries, "libpq.so"));
}

TEST(StartupLibraries, APostgresDatabaseLoadsLibpq) {
  CommandResult r =
      Tracehound("fleet report --db postgresql://nobody@127.0.0.1:1/none", "LD_DEBUG=libs");
  EXPECT_NE(r.status, 0);
  std::vector<std::string> libraries = InitialisedLibraries(r.out);
  EXPECT_TRUE(Loaded(libraries, "db-postgres.so"));
  EXPECT_TRUE(Loaded(libraries, "libpq.so"));
  EXPECT_FALSE(Loaded(libraries, "libmpi.so"));
  EXPECT_NE(r.out.find("cannot connect to database postgresql://nobody@127.0.0.1:1/none"),
            std::string::npos);
}

TEST(StartupLibraries, RedactionLoadsLibcrypto) {
  std::string dir = testing::TempDir() + "/startup_to_redact";
  ASSERT_EQ(Tracehound("generate --out " + dir + " --ranks 1 --steps 1").status, 0);
  std::string key = testing::TempDir() + "/startup_redact.key";
  ASSERT_EQ(testing::Shell("printf key-for-the-startup-test-0123 > " + key).status, 0);
  std::vector<std::string> libraries = LibrariesOf("redact " + dir + " -o " + testing::TempDir() +
                                                   "/startup_redacted --key-file " + key + " -q");
  EXPECT_TRUE(Loaded(libraries, "openssl.so"));
  EXPECT_TRUE(Loaded(libraries, "libcrypto.so"));
  EXPECT_FALSE(Loaded(libraries, "libpq.so"));
}

// A pipeline of C++ plugins maps no interpreter; one naming a Python plugin
// loads libpython and the python-plugins module.
TEST(StartupLibraries, OnlyAPythonPluginLoadsLibpython) {
  std::string dir = testing::TempDir() + "/startup_pipeline";
  ASSERT_EQ(Tracehound("generate --out " + dir + " --ranks 1 --steps 1").status, 0);
  std::string cpp =
      testing::WriteTempFile("startup_cpp.yaml", "version: 1\nplugins:\n  kernel-stats: {}\n");
  std::vector<std::string> libraries = LibrariesOf("run " + cpp + " " + dir);
  for (const char* name : kCommandSpecific) EXPECT_FALSE(Loaded(libraries, name)) << name;
#ifdef TRACEHOUND_PYTHON_PLUGINS
  std::string python = testing::WriteTempFile(
      "startup_python.yaml", std::string("version: 1\nplugins:\n  kernel-totals: {python: \"") +
                                 TRACEHOUND_SOURCE_DIR +
                                 "/sdk/examples/python/kernel_totals.py:KernelTotals\"}\n");
  libraries = LibrariesOf("run " + python + " " + dir);
  EXPECT_TRUE(Loaded(libraries, "python-plugins.so"));
  EXPECT_TRUE(Loaded(libraries, "libpython"));
  EXPECT_FALSE(Loaded(libraries, "libpq.so"));
#endif
}

#ifdef TRACEHOUND_RUNTIME_FIRST
// The executable's own libraries in the dynamic loader's search order
// (LD_DEBUG=files: "file=NAME [0];  needed by .../tracehound [0]").
std::vector<std::string> NeededByTracehound(const std::string& ld_debug_output) {
  std::vector<std::string> out;
  std::istringstream in(ld_debug_output);
  for (std::string line; std::getline(in, line);) {
    size_t file = line.find("file=");
    size_t by = line.find(" [0];  needed by ");
    if (file == std::string::npos || by == std::string::npos || by < file) continue;
    if (line.find("/tracehound [0]", by) == std::string::npos) continue;
    out.push_back(line.substr(file + 5, by - file - 5));
  }
  return out;
}

// Start-up resolves thousands of symbols, most of them libstdc++'s own; each
// lookup walks the search order, so the C++ and C runtimes come first
// (cli/CMakeLists.txt).
TEST(StartupLibraries, TheRuntimesAreSearchedFirst) {
  CommandResult r = Tracehound("--version", "LD_DEBUG=files");
  ASSERT_EQ(r.status, 0);
  std::vector<std::string> needed = NeededByTracehound(r.out);
  ASSERT_GE(needed.size(), 5u) << r.out.substr(0, 4000);
  EXPECT_EQ(
      std::vector<std::string>(needed.begin(), needed.begin() + 4),
      (std::vector<std::string>{"libstdc++.so.6", "libm.so.6", "libgcc_s.so.1", "libc.so.6"}));
}
#endif

#ifdef TRACEHOUND_HIP_MODULE
TEST(StartupLibraries, ListingTheBackendsLoadsTheGpuRuntimes) {
  std::vector<std::string> libraries = LibrariesOf("info --backends");
  EXPECT_TRUE(Loaded(libraries, "gpu-hip.so"));
  EXPECT_TRUE(Loaded(libraries, "libamdhip64.so"));
}
#endif

}  // namespace
}  // namespace th
