// Reading rules files: the shipped defaults, and errors that name the file,
// line and column.
#include "core/redact/redact_rules.h"

#include <gtest/gtest.h>

#include <chrono>

#include "tests/support/test_files.h"

namespace th::redact {
namespace {

std::string Message(const std::string& yaml) {
  auto r = ParseRules(yaml, "rules.yaml");
  return r.ok() ? "" : r.status().message();
}

TEST(RedactRules, ShippedDefaultsLoad) {
  auto r = LoadRules(std::string(TRACEHOUND_SOURCE_DIR) + "/configs/redact.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<std::string> ids;
  for (const Rule& rule : r->rules) ids.push_back(rule.id);
  EXPECT_EQ(
      ids, (std::vector<std::string>{
               "private-key", "jwt", "token-prefix", "user-fields", "host-fields", "free-text-args",
               "url-credentials", "email", "home-user", "private-path", "ipv4", "ipv6",
               "aws-internal-host", "hostname", "high-entropy", "high-entropy-hex"}));
  EXPECT_EQ(r->pseudonym_digits, 8);
  EXPECT_EQ(r->FieldRuleFor("host_name"), 4);
  EXPECT_EQ(r->FieldRuleFor("name"), -1);
  EXPECT_TRUE(r->keep_keys.count("ph"));
}

TEST(RedactRules, ErrorsNameFileLineAndColumn) {
  EXPECT_EQ(Message("version: 1\nrules:\n  - {id: a, kind: nope}\n"),
            "rules.yaml:3:19: unknown rule kind 'nope' (valid: private_key, jwt, token_prefix, "
            "email, ipv4, ipv6, hostname, home_user, path, entropy, regex, field)");
  EXPECT_EQ(Message("version: 1\nrules:\n  - id: a\n    kind: email\n    colour: red\n"),
            "rules.yaml:5:5: unknown key 'colour' in rule 'a' (kind email) (valid: id, kind, "
            "class, enabled)");
  EXPECT_EQ(Message("version: 1\nrules:\n  - {id: a, kind: regex, pattern: '(unclosed'}\n"),
            "rules.yaml:3:35: pattern does not compile (RE2 syntax): missing ): (unclosed");
  EXPECT_EQ(Message("version: 1\nrules:\n  - {id: a, kind: email}\n  - {id: a, kind: jwt}\n"),
            "rules.yaml:4:5: two rules have the id 'a'");
  EXPECT_EQ(Message("version: 1\nrules:\n  - {id: Bad_Id, kind: email}\n"),
            "rules.yaml:3:10: id 'Bad_Id' must be kebab-case (a-z, 0-9, '-')");
  EXPECT_EQ(
      Message("version: 1\nkeep_keys: [name]\nrules:\n  - {id: a, kind: field, keys: [name]}\n"),
      "rules.yaml:1:1: key 'name' is both kept and in a field rule");
  EXPECT_EQ(Message("version: 1\nrules:\n  - {id: a, kind: entropy, min_length: 3}\n"),
            "rules.yaml:3:40: min_length must be between 8 and 4096");
  EXPECT_EQ(Message("rules: []\n"), "rules.yaml:1:1: the rules file needs 'version: 1'");
  EXPECT_EQ(Message("version: 1\nrules: [\n"),
            "rules.yaml:3:1: invalid YAML: end of sequence flow not found");
  EXPECT_EQ(Message("version: 1\nrules:\n  - {id: a, kind: token_prefix, tokens: [{prefix: x, "
                    "chars: z-a}]}\n"),
            "rules.yaml:3:42: chars 'z-a' is not a range spec");
}

// Aliases are never expanded into structure: a value where a list of strings
// belongs is refused at once, whatever it would expand to.
TEST(RedactRules, AliasBombIsRefusedFast) {
  std::string yaml = "version: 1\na: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'h'; ++c) {
    yaml += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" +
            prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
            ", *" + prev + "]\n";
    prev = c;
  }
  yaml = "version: 1\nrules:\n  - id: f\n    kind: field\n    keys:\n" +
         yaml.substr(yaml.find('\n') + 1);
  // Indent the anchors into the keys list as its items.
  std::string indented;
  for (size_t at = 0; at < yaml.size();) {
    size_t nl = yaml.find('\n', at);
    std::string line = yaml.substr(at, nl - at);
    at = nl + 1;
    if (line.size() > 1 && line[1] == ':') line = "      - " + line.substr(3);
    indented += line + "\n";
  }
  auto start = std::chrono::steady_clock::now();
  std::string m = Message(indented);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(m, "rules.yaml:6:9: keys entry must be a string") << indented;
  EXPECT_LT(seconds, 1.0);
}

TEST(RedactRules, DisabledRulesAreListedNotApplied) {
  auto r = ParseRules(
      "version: 1\nrules:\n  - {id: a, kind: email, enabled: false}\n"
      "  - {id: b, kind: ipv4}\n",
      "x.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rules.size(), 1u);
  EXPECT_EQ(r->rules[0].id, "b");
  EXPECT_EQ(r->disabled, std::vector<std::string>{"a"});
}

TEST(RedactRules, KnownHostsAreAddedToHostnameRules) {
  auto r = ParseRules("version: 1\nrules:\n  - {id: h, kind: hostname, tlds: [com]}\n", "x.yaml");
  ASSERT_TRUE(r.ok());
  r->AddKnownHosts({"Node7", "a.b.example.com", "node7", "host-3f9a2c1b"});
  EXPECT_EQ(r->rules[0].hosts.known, (std::vector<std::string>{"a.b.example.com", "node7"}));
}

TEST(IsPlainValue, NumbersBooleansAndListsOfThemOnly) {
  for (const char* s :
       {"[14, 14]", "1e-05", "-3", "True", "None", "(1, 2)", "[[1, 2], [3]]", "0.5"})
    EXPECT_TRUE(IsPlainValue(s)) << s;
  for (const char* s : {"", "mean", "inf", "[alice]", "/home/alice", "1e", "[1, x]", "-", "same"})
    EXPECT_FALSE(IsPlainValue(s)) << s;
}

}  // namespace
}  // namespace th::redact
