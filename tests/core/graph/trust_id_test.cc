#include "core/graph/trust_id.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace th {
namespace {

bool IsSnakeCase(std::string_view s) {
  if (s.empty() || s.front() == '_' || s.back() == '_') return false;
  if (s.front() < 'a' || s.front() > 'z') return false;
  char previous = 0;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok || (c == '_' && previous == '_')) return false;
    previous = c;
  }
  return true;
}

TEST(TrustId, SnakeCaseCheckRejectsOtherSpellings) {
  EXPECT_TRUE(IsSnakeCase("kernel_without_launch"));
  EXPECT_FALSE(IsSnakeCase("kernelWithoutLaunch"));
  EXPECT_FALSE(IsSnakeCase("kernel without launch"));
  EXPECT_FALSE(IsSnakeCase("_kernel"));
  EXPECT_FALSE(IsSnakeCase("kernel__launch"));
  EXPECT_FALSE(IsSnakeCase(""));
}

TEST(TrustId, EveryIdHasAUniqueSnakeCaseNameAndADescription) {
  std::set<std::string_view> names, descriptions;
  for (const TrustIdInfo& info : AllTrustIds()) {
    EXPECT_TRUE(IsSnakeCase(info.name)) << info.name;
    EXPECT_TRUE(names.insert(info.name).second) << "name twice: " << info.name;
    EXPECT_FALSE(info.description.empty()) << info.name;
    EXPECT_TRUE(descriptions.insert(info.description).second)
        << "description twice: " << info.description;
  }
  EXPECT_EQ(names.size(), AllTrustIds().size());
}

TEST(TrustId, InfoOfReturnsTheListEntryOfEachId) {
  std::set<TrustId> ids;
  for (const TrustIdInfo& info : AllTrustIds()) {
    EXPECT_TRUE(ids.insert(info.id).second) << info.name;
    EXPECT_EQ(&InfoOf(info.id), &info) << info.name;
  }
  const TrustIdInfo& launch = InfoOf(TrustId::kKernelWithoutLaunch);
  EXPECT_EQ(launch.name, "kernel_without_launch");
  EXPECT_EQ(launch.severity, Severity::kDataLoss);
  EXPECT_EQ(launch.description, "kernel with no launch event inside the capture window");
  EXPECT_EQ(InfoOf(TrustId::kInputTruncated).severity, Severity::kError);
  EXPECT_EQ(InfoOf(TrustId::kTrailingComma).severity, Severity::kInfo);
}

TEST(TrustId, SeverityNames) {
  EXPECT_EQ(SeverityName(Severity::kInfo), "info");
  EXPECT_EQ(SeverityName(Severity::kDataLoss), "data_loss");
  EXPECT_EQ(SeverityName(Severity::kError), "error");
}

}  // namespace
}  // namespace th
