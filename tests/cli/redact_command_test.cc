// `tracehound redact` as a user runs it: exit status, messages, what is (and
// is never) written, keys that make pseudonyms stable across runs.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <string>

#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::Tracehound;

std::string Trace(int rank) {
  std::string events;
  for (int i = 0; i < 4; ++i) {
    if (i) events += ",";
    events += R"({"ph":"X","cat":"python_function","name":"/home/alice/proj/a.py()" +
              std::to_string(i) + R"(): f","pid":1,"tid":1,"ts":)" + std::to_string(100 * i) +
              R"(,"dur":50},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" +
              std::to_string(100 * i + 10) + R"(,"dur":5,"args":{"device":0,"stream":7}})";
  }
  return R"({"distributedInfo":{"rank":)" + std::to_string(rank) +
         R"(},"host_name":"n1.corp.example.com","traceEvents":[)" + events + "]}";
}

std::string Dir(const std::string& name) {
  std::string d = testing::TempDir() + "/" + name;
  fs::create_directories(d);
  return d;
}

std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RedactCommand, WritesRedactedCopiesAndAReport) {
  std::string in = Dir("redact_ok_in");
  testing::WriteTempFile("redact_ok_in/rank0.json", Trace(0));
  testing::WriteTempFile("redact_ok_in/rank1.json.gz", testing::Gzip(Trace(1)));
  std::string out = testing::TempDir() + "/redact_ok_out";
  CommandResult r = Tracehound("redact " + in + " -o " + out);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("redacted 2 files (2 json)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("home-user"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("key: random"), std::string::npos) << r.out;
  EXPECT_EQ(Listing(out),
            (std::vector<std::string>{"rank0.json", "rank1.json.gz", "redaction-report.json"}));
  std::string all =
      testing::ReadFile(out + "/rank0.json") + testing::ReadFile(out + "/redaction-report.json");
  EXPECT_EQ(all.find("alice"), std::string::npos);
  EXPECT_EQ(all.find("corp.example.com"), std::string::npos);
  simdjson::dom::parser parser;
  simdjson::dom::element report;
  ASSERT_EQ(parser.load(out + "/redaction-report.json").get(report), simdjson::SUCCESS);
  EXPECT_EQ(report.at_pointer("/totals/files").get_int64().value(), 2);
  EXPECT_EQ(report.at_pointer("/key/source").get_string().value(), "random");
  // The redacted folder analyses like the original (the report is not read).
  CommandResult info = Tracehound("info " + out);
  EXPECT_EQ(info.status, 0) << info.out;
  EXPECT_NE(info.out.find("2 ranks"), std::string::npos) << info.out;
  EXPECT_EQ(info.out.find("redaction-report"), std::string::npos) << info.out;
}

TEST(RedactCommand, BadInputFailsWholeAndWritesNothing) {
  std::string in = Dir("redact_bad_in");
  testing::WriteTempFile("redact_bad_in/good.json", Trace(0));
  std::string gz = testing::Gzip(Trace(1));
  testing::WriteTempFile("redact_bad_in/truncated.json.gz", gz.substr(0, gz.size() / 2));
  std::string out = testing::TempDir() + "/redact_bad_out";
  CommandResult r = Tracehound("redact " + in + " -o " + out);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("tracehound: error: " + in + "/truncated.json.gz: truncated gzip stream"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("compressed offset"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_TRUE(Listing(out).empty()) << "written: " << (Listing(out).empty() ? "" : Listing(out)[0]);

  testing::WriteTempFile("redact_bad2/broken.json", R"({"traceEvents": [{"ph": "X", "ts": 1,}]})");
  r = Tracehound("redact " + testing::TempDir() + "/redact_bad2/broken.json -o " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("broken.json: invalid JSON at text offset 37: a ',' before '}'"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(Listing(out).empty());

  // A damaged XSpace: the strict reader's message and offset.
  testing::WriteTempFile("redact_bad2/host.xplane.pb", std::string("\x0a\xff\xff\xff\x7f\x01", 6));
  r = Tracehound("redact " + testing::TempDir() + "/redact_bad2/host.xplane.pb -o " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(
      r.out.find("host.xplane.pb: length 268435455 of field 1 (tag at offset 0) runs past the "
                 "end of its enclosing message (1 bytes left) at byte offset 1 (in XSpace)"),
      std::string::npos)
      << r.out;
  EXPECT_TRUE(Listing(out).empty());

  testing::WriteTempFile("redact_bad2/notes.txt", "hello");
  r = Tracehound("redact " + testing::TempDir() + "/redact_bad2/notes.txt -o " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("notes.txt: not a format tracehound redact reads"), std::string::npos)
      << r.out;

  testing::WriteTempFile("redact_bad2/rules.yaml",
                         "version: 1\nrules:\n  - {id: a, kind: bogus}\n");
  r = Tracehound("redact " + in + "/good.json -o " + out + " --rules " + testing::TempDir() +
                 "/redact_bad2/rules.yaml");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("rules.yaml:3:19: unknown rule kind 'bogus'"), std::string::npos) << r.out;
}

TEST(RedactCommand, NeverOverwritesAnInput) {
  std::string in = Dir("redact_self");
  testing::WriteTempFile("redact_self/rank0.json", Trace(0));
  const std::string before = testing::ReadFile(in + "/rank0.json");
  CommandResult r = Tracehound("redact " + in + " -o " + in);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("rank0.json: the output would overwrite an input"), std::string::npos)
      << r.out;
  EXPECT_EQ(testing::ReadFile(in + "/rank0.json"), before);
  EXPECT_EQ(Listing(in), std::vector<std::string>{"rank0.json"});
  // Two inputs with one output name.
  std::string a = Dir("redact_two/a"), b = Dir("redact_two/b");
  testing::WriteTempFile("redact_two/a/rank0.json", Trace(0));
  testing::WriteTempFile("redact_two/b/rank0.json", Trace(1));
  r = Tracehound("redact " + a + "/rank0.json " + b + "/rank0.json -o " + testing::TempDir() +
                 "/redact_two/out");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("would both be written to"), std::string::npos) << r.out;
}

TEST(RedactCommand, KeysMakePseudonymsStableAcrossRuns) {
  std::string in = Dir("redact_keys");
  testing::WriteTempFile("redact_keys/rank0.json", Trace(0));
  std::string key = testing::WriteTempFile("redact_keys.key", "a-key-of-more-than-16-bytes\n");
  auto run = [&](const std::string& name, const std::string& args, const std::string& env = "") {
    std::string out = testing::TempDir() + "/" + name;
    CommandResult r = Tracehound("redact " + in + " -o " + out + " " + args, env);
    EXPECT_EQ(r.status, 0) << r.out;
    return testing::ReadFile(out + "/rank0.json");
  };
  std::string k1 = run("redact_k1", "--key-file " + key);
  std::string k2 = run("redact_k2", "--key-file " + key);
  std::string env = run("redact_k3", "", "TRACEHOUND_REDACT_KEY=a-key-of-more-than-16-bytes");
  std::string r1 = run("redact_r1", ""), r2 = run("redact_r2", "");
  EXPECT_EQ(k1, k2);
  EXPECT_EQ(k1, env);  // the file's trailing newline is no part of the key
  EXPECT_NE(r1, r2);
  EXPECT_NE(k1, r1);
  EXPECT_EQ(k1.size(), r1.size());  // same shapes, other tokens
  CommandResult bad = Tracehound("redact " + in + " -o " + testing::TempDir() + "/redact_k4",
                                 "TRACEHOUND_REDACT_KEY=short");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("TRACEHOUND_REDACT_KEY must be at least 16 bytes"), std::string::npos);
}

}  // namespace
}  // namespace th
