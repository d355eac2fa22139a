// Malformed JSON inside traceEvents: every defect is an error naming the file
// and the text offset, or a counted trust entry; never fewer events than the
// text holds with no word said (hardening issue, Part A items 1 and 7).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/import/common/byte_source.h"
#include "core/import/kineto/chunk_parser.h"
#include "core/import/kineto/kineto_importer.h"
#include "tests/support/test_files.h"

namespace th::kineto {
namespace {

StatusOr<std::unique_ptr<Trace>> Import(const std::string& json, size_t chunk_bytes = 4096) {
  auto src = MakeMemorySource("fixture.json", json);
  ImportOptions opt;
  opt.chunk_bytes = chunk_bytes;
  return ImportKinetoJson(*src, opt);
}

std::string Event(int i, const std::string& args = R"({"a":1})") {
  return R"({"ph":"X","name":"k)" + std::to_string(i) + R"(","pid":1,"tid":1,"ts":)" +
         std::to_string(10 * i) + R"(,"dur":5,"args":)" + args + "}";
}

// Ten X events; `damaged` replaces event 2.
std::string TenEvents(const std::string& damaged = "") {
  std::string out = R"({"traceEvents":[)";
  for (int i = 0; i < 10; ++i) {
    if (i) out += ",";
    out += (i == 2 && !damaged.empty()) ? damaged : Event(i);
  }
  return out + "]}";
}

// The byte offset an error message names ("... text offset N: ...").
int64_t OffsetIn(const std::string& message) {
  size_t at = message.find("text offset ");
  if (at == std::string::npos) return -1;
  return std::stoll(message.substr(at + 12));
}

TEST(MalformedJson, ValidTenEventsImportWhole) {
  auto t = Import(TenEvents());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->graph.events.size(), 10u);
  EXPECT_TRUE((*t)->trust.empty());
}

// The defect found by fuzzing: a syntax error inside args dropped that event
// and every later one, with no error and no trust entry.
TEST(MalformedJson, SyntaxErrorInsideArgsIsAnErrorAtItsOffset) {
  struct Case {
    std::string args;
    std::string bad;  // the text the offset must point into
  };
  for (const Case& c : std::vector<Case>{{R"({"a":1,})", ",}"},
                                         {R"({"a":1 0})", "1 0"},
                                         {"{\"a\":1\x7f}", "1\x7f"},
                                         {std::string("{\"a\":1\0}", 8), std::string("1\0", 2)},
                                         {R"({"a":[1 2]})", "1 2"},
                                         {R"({"a":{"b":1,}})", ",}}"}}) {
    std::string text = TenEvents(Event(2, c.args));
    auto t = Import(text);
    ASSERT_FALSE(t.ok()) << "accepted args " << c.args << " with " << (*t)->graph.events.size()
                         << " events";
    const std::string& m = t.status().message();
    EXPECT_EQ(m.rfind("fixture.json: ", 0), 0u) << m;
    EXPECT_NE(m.find("element #2"), std::string::npos) << m;
    int64_t offset = OffsetIn(m);
    size_t bad = text.find(c.bad);
    ASSERT_NE(bad, std::string::npos);
    // Exact for a bad token; "near" (within the damaged span) for structure.
    EXPECT_GE(offset, static_cast<int64_t>(bad) - 2) << m;
    EXPECT_LE(offset, static_cast<int64_t>(bad + c.bad.size())) << m;
  }
}

TEST(MalformedJson, InvalidTokensAreRejectedWithTheirOffset) {
  struct Case {
    std::string damaged;
    std::string bad;
  };
  std::string e = Event(2);
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = e;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  for (const Case& c : std::vector<Case>{
           {replace("\"ts\":20", "\"ts\":.5"), ".5"},
           {replace("\"ts\":20", "\"ts\":+20"), "+20"},
           {replace("\"ts\":20", "\"ts\":020"), "020"},
           {replace("\"dur\":5", "\"dur\":5x"), "5x"},
           {Event(2, R"({"a":+1})"), "+1"},
           {Event(2, R"({"a":.5})"), ".5"},
           {Event(2, R"({"a":tru})"), "tru"},
           {replace("\"k2\"", "\"k\\q2\""), "\"k\\q2\""},
           {Event(2, R"({"a":"x\q"})"), "\"x\\q\""},
           {Event(2, R"({"a\q":1})"), "\"a\\q\""},
           {Event(2, R"({"a":"\ud800"})"), "\"\\ud800\""},
           {replace("\"name\"", "\"na\\qme\""), "\"na\\qme\""},
           {std::string("{\"ph\":\"X\",\"name\":\"k\x01\"}"), "\x01"},
       }) {
    std::string text = TenEvents(c.damaged);
    auto t = Import(text);
    ASSERT_FALSE(t.ok()) << "accepted " << c.damaged;
    const std::string& m = t.status().message();
    size_t bad = text.find(c.bad);
    ASSERT_NE(bad, std::string::npos) << c.bad;
    int64_t offset = OffsetIn(m);
    EXPECT_GE(offset, static_cast<int64_t>(bad) - 1) << m;
    EXPECT_LE(offset, static_cast<int64_t>(bad + c.bad.size())) << m;
  }
}

TEST(MalformedJson, CommentsAndStrayBytesBetweenEventsAreRejected) {
  for (const std::string& between :
       {std::string(" /* c */"), std::string(" // c\n"), std::string(" x"), std::string(" \x7f")}) {
    std::string text = TenEvents(Event(2) + between);
    auto t = Import(text);
    ASSERT_FALSE(t.ok()) << "accepted " << between;
    int64_t offset = OffsetIn(t.status().message());
    size_t at = text.find(between);
    EXPECT_GE(offset, static_cast<int64_t>(at) - 2) << t.status().message();
    EXPECT_LE(offset, static_cast<int64_t>(at + between.size())) << t.status().message();
  }
}

TEST(MalformedJson, NonFiniteNumbersAreAcceptedAndCountedAsDataLoss) {
  std::string e = Event(2, R"({"a":NaN,"b":[Infinity,-inf]})");
  auto t = Import(TenEvents(e));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->graph.events.size(), 10u);
  auto entries = (*t)->trust.Entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].id, TrustId::kNonFiniteNumber);
  EXPECT_EQ(entries[0].severity, Severity::kDataLoss);
  EXPECT_EQ(entries[0].count, 3);
  EXPECT_EQ(entries[0].example, "NaN");
  // In ts it is also an event without a valid time.
  std::string ts = Event(2);
  ts.replace(ts.find("\"ts\":20"), 7, "\"ts\":nan");
  auto u = Import(TenEvents(ts));
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ((*u)->trust.Count(TrustId::kEventWithoutValidTs), 1);
}

TEST(MalformedJson, UnusualButValidJsonIsAccepted) {
  std::string e =
      R"({"ph" : "X" , "name":"k\u00e9\ud83d\ude00\"q\"","pid":"1","tid":1,"ts":2e1,"dur":5.0,)"
      R"("id":"x","bp":"e","s":"t","extra":{"deep":[[[]],{},[null,true,false,-0.0,1E-2]]},)"
      R"("args":{"a":[1,{"b":null}],"s":"\/\b\f\n\r\t","grid":[1,2,3,4],"External id":"7",)"
      R"("k\"ey":1}})";
  auto t = Import(TenEvents(e));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->graph.events.size(), 10u);
  EXPECT_TRUE((*t)->trust.empty());
}

TEST(MalformedJson, NonObjectElementsAreCheckedToo) {
  auto ok = Import(R"({"traceEvents":[1, "s", null, [2, {"x":[]}], )" + Event(0) + "]}");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->get()->trust.Count(TrustId::kNonObjectEvent), 4);
  auto bad = Import(R"({"traceEvents":[[1 2], )" + Event(0) + "]}");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(OffsetIn(bad.status().message()), 19) << bad.status().message();
}

// Found by the kineto_json fuzzer: valid JSON of an unexpected type is a
// counted defect, never "malformed JSON".
TEST(MalformedJson, PhOfAnotherTypeIsAnUnknownPhaseNotAnError) {
  for (const char* ph : {"30", "null", "[1]", "{\"a\":1}", "true"}) {
    std::string e = Event(2);
    e.replace(e.find("\"X\""), 3, ph);
    auto t = Import(TenEvents(e));
    ASSERT_TRUE(t.ok()) << ph << ": " << t.status().message();
    EXPECT_EQ((*t)->graph.events.size(), 10u);
    EXPECT_EQ((*t)->trust.Count(TrustId::kUnknownPhase), 1) << ph;
  }
}

// Found by the kineto_json fuzzer under UBSan: a huge number where an integer
// is read (1e90 as a correlation id) made an undefined double-to-int64 cast.
TEST(MalformedJson, NumbersOutOfInt64RangeAreNotIds) {
  auto t =
      Import(TenEvents(Event(2, R"({"correlation":1e90,"External id":-1e300,"device":1e19})")));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->graph.events.size(), 10u);
  EXPECT_EQ((*t)->graph.events.correlation[2], kNoValue);
  EXPECT_EQ((*t)->graph.events.external_id[2], kNoValue);
}

TEST(MalformedJson, BrokenDevicePropertiesIsDataLossNamed) {
  std::string text = TenEvents();
  text.insert(1, R"("deviceProperties": [{"id": 0, "name": "H100",}], )");
  auto t = Import(text);
  ASSERT_TRUE(t.ok()) << t.status().message();
  auto entries = (*t)->trust.Entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].id, TrustId::kMalformedTopLevelValue);
  EXPECT_EQ(entries[0].severity, Severity::kDataLoss);
  EXPECT_EQ(entries[0].example, "deviceProperties");
}

// Every byte of every args object is damaged; under AddressSanitizer (the
// CI's sanitizer pass, ~30x slower) every third byte, each kind of damage
// still at thousands of positions.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kDamageStride = 3;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr size_t kDamageStride = 3;
#else
constexpr size_t kDamageStride = 1;
#endif
#else
constexpr size_t kDamageStride = 1;
#endif

// The acceptance test of the 39-mutant class: every byte inside every args
// object of a small real trace, damaged, gives an error with an offset or
// every event the undamaged text holds.
TEST(MalformedJson, EveryDamagedArgsByteOfARealTraceIsCaughtOrHarmless) {
  std::string dir = testing::SharedDataDir();
  if (dir.empty()) GTEST_SKIP() << "../shared/data absent: real-trace damage test skipped";
  std::string path = dir + "/hta/tests/data/critical_path/cuda_event_sync/event_sync_trace.json.gz";
  auto src = OpenFileSource(path);
  ASSERT_TRUE(src.ok()) << src.status().message();
  auto decoded = OpenDecoded(std::move(*src));
  ASSERT_TRUE(decoded.ok());
  std::string text;
  char buf[1 << 16];
  while (true) {
    auto got = (*decoded)->Read(buf, sizeof buf);
    ASSERT_TRUE(got.ok());
    if (*got == 0) break;
    text.append(buf, *got);
  }
  auto whole = Import(text);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  const size_t events = (*whole)->graph.events.size();
  ASSERT_GT(events, 50u);

  // The byte spans of every "args": {...} object (strings and nesting honoured).
  std::vector<std::pair<size_t, size_t>> spans;
  for (size_t at = text.find("\"args\""); at != std::string::npos;
       at = text.find("\"args\"", at + 1)) {
    size_t open = text.find('{', at);
    int depth = 0;
    bool in_string = false;
    for (size_t i = open; i < text.size(); ++i) {
      char c = text[i];
      if (in_string) {
        if (c == '\\')
          ++i;
        else if (c == '"')
          in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}' && --depth == 0) {
        spans.emplace_back(open, i + 1);
        break;
      }
    }
  }
  ASSERT_GT(spans.size(), 20u);
  int64_t positions = 0, errors = 0;
  for (auto [begin, end] : spans) {
    for (size_t i = begin; i < end; i += kDamageStride) {
      for (char damage : {'\0', '\x7f', ',', '}', '"', 'x', '\\', ' '}) {
        if (text[i] == damage) continue;
        std::string mutated = text;
        mutated[i] = damage;
        auto t = Import(mutated);
        ++positions;
        if (t.ok()) {
          ASSERT_EQ((*t)->graph.events.size(), events)
              << "byte " << i << " set to " << int(damage) << ": fewer events, no error";
        } else {
          ++errors;
          EXPECT_GE(OffsetIn(t.status().message()), 0) << t.status().message();
        }
      }
    }
  }
  EXPECT_GT(errors, positions / 4);  // most damage is not valid JSON
}

}  // namespace
}  // namespace th::kineto
