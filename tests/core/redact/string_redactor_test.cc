// The rule engine on whole strings: order of rules, pseudonyms (stable per
// key, different across keys), counts, field rules, idempotence.
#include "core/redact/string_redactor.h"

#include <gtest/gtest.h>

#include "tests/support/test_files.h"

namespace th::redact {
namespace {

RuleSet Shipped() {
  auto r =
      ParseRules(testing::ReadFile(std::string(TRACEHOUND_SOURCE_DIR) + "/configs/redact.yaml"),
                 "redact.yaml");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return std::move(*r);
}

int RuleIndex(const RuleSet& rules, std::string_view id) {
  for (size_t i = 0; i < rules.rules.size(); ++i)
    if (rules.rules[i].id == id) return static_cast<int>(i);
  ADD_FAILURE() << id;
  return -1;
}

std::string Redact(StringRedactor& r, std::string_view s, int field = -1) {
  std::string out;
  return r.Apply(s, field, &out) ? out : std::string(s);
}

const std::string kKey = "0123456789abcdef-test-key";

TEST(StringRedactor, PseudonymsAreKeyedAndStable) {
  RuleSet rules = Shipped();
  Pseudonymizer a(kKey, KeySource::kFile, 8), b(kKey, KeySource::kFile, 8),
      c("another-key-0123456789", KeySource::kFile, 8);
  StringRedactor ra(rules, a), rb(rules, b), rc(rules, c);
  const std::string s = "/home/alice/proj/train.py(12): main";
  std::string x = Redact(ra, s), y = Redact(rb, s), z = Redact(rc, s);
  EXPECT_EQ(x, y);  // same key: same pseudonyms (across runs, ranks, redactors)
  EXPECT_NE(x, z);  // another key: others
  EXPECT_EQ(x, Redact(ra, s));
  // /home/<user>/ -> user-<8 hex>, then the directory -> path-<8 hex>, file kept.
  EXPECT_EQ(x,
            a.Token("path", "/home/" + a.Token("user", "alice") + "/proj") + "/train.py(12): main");
  EXPECT_EQ(a.Token("user", "alice").size(), std::string("user-").size() + 8);
  EXPECT_NE(a.Token("user", "alice"), a.Token("host", "alice"));  // the class is keyed too
  EXPECT_EQ(a.KeyFingerprint(), b.KeyFingerprint());
  EXPECT_NE(a.KeyFingerprint(), c.KeyFingerprint());
}

TEST(StringRedactor, RandomKeysDiffer) {
  auto a = Pseudonymizer::Create("", nullptr, 8), b = Pseudonymizer::Create("", nullptr, 8);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->source(), KeySource::kRandom);
  EXPECT_NE(a->Token("user", "alice"), b->Token("user", "alice"));
  auto env = Pseudonymizer::Create("", "short", 8);
  EXPECT_FALSE(env.ok());
  auto e2 = Pseudonymizer::Create("", kKey.c_str(), 8);
  ASSERT_TRUE(e2.ok());
  EXPECT_EQ(e2->source(), KeySource::kEnvironment);
  EXPECT_EQ(e2->Token("user", "alice"),
            Pseudonymizer(kKey, KeySource::kFile, 8).Token("user", "alice"));
}

TEST(StringRedactor, CountsPerRule) {
  RuleSet rules = Shipped();
  Pseudonymizer p(kKey, KeySource::kFile, 8);
  StringRedactor r(rules, p);
  Redact(r, "ping 10.0.0.1 and 10.0.0.2 and 10.0.0.1");
  Redact(r, "ping 10.0.0.1 and 10.0.0.2 and 10.0.0.1");  // memoised: counted again
  Redact(r, "mail jane@corp.example.com");
  Redact(r, "nothing here");
  const RedactionCounts& c = r.counts();
  EXPECT_EQ(c.rules[RuleIndex(rules, "ipv4")].matches, 6);
  EXPECT_EQ(c.rules[RuleIndex(rules, "ipv4")].distinct.size(), 2u);
  EXPECT_EQ(c.rules[RuleIndex(rules, "email")].matches, 1);
  EXPECT_EQ(c.rules[RuleIndex(rules, "hostname")].matches, 0);  // the e-mail took the domain
  EXPECT_EQ(c.strings, 4);
  EXPECT_EQ(c.strings_changed, 3);
  // A dry run (count=false) answers the same and counts nothing.
  std::string out;
  EXPECT_TRUE(r.Apply("10.9.9.9", -1, &out, false));
  EXPECT_EQ(c.rules[RuleIndex(rules, "ipv4")].matches, 6);
}

TEST(StringRedactor, FieldRules) {
  RuleSet rules = Shipped();
  Pseudonymizer p(kKey, KeySource::kFile, 8);
  StringRedactor r(rules, p);
  int user = rules.FieldRuleFor("username");
  EXPECT_EQ(Redact(r, "fenypatel", user), p.Token("user", "fenypatel"));
  rules.rules[static_cast<size_t>(user)].action = FieldAction::kDrop;
  StringRedactor dropper(rules, p);
  EXPECT_EQ(Redact(dropper, "fenypatel", user), "");
  EXPECT_EQ(dropper.counts().rules[static_cast<size_t>(user)].matches, 1);
  EXPECT_EQ(Redact(dropper, "", user), "");  // nothing to drop
  EXPECT_EQ(dropper.counts().rules[static_cast<size_t>(user)].matches, 1);
}

TEST(StringRedactor, IdempotentOnItsOwnOutput) {
  RuleSet rules = Shipped();
  rules.AddKnownHosts({"tw003"});
  Pseudonymizer p(kKey, KeySource::kFile, 8);
  StringRedactor r(rules, p);
  for (std::string s :
       {"/home/alice/x.py(1): f;/srv/a/b.py(2): g", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
        "jane@corp.example.com at 10.0.0.1 on tw003", "C:\\Users\\bob\\proj\\x.py",
        "token Xq3v9ZpL2mW8rT5kN1bY7cH4dJ6fG0sA2eQ9uR"}) {
    std::string once = Redact(r, s);
    EXPECT_NE(once, s);
    std::string out;
    EXPECT_FALSE(r.Apply(once, -1, &out)) << once << " -> " << out;
  }
}

TEST(StringRedactor, CodeNamesUnchanged) {
  RuleSet rules = Shipped();
  Pseudonymizer p(kKey, KeySource::kFile, 8);
  StringRedactor r(rules, p);
  for (const char* s :
       {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
        "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
        "at::detail::Array<char*, 3>)",
        "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
        "segment_k_off_kernel__5x_cublas",
        "aten::addmm", "[[32, 128], [128, 256], []]", "float", "ProfilerStep#3", "cuda:0",
        "torch/nn/modules/module.py(1501): _call_impl", "fusion.12", "%dot.3 = f32[8,8]{1,0}"}) {
    std::string out;
    EXPECT_FALSE(r.Apply(s, -1, &out)) << s << " -> " << out;
  }
}

TEST(StringRedactor, TokenCollisionsAreCounted) {
  RedactionCounts a, b;
  a.rules.resize(1);
  b.rules.resize(1);
  a.tokens["user-00000000"] = Digest{1, 2};
  b.tokens["user-00000000"] = Digest{3, 4};
  b.tokens["user-11111111"] = Digest{5, 6};
  a.Merge(b);
  EXPECT_EQ(a.collisions, 1);
}

}  // namespace
}  // namespace th::redact
