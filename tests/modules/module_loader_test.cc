// On-demand modules: a module found on TRACEHOUND_MODULE_PATH loads once and
// hands over its entry; every failure says which module, what for, and why
// (the missing library by name, or the folders searched).
#include "modules/module_loader.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

namespace th::modules {
namespace {

class ModuleLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("TRACEHOUND_MODULE_PATH", TEST_MODULE_DIR, 1); }
  void TearDown() override { unsetenv("TRACEHOUND_MODULE_PATH"); }
};

TEST_F(ModuleLoaderTest, SearchPathStartsWithTheEnvironmentThenBesideTheExecutable) {
  setenv("TRACEHOUND_MODULE_PATH", "/a:/b", 1);
  std::vector<std::string> path = ModuleSearchPath();
  ASSERT_GE(path.size(), 4u);
  EXPECT_EQ(path[0], "/a");
  EXPECT_EQ(path[1], "/b");
  EXPECT_TRUE(path[2].ends_with("/lib/tracehound/modules")) << path[2];
  EXPECT_EQ(path.back(), TRACEHOUND_BUILD_MODULE_DIR);
}

TEST_F(ModuleLoaderTest, LoadsAModuleOnceAndCallsItsEntry) {
  std::string error;
  void* entry = LoadModuleEntry("test-answer", "th_test_answer", "a test", &error);
  ASSERT_NE(entry, nullptr) << error;
  EXPECT_EQ(reinterpret_cast<int (*)()>(entry)(), 42);
  EXPECT_EQ(LoadModuleEntry("test-answer", "th_test_answer", "a test", &error), entry);
}

TEST_F(ModuleLoaderTest, AMissingLibraryIsNamed) {
  std::string error;
  EXPECT_EQ(LoadModuleEntry("test-missing-library", "th_test_answer", "needed for tests", &error),
            nullptr);
  EXPECT_NE(error.find("cannot load the test-missing-library module (needed for tests)"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("libth_test_absent.so: cannot open shared object file"), std::string::npos)
      << error;
}

TEST_F(ModuleLoaderTest, AModuleNowhereOnThePathListsTheFoldersSearched) {
  std::string error;
  EXPECT_EQ(LoadModuleEntry("no-such-module", "entry", "needed for nothing", &error), nullptr);
  EXPECT_NE(error.find("no no-such-module.so in " + std::string(TEST_MODULE_DIR)),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("TRACEHOUND_MODULE_PATH"), std::string::npos) << error;
}

TEST_F(ModuleLoaderTest, AnEntryTheModuleLacksIsNamed) {
  std::string error;
  EXPECT_EQ(LoadModuleEntry("test-answer", "th_no_such_entry", "a test", &error), nullptr);
  EXPECT_NE(error.find("has no symbol th_no_such_entry"), std::string::npos) << error;
}

}  // namespace
}  // namespace th::modules
