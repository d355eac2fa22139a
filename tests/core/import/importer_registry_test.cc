#include "core/import/importer_registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "core/import/kineto/kineto_importer.h"
#include "core/import/trace_loader.h"
#include "core/synth/kineto_generator.h"
#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th {
namespace {

std::string KinetoTrace(int rank, int64_t* events = nullptr) {
  synth::Scenario s;
  s.ranks = 1;
  s.steps = 2;
  std::ostringstream out;
  synth::Manifest manifest;
  EXPECT_TRUE(synth::WriteKinetoTrace(s, rank, out, &manifest).ok());
  if (events) *events = manifest.events;
  return out.str();
}

std::string SmallXSpace() {
  testing::XSpaceBuilder b;
  auto* host = b.AddPlane(0, "/host:CPU");
  auto* line = b.AddLine(host, 7, "python", 0);
  b.AddEvent(host, line, "step", 1000, 5000);
  b.AddEvent(host, line, "op", 2000, 1000);
  return b.Serialize();
}

ContentHead HeadOf(std::string bytes, bool gzip = false) {
  ContentHead head;
  head.gzip = gzip;
  head.complete = bytes.size() <= kContentHeadBytes;
  head.decoded = bytes.substr(0, kContentHeadBytes);
  head.stored = head.decoded;
  return head;
}

std::string FormatOf(const std::string& name, const std::string& bytes) {
  const Importer* importer = Registry().Find(name, HeadOf(bytes));
  return importer ? std::string(importer->name()) : "none";
}

TEST(ImporterRegistry, SniffsEachFormatByContentWhateverTheName) {
  EXPECT_EQ(FormatOf("x", KinetoTrace(0)), "chrome_json");
  EXPECT_EQ(FormatOf("x.xplane.pb", "  \n" + KinetoTrace(0)), "chrome_json");
  EXPECT_EQ(FormatOf("x", R"([{"ph": "X", "name": "k", "ts": 1, "dur": 2}])"), "chrome_json");
  EXPECT_EQ(FormatOf("x", R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true}})"),
            "chrome_json");
  EXPECT_EQ(FormatOf("x", SmallXSpace()), "xspace");
  EXPECT_EQ(FormatOf("x.json", SmallXSpace()), "xspace");
  // Not a trace: no format claims it unless the name hints at one.
  EXPECT_EQ(FormatOf("notes.txt", "not a trace"), "none");
  EXPECT_EQ(FormatOf("junk.json", "\xff\xfe not a trace"), "chrome_json");
  EXPECT_EQ(FormatOf("empty", ""), "none");
}

// Every capture in ../shared/data is found by its content alone.
TEST(ImporterRegistry, SharedDataFilesAreSniffedByContent) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  int checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(data)) {
    if (!entry.is_regular_file()) continue;
    std::string path = entry.path().string();
    std::string want;
    if (path.ends_with(".xplane.pb")) want = "xspace";
    if (path.ends_with(".json") || path.ends_with(".json.gz")) want = "chrome_json";
    if (want.empty()) continue;
    auto head = ReadContentHead(path);
    ASSERT_TRUE(head.ok()) << head.status().message();
    if (head->decoded.empty()) continue;  // an empty file: decided by its name only
    const Importer* importer = Registry().Find("unnamed", *head);
    ASSERT_NE(importer, nullptr) << path;
    EXPECT_EQ(importer->name(), want) << path;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(ImporterRegistry, AnHloSideFileIsNotAnXSpaceCapture) {
  // HloProto { hlo_module (1) { name (1): "jit_f" } }: field 1 of the module
  // is length-delimited, which no XPlane's first field is.
  std::string module = std::string("\x0a\x05", 2) + "jit_f";
  std::string hlo = "\x0a" + std::string(1, static_cast<char>(module.size())) + module;
  EXPECT_EQ(FormatOf("jit_f.hlo_proto.pb", hlo), "none");
}

TEST(ImporterRegistry, DetectsGzipContentAndArchivesOfFiles) {
  std::string gz = testing::WriteTempFile("detect/trace", testing::Gzip(KinetoTrace(0)));
  Detection d = Registry().Detect(gz);
  ASSERT_EQ(d.kind, Detection::Kind::kFormat);
  EXPECT_EQ(d.importer->name(), "chrome_json");
  EXPECT_TRUE(d.head.gzip);
  std::string xplane = testing::WriteTempFile("detect/host.bin", SmallXSpace());
  EXPECT_EQ(Registry().Detect(xplane).importer->name(), "xspace");
  std::string text = testing::WriteTempFile("detect/notes", "plain words");
  EXPECT_EQ(Registry().Detect(text).kind, Detection::Kind::kUnknown);
  EXPECT_FALSE(Registry().IsTraceCandidate(text));
  EXPECT_TRUE(Registry().IsTraceCandidate(gz));
}

TEST(ImporterRegistry, EstimatesEventsByDetectedFormat) {
  std::string json = KinetoTrace(0);
  std::string plain = testing::WriteTempFile("estimate/a", json);
  EXPECT_EQ(Registry().EstimatedEvents(plain, json.size()), json.size() / 250);
  std::string gz_bytes = testing::Gzip(json);
  std::string gz = testing::WriteTempFile("estimate/b", gz_bytes);
  EXPECT_EQ(Registry().EstimatedEvents(gz, gz_bytes.size()), json.size() / 250);
  std::string xspace = SmallXSpace();
  std::string xplane = testing::WriteTempFile("estimate/c", xspace);
  EXPECT_EQ(Registry().EstimatedEvents(xplane, xspace.size()), xspace.size() / 30);
}

TEST(ImporterRegistry, UnknownFileErrorNamesTheFileAndItsFirstBytes) {
  std::string path = testing::WriteTempFile("unknown/capture.dat", "PROF\x01\x02 binary stuff");
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().message(),
            path +
                ": not a trace format tracehound reads (Kineto/Chrome JSON, XProf trace.json.gz, "
                "XSpace .xplane.pb, or a tar/zip of them); the content starts with "
                "'PROF\\x01\\x02 binary st'...");
  std::string gz = testing::WriteTempFile("unknown/capture2.dat", testing::Gzip("hello"));
  auto set2 = LoadTraceSet({gz}, LoadOptions{});
  ASSERT_FALSE(set2.ok());
  EXPECT_NE(set2.status().message().find("gzip data whose content starts with 'hello'"),
            std::string::npos)
      << set2.status().message();
}

TEST(ImporterRegistry, UnknownFileHeadIsShownOnOneLineAsAscii) {
  // A binary head: its newline and a byte pair that happens to be valid
  // UTF-8 ("\xc2\xb0", a degree sign) are shown as bytes, not as text.
  std::string path = testing::WriteTempFile("unknown/binary.bin", std::string("\n\xc2\xb0\x02"
                                                                              "ab",
                                                                              6));
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_FALSE(set.ok());
  const std::string& m = set.status().message();
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_TRUE(m.ends_with("the content starts with '\\x0a\\xc2\\xb0\\x02ab'")) << m;
}

TEST(ImporterRegistry, AnHloProtoAloneIsNamedAndPointsToItsCapture) {
  // The first bytes of an HloProto: field 1 (hlo_module), length 7, then the
  // module's name. Not a trace: the error says what it is and what to pass.
  std::string path =
      testing::WriteTempFile("hlo/jit_f(1).hlo_proto.pb", std::string("\x0a\x07\x0a\x05jit_f", 9));
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().message(),
            path +
                ": an HLO module proto (a compiled XLA program), not a trace; tracehound reads it "
                "with the XSpace capture it was written beside: pass that .xplane.pb or its "
                "folder");
}

TEST(ImporterRegistry, RefusesAFormatNameTwice) {
  ImporterRegistry registry;
  RegisterBuiltinFormats(&registry);
  EXPECT_EQ(registry.importers().size(), 2u);
  auto again = Registry().FindByFormat("chrome_json");
  ASSERT_NE(again, nullptr);
  class Same final : public Importer {
   public:
    std::string_view name() const override { return "xspace"; }
    std::vector<std::string_view> name_hints() const override { return {}; }
    bool Sniff(const ContentHead&) const override { return false; }
    StatusOr<TraceList> ImportFile(const std::string&,
                                   const kineto::ImportOptions&) const override {
      return TraceList{};
    }
    StatusOr<TraceList> ImportStream(std::unique_ptr<ByteSource>,
                                     const kineto::ImportOptions&) const override {
      return TraceList{};
    }
    uint64_t EstimatedEvents(uint64_t) const override { return 0; }
  };
  Status s = registry.Register(std::make_unique<Same>());
  EXPECT_EQ(s.message(), "trace format 'xspace' registered twice");
}

// A made-up format, "TINYTRACE" text with one "name start_us duration_us"
// line per kernel, added through the registry alone.
class TinyTraceImporter final : public Importer {
 public:
  std::string_view name() const override { return "tinytrace"; }
  std::vector<std::string_view> name_hints() const override { return {".tiny"}; }
  bool Sniff(const ContentHead& head) const override {
    return head.decoded.starts_with("TINYTRACE\n");
  }
  StatusOr<TraceList> ImportFile(const std::string& path,
                                 const kineto::ImportOptions& options) const override {
    auto raw = OpenFileSource(path);
    if (!raw.ok()) return raw.status();
    auto decoded = OpenDecoded(std::move(*raw));
    if (!decoded.ok()) return decoded.status();
    return ImportStream(std::move(*decoded), options);
  }
  StatusOr<TraceList> ImportStream(std::unique_ptr<ByteSource> decoded,
                                   const kineto::ImportOptions& options) const override {
    auto text = ReadAll(*decoded);
    if (!text.ok()) return text.status();
    std::istringstream in(text->substr(10));
    std::string json = R"({"traceEvents": [)";
    std::string name;
    int64_t ts = 0, dur = 0;
    for (int n = 0; in >> name >> ts >> dur; ++n) {
      json += (n ? "," : "") + std::string(R"({"ph": "X", "cat": "kernel", "name": ")") + name +
              R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(ts) +
              ", \"dur\": " + std::to_string(dur) + "}";
    }
    json += "]}";
    auto source = MakeMemorySource(decoded->name(), std::move(json));
    auto trace = kineto::ImportKinetoJson(*source, options);
    if (!trace.ok()) return trace.status();
    (*trace)->info.format = "tinytrace";
    TraceList traces;
    traces.push_back(std::move(*trace));
    return traces;
  }
  uint64_t EstimatedEvents(uint64_t content_bytes) const override { return content_bytes / 20; }
};

TEST(ImporterRegistry, ANewFormatIsOneRegistration) {
  ASSERT_TRUE(Registry().Register(std::make_unique<TinyTraceImporter>()).ok());
  // Named without its hint, gzip'd: found by content, loaded by the loader.
  std::string path = testing::WriteTempFile("tiny/run_rank2",
                                            testing::Gzip("TINYTRACE\ngemm 10 5\nsoftmax 20 3\n"));
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->traces.size(), 1u);
  const Trace& t = *set->traces[0];
  EXPECT_EQ(t.info.format, "tinytrace");
  EXPECT_EQ(t.info.rank, 2);
  ASSERT_EQ(t.graph.events.size(), 2u);
  EXPECT_EQ(t.graph.events.dur[1], 3000);
  // A directory walk takes it too.
  testing::WriteTempFile("tiny_dir/b.tiny", "TINYTRACE\nk 1 1\n");
  auto dir = LoadTraceSet({testing::TempDir() + "/tiny_dir"}, LoadOptions{});
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  EXPECT_EQ(dir->traces.size(), 1u);
}

}  // namespace
}  // namespace th
