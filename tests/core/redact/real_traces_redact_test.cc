// Every trace of ../shared/data the real-trace tests list (the files with an
// oracle in expected/: Kineto JSON, the 8-rank DLRM archive, the XSpace
// captures with their HLO side files), redacted with the shipped rules, then
// analysed with the default pipeline (in process), original and redacted:
// the report JSON must be the same (findings, metrics, checks, tables,
// trust) except for strings, which must equal the original's with the same
// rules and key applied ("modulo replaced names"); numbers identical.
// Skips with a message when ../shared/data is absent.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/import/common/archive_reader.h"
#include "core/import/common/byte_source.h"
#include "core/pipeline/pipeline_loader.h"
#include "core/pipeline/pipeline_runner.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "core/redact/redact_run.h"
#include "core/report/analysis_report.h"
#include "tests/support/test_files.h"

namespace th::redact {
namespace {

namespace fs = std::filesystem;

const std::string kKey = "real-traces-redaction-test-key-42";

struct Plugins {
  PluginRegistry registry;
  Pipeline pipeline;
};

const Plugins& DefaultPipeline() {
  static const Plugins* p = [] {
    SetPluginLogLevel(1);
    auto* out = new Plugins;
    Status s = out->registry.LoadDirectories({TRACEHOUND_PLUGIN_DIR});
    EXPECT_TRUE(s.ok()) << s.message();
    auto pipeline = LoadPipeline(std::string(TRACEHOUND_SOURCE_DIR) + "/configs/default.yaml",
                                 out->registry.Declarations());
    EXPECT_TRUE(pipeline.ok()) << pipeline.status().message();
    if (pipeline.ok()) out->pipeline = std::move(*pipeline);
    return out;
  }();
  return *p;
}

// The analysis report of `input` as JSON text, or the error.
std::string Analyze(const std::string& input, bool* ok) {
  const Plugins& p = DefaultPipeline();
  auto run = RunPipeline(p.pipeline, p.registry, {input});
  *ok = run.ok();
  if (!run.ok()) return run.status().message();
  std::ostringstream out;
  WriteReportJson((*run)->report, out);
  return out.str();
}

// Walks two reports side by side.
class Comparer {
 public:
  Comparer(StringRedactor* redactor, std::vector<std::pair<std::string, std::string>> prefixes)
      : redactor_(redactor), prefixes_(std::move(prefixes)) {}

  void Compare(simdjson::dom::element a, simdjson::dom::element b, const std::string& path) {
    if (a.type() != b.type()) return Diff(path, "types differ");
    switch (a.type()) {
      case simdjson::dom::element_type::OBJECT: {
        simdjson::dom::object oa = a.get_object().value(), ob = b.get_object().value();
        std::set<std::string> keys_a, keys_b;
        for (auto [k, v] : oa) keys_a.insert(Redact(std::string(k)));
        for (auto [k, v] : ob) keys_b.insert(std::string(k));
        if (keys_a != keys_b) return Diff(path, "keys differ");
        for (auto [k, v] : oa) {
          std::string key(k);
          if (key.ends_with("seconds") || (key == "path" && path.find("/traces") == 0) ||
              key == "pipeline")
            continue;
          Compare(v, ob[Redact(key)].value(), path + "/" + key);
        }
        return;
      }
      case simdjson::dom::element_type::ARRAY: {
        simdjson::dom::array xa = a.get_array().value(), xb = b.get_array().value();
        if (xa.size() != xb.size()) return Diff(path, "array lengths differ");
        size_t i = 0;
        auto ib = xb.begin();
        for (simdjson::dom::element v : xa) {
          Compare(v, *ib, path + "/" + std::to_string(i++));
          ++ib;
        }
        return;
      }
      case simdjson::dom::element_type::STRING: {
        ++strings_;
        std::string sa(a.get_string().value()), sb(b.get_string().value());
        if (sa == sb) return;
        ++redacted_;
        if (Redact(Normal(sa)) == Normal(sb)) return;
        return Diff(path, "\"" + sa.substr(0, 120) + "\" vs \"" + sb.substr(0, 120) + "\"");
      }
      case simdjson::dom::element_type::INT64:
        if (a.get_int64().value() != b.get_int64().value()) Diff(path, "numbers differ");
        return;
      case simdjson::dom::element_type::UINT64:
        if (a.get_uint64().value() != b.get_uint64().value()) Diff(path, "numbers differ");
        return;
      case simdjson::dom::element_type::DOUBLE:
        if (a.get_double().value() != b.get_double().value()) Diff(path, "numbers differ");
        return;
      case simdjson::dom::element_type::BOOL:
        if (a.get_bool().value() != b.get_bool().value()) Diff(path, "booleans differ");
        return;
      case simdjson::dom::element_type::NULL_VALUE:
        return;
    }
  }
  const std::vector<std::string>& diffs() const { return diffs_; }
  int64_t strings() const { return strings_; }
  int64_t redacted() const { return redacted_; }

 private:
  std::string Redact(const std::string& s) {
    std::string out;
    return redactor_->Apply(s, -1, &out, false) ? out : s;
  }
  // The input and output folders differ by construction: both become <dir>.
  std::string Normal(std::string s) const {
    for (const auto& [from, to] : prefixes_) {
      for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
    }
    return s;
  }
  void Diff(const std::string& path, const std::string& what) {
    if (diffs_.size() < 20) diffs_.push_back(path + ": " + what);
  }
  StringRedactor* redactor_;
  std::vector<std::pair<std::string, std::string>> prefixes_;
  std::vector<std::string> diffs_;
  int64_t strings_ = 0, redacted_ = 0;
};

struct Case {
  std::string rel;  // under ../shared/data
  bool directory;   // an XSpace: its folder (the HLO side files come along)
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.rel; }

std::vector<Case> Cases() {
  std::vector<Case> out;
  for (const char* suffix : {".json.gz", ".json", ".tar.gz"})
    for (const std::string& rel : testing::FilesWithOracle(suffix)) out.push_back({rel, false});
  for (const std::string& rel : testing::FilesWithOracle(".xplane.pb")) out.push_back({rel, true});
  return out;
}

// User and host names the real traces hold (in paths, metadata, file
// names): none may be left in any redacted output.
const std::vector<std::string>& KnownOriginals() {
  static const std::vector<std::string> names = {
      "/home/yangu/",    "/private/home/anupamb",   "/home/ajassani/", "fenypatel",
      "devgpu109",       "twshared38393",           "chi-mi300x-013",  "vultr.cpe.ice.amd.com",
      "/workspace/",     "torchinductor_bcoutinho", "tw003",           "934987a2fc2f",
      "/zhang-x3/users", "feed_ranking_infra",      "/app/xDiT/"};
  return names;
}

// The decompressed bytes of every file under `dir` (archive members too).
std::string AllBytes(const std::string& dir) {
  std::string out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::string p = e.path().string();
    auto add = [&](std::unique_ptr<ByteSource> src) -> Status {
      auto text = OpenDecoded(std::move(src));
      if (!text.ok()) return text.status();
      auto all = ReadAll(**text);
      if (!all.ok()) return all.status();
      out += *all;
      return Ok();
    };
    Status s = p.ends_with(".tar.gz")
                   ? ForEachArchiveMember(p,
                                          [&](const std::string&, std::unique_ptr<ByteSource> src) {
                                            return add(std::move(src));
                                          })
                   : add(OpenFileSource(p).value());
    EXPECT_TRUE(s.ok()) << s.message();
  }
  return out;
}

// Trace Event Format fields per event, counted: events, events without
// "ph", timed events (X B E i I C s t f b e n) without "ts" or "pid", and
// without "name". Fails the test when the text is not strict JSON.
std::vector<int64_t> EventFields(const std::string& path) {
  auto raw = OpenFileSource(path);
  EXPECT_TRUE(raw.ok());
  auto text = OpenDecoded(std::move(*raw));
  std::string json = ReadAll(**text).value();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  auto error = parser.parse(json).get(doc);
  EXPECT_EQ(error, simdjson::SUCCESS) << path << ": not strict JSON";
  std::vector<int64_t> n(4, 0);
  if (error) return n;
  simdjson::dom::array events;
  if (doc.is_array()) {
    events = doc.get_array().value();
  } else if (doc["traceEvents"].get_array().get(events)) {
    return n;
  }
  for (simdjson::dom::element e : events) {
    ++n[0];
    std::string_view ph;
    if (e["ph"].get_string().get(ph)) {
      ++n[1];
      continue;
    }
    if (ph.size() == 1 && std::string_view("XBEiICstfben").find(ph[0]) != std::string_view::npos &&
        (e["ts"].error() || e["pid"].error()))
      ++n[2];
    if (e["name"].error()) ++n[3];
  }
  return n;
}

class RealTraceRedaction : public ::testing::TestWithParam<Case> {};

TEST_P(RealTraceRedaction, AnalysisIsTheSameModuloReplacedNames) {
  const Case& c = GetParam();
  const std::string data = testing::SharedDataDir();
  const std::string input = data + "/" + c.rel;
  const std::string source = c.directory ? fs::path(input).parent_path().string() : input;
  const std::string out = testing::TempDir() + "/real_" + testing::ParamName(c.rel);
  auto rules = LoadRules(std::string(TRACEHOUND_SOURCE_DIR) + "/configs/redact.yaml");
  ASSERT_TRUE(rules.ok());
  Pseudonymizer key(kKey, KeySource::kFile, rules->pseudonym_digits);
  RedactOptions o;
  o.inputs = {source};
  o.output_dir = out;
  auto report = RunRedaction(o, std::move(*rules), key);
  ASSERT_TRUE(report.ok()) << report.status().message();
  int64_t replaced = 0;
  for (const RuleCount& rc : report->counts.rules) replaced += rc.matches;
  const std::string bytes = AllBytes(out);
  for (const std::string& name : KnownOriginals())
    EXPECT_EQ(bytes.find(name), std::string::npos) << name << " survived in " << c.rel;
  // Output file names too.
  for (const auto& e : fs::recursive_directory_iterator(out))
    for (const std::string& name :
         {std::string("tw003"), std::string("934987a2fc2f"), std::string("chi-mi300x-013")})
      EXPECT_EQ(e.path().string().find(name, out.size()), std::string::npos) << e.path();

  // The redacted copy of the input: the same name under OUT, or the folder.
  StringRedactor names(report->rules, key);
  std::string redacted = out;
  if (!c.directory) {
    std::string name = fs::path(input).filename().string(), renamed;
    redacted += "/" + (names.Apply(name, -1, &renamed, false) ? renamed : name);
  }
  // The copy is strict JSON with the same Trace Event Format fields.
  if (!c.directory && !c.rel.ends_with(".tar.gz")) {
    EXPECT_EQ(EventFields(input), EventFields(redacted)) << c.rel;
  }
  bool ok_a = false, ok_b = false;
  std::string a = Analyze(c.directory ? source : input, &ok_a);
  std::string b = Analyze(redacted, &ok_b);
  ASSERT_EQ(ok_a, ok_b) << a << "\n" << b;
  if (!ok_a) {
    // Not a trace (an execution trace): both refused the same way.
    EXPECT_EQ(a.substr(a.find(':')), b.substr(b.find(':')));
    std::cout << "[ redact    ] " << c.rel << ": not a trace, refused alike; " << replaced
              << " replacements\n";
    return;
  }
  simdjson::dom::parser pa, pb;
  simdjson::dom::element ja, jb;
  ASSERT_EQ(pa.parse(a).get(ja), simdjson::SUCCESS);
  ASSERT_EQ(pb.parse(b).get(jb), simdjson::SUCCESS);
  StringRedactor redactor(report->rules, key);
  std::string in_dir = c.directory ? source : fs::path(input).parent_path().string();
  Comparer cmp(&redactor, {{in_dir, "<dir>"}, {out, "<dir>"}});
  cmp.Compare(ja, jb, "");
  std::string diffs;
  for (const std::string& d : cmp.diffs()) diffs += "\n  " + d;
  EXPECT_TRUE(cmp.diffs().empty()) << c.rel << ":" << diffs;
  std::cout << "[ redact    ] " << c.rel << ": " << replaced << " replacements; report "
            << (cmp.diffs().empty() ? "identical" : "DIFFERS") << " modulo names (" << cmp.strings()
            << " strings, " << cmp.redacted() << " differ only by pseudonyms)\n";
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return testing::ParamName(info.param.rel);
}

INSTANTIATE_TEST_SUITE_P(SharedData, RealTraceRedaction, ::testing::ValuesIn(Cases()), CaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RealTraceRedaction);

TEST(RealTraceRedaction, SharedDataPresent) {
  if (testing::SharedDataDir().empty())
    GTEST_SKIP() << "../shared/data is absent: real-trace redaction tests skipped";
  EXPECT_GE(Cases().size(), 45u);
}

// The 8 ranks of the DLRM archive: one pseudonym per original, whatever the
// rank. The shipped rules find nothing to replace in it (no paths, hosts or
// users), so a rule for its own labels is added: the "## name ##" user
// annotations and the thread names every rank has.
TEST(RealTraceRedaction, DlrmPseudonymsAreStableAcrossRanks) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: DLRM redaction test skipped";
  const std::string input = data + "/param/et_replay/tests/data/dlrm_kineto.tar.gz";
  auto rules = ParseRules(
      testing::ReadFile(std::string(TRACEHOUND_SOURCE_DIR) + "/configs/redact.yaml") +
          "  - {id: labels, kind: regex, class: label, pattern: '^## (?P<value>.+) ##$'}\n"
          "  - {id: threads, kind: regex, class: thread, pattern: '^thread \\d+ "
          "\\((?P<value>[^)]+)\\)$'}\n",
      "redact.yaml + labels");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  Pseudonymizer key(kKey, KeySource::kFile, rules->pseudonym_digits);
  RedactOptions o;
  o.inputs = {input};
  o.output_dir = testing::TempDir() + "/dlrm";
  auto report = RunRedaction(o, std::move(*rules), key);
  ASSERT_TRUE(report.ok()) << report.status().message();

  // Member name -> the strings of its traceEvents, in order.
  auto strings = [](const std::string& archive) {
    std::map<std::string, std::vector<std::string>> out;
    Status s =
        ForEachArchiveMember(archive, [&](const std::string& m, std::unique_ptr<ByteSource> src) {
          auto text = OpenDecoded(std::move(src));
          if (!text.ok()) return text.status();
          auto all = ReadAll(**text);
          if (!all.ok()) return all.status();
          simdjson::dom::parser parser;
          simdjson::dom::element doc;
          if (parser.parse(*all).get(doc)) return InvalidInput(m + ": not strict JSON");
          auto& list = out[m];
          simdjson::dom::array events = doc["traceEvents"].get_array().value();
          for (simdjson::dom::element ev : events) {
            std::string_view name;
            list.emplace_back(ev["name"].get_string().get(name) ? "" : std::string(name));
            std::string_view thread;
            list.emplace_back(
                ev.at_pointer("/args/name").get_string().get(thread) ? "" : std::string(thread));
          }
          return Ok();
        });
    EXPECT_TRUE(s.ok()) << s.message();
    return out;
  };
  auto before = strings(input);
  auto after = strings(o.output_dir + "/dlrm_kineto.tar.gz");
  ASSERT_EQ(before.size(), 8u);
  ASSERT_EQ(after.size(), 8u);                         // member names have nothing to replace
  std::map<std::string, std::string> token_of;         // original -> pseudonymised text
  std::map<std::string, std::set<std::string>> ranks;  // original -> members it was in
  int64_t changed = 0;
  for (const auto& [member, list] : before) {
    ASSERT_TRUE(after.count(member)) << member;
    const auto& red = after.at(member);
    ASSERT_EQ(list.size(), red.size()) << member;
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i] == red[i]) continue;
      ++changed;
      auto [it, inserted] = token_of.emplace(list[i], red[i]);
      EXPECT_EQ(it->second, red[i]) << "two pseudonyms for one original in " << member;
      ranks[list[i]].insert(member);
    }
  }
  ASSERT_GT(changed, 100);
  int in_all_ranks = 0;
  std::set<std::string> tokens;
  for (const auto& [original, red] : token_of) {
    tokens.insert(red);
    in_all_ranks += ranks[original].size() == 8;
  }
  EXPECT_EQ(tokens.size(), token_of.size());  // no two originals share a pseudonym
  EXPECT_GE(in_all_ranks, 3);                 // labels every rank has, replaced alike
  std::cout << "[ redact    ] dlrm: " << changed << " strings replaced, " << token_of.size()
            << " distinct originals, " << in_all_ranks
            << " of them in all 8 ranks, one pseudonym each\n";
}

}  // namespace
}  // namespace th::redact
