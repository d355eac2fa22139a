// The streaming JSON rewriter: what it copies byte for byte, how it
// re-encodes what it changes, how it reads through any cut of its input,
// and the errors it gives (with text offsets).
#include "core/redact/json_redactor.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/support/test_files.h"

namespace th::redact {
namespace {

// Hands out at most `step` bytes per read: every token boundary gets cut.
class SlowSource final : public ByteSource {
 public:
  SlowSource(std::string text, size_t step) : text_(std::move(text)), step_(step) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    size_t k = std::min({n, step_, text_.size() - pos_});
    std::memcpy(buf, text_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }
  uint64_t stored_bytes_read() const override { return pos_; }

 private:
  std::string text_, name_ = "t.json";
  size_t step_, pos_ = 0;
};

struct Fixture {
  RuleSet rules;
  Pseudonymizer key{"json-redactor-test-key-0123", KeySource::kFile, 8};
  Fixture() {
    auto r = LoadRules(std::string(TRACEHOUND_SOURCE_DIR) + "/configs/redact.yaml");
    EXPECT_TRUE(r.ok()) << r.status().message();
    rules = std::move(*r);
  }
  StatusOr<std::string> Run(const std::string& text, size_t step = 1 << 20) {
    StringRedactor redactor(rules, key);
    SlowSource in(text, step);
    StringSink out;
    Status s = RedactJson(in, redactor, out);
    if (!s.ok()) return s;
    return out.data();
  }
};

TEST(JsonRedactor, UntouchedTextIsByteIdentical) {
  Fixture f;
  const std::string text =
      "\xEF\xBB\xBF{ \"traceEvents\" : [\n  {\"ph\":\"X\",\"name\":\"aten::mm\",\"ts\":"
      "1700000000123456.789012345678,\"dur\":1.50000000000000000001,\"args\":{\"Input Dims\":"
      "[[32,128],[128,256]],\"x\":-0.0e+00,\"ok\":true,\"n\":null,\"inf\":Infinity,\"esc\":"
      "\"tab\\there \\u00e9\\ud83d\\ude00 \\/\"}}\t,\r\n  {\"ph\":\"i\",\"s\":\"t\",\"ts\":1}\n ] "
      ",\"displayTimeUnit\":\"ns\"}\n\n";
  for (size_t step : {size_t{1}, size_t{7}, size_t{1} << 20}) {
    auto out = f.Run(text, step);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(*out, text.substr(3)) << step;  // only the byte order mark goes
  }
}

TEST(JsonRedactor, ChangedStringsAreReencodedAndValid) {
  Fixture f;
  const std::string text =
      R"({"traceEvents": [{"name": "C:\\Users\\bob\\proj\\x.py", "args": {"Call stack": )"
      R"("\/home\/alice\/a\/b.py(1): f;\/home\/alice\/a\/c.py(2): g", "q": "\"quoted\" ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"}}], "username": "alice"})";
  auto out = f.Run(text, 3);
  ASSERT_TRUE(out.ok()) << out.status().message();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(*out).get(doc), simdjson::SUCCESS) << *out;
  const std::string user = f.key.Token("user", "alice");
  std::string_view name = doc.at_pointer("/traceEvents/0/name").get_string().value();
  EXPECT_EQ(name,
            f.key.Token("path", "C:\\Users\\" + f.key.Token("user", "bob") + "\\proj") + "\\x.py");
  std::string_view stack = doc.at_pointer("/traceEvents/0/args/Call stack").get_string().value();
  std::string dir = f.key.Token("path", "/home/" + user + "/a");
  EXPECT_EQ(stack, dir + "/b.py(1): f;" + dir + "/c.py(2): g");
  std::string_view q = doc.at_pointer("/traceEvents/0/args/q").get_string().value();
  EXPECT_EQ(q, "\"quoted\" " + f.key.Token("secret", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"));
  EXPECT_EQ(doc["username"].get_string().value(), user);
  EXPECT_EQ(out->find("alice"), std::string::npos);
}

TEST(JsonRedactor, KeepKeysAndDrops) {
  Fixture f;
  f.rules.keep_keys.insert("keep");
  int free_text = f.rules.FieldRuleFor("Concrete Inputs");
  ASSERT_GE(free_text, 0);
  f.rules.rules[static_cast<size_t>(free_text)].action = FieldAction::kDrop;
  const std::string text =
      R"({"keep": {"p": "/home/alice/x/y.py"}, "a": [{"Concrete Inputs": ["/home/alice/x/y", 1, {"z": 2}]},)"
      R"( {"Concrete Inputs": 12.5}, {"Concrete Inputs": "text"}]})";
  StringRedactor redactor(f.rules, f.key);
  SlowSource in(text, 5);
  StringSink out;
  ASSERT_TRUE(RedactJson(in, redactor, out).ok());
  EXPECT_EQ(out.data(), R"({"keep": {"p": "/home/alice/x/y.py"}, "a": [{"Concrete Inputs": ""},)"
                        R"( {"Concrete Inputs": ""}, {"Concrete Inputs": ""}]})");
  EXPECT_EQ(redactor.counts().rules[static_cast<size_t>(free_text)].matches, 3);
  EXPECT_EQ(redactor.counts().rules[static_cast<size_t>(free_text)].distinct.size(), 3u);
}

TEST(JsonRedactor, UnterminatedTopLevelArrayAndTrailingCommas) {
  Fixture f;
  for (const std::string text : {"[{\"ph\":\"X\"},\n", "[{\"ph\":\"X\"}", "[{\"a\":1},]",
                                 "{\"traceEvents\":[{\"a\":1},]}"}) {
    auto out = f.Run(text);
    ASSERT_TRUE(out.ok()) << text << ": " << out.status().message();
    EXPECT_EQ(*out, text);
  }
}

TEST(JsonRedactor, ErrorsNameTheOffset) {
  Fixture f;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"a\": [1, 2",
       "t.json: invalid JSON at text offset 11: the text ends before the document does "
       "(truncated?)"},
      {"{\"a\": 01}", "t.json: invalid JSON at text offset 6: '01' is not a JSON value"},
      {"{\"a\": \"x\\q\"}", "t.json: invalid JSON at text offset 8: invalid escape in a string"},
      {"{\"a\": \"\\ud800\"}", "t.json: invalid JSON at text offset 7: invalid escape in a string"},
      {"{\"a\": 1} x", "t.json: invalid JSON at text offset 9: text after the top-level value"},
      {"{\"a\" 1}",
       "t.json: invalid JSON at text offset 5: a value where a key, ':' or ',' belongs"},
      {"{\"a\": tru}", "t.json: invalid JSON at text offset 6: 'tru' is not a JSON value"},
      {"{\"a\": \"unterminated",
       "t.json: invalid JSON at text offset 6: the text ends inside a string"},
      {"[1}", "t.json: invalid JSON at text offset 2: '}' does not close an open object"},
      {"{\"a\": 1,}", "t.json: invalid JSON at text offset 8: a ',' before '}'"},
      {"", "t.json: invalid JSON at text offset 0: no JSON value (empty text)"},
      {"\"str\"",
       "t.json: invalid JSON at text offset 0: the top level is a string, not an object or array"},
  };
  for (const auto& [text, message] : cases) {
    for (size_t step : {size_t{1}, size_t{1} << 20}) {
      auto out = f.Run(text, step);
      ASSERT_FALSE(out.ok()) << text;
      EXPECT_EQ(out.status().message(), message) << text << " step " << step;
    }
  }
}

TEST(JsonRedactor, CollectsHostsBeforeTraceEvents) {
  Fixture f;
  const std::string text =
      R"({"host_name": "n1.corp.example.com", "distributedInfo": {"master_addr": "10.0.0.9"},)"
      R"( "traceEvents": [{"host_name": "never-read"}], "hostname": "after"})";
  SlowSource in(text, 4);
  std::vector<std::string> hosts;
  ASSERT_TRUE(CollectJsonHosts(in, f.rules, &hosts).ok());
  EXPECT_EQ(hosts, (std::vector<std::string>{"n1.corp.example.com", "10.0.0.9"}));
}

// traceEvents cut into chunks and rewritten on all cores: the same bytes,
// counts and errors as one thread.
TEST(JsonRedactor, ParallelEqualsSerial) {
  Fixture f;
  std::string events;
  for (int i = 0; i < 60000; ++i) {
    if (i) events += i % 7 ? "," : " ,\n";
    events += R"({"ph":"X","name":"/home/u)" + std::to_string(i % 13) + R"(/p/a.py(1): f","ts":)" +
              std::to_string(i) + R"(.5,"dur":1,"args":{"Concrete Inputs":["x)" +
              std::to_string(i % 100) + R"("],"n":[1,{"a":"b\"c"}]}})";
  }
  auto run = [&](const std::string& text, bool parallel,
                 RedactionCounts* counts) -> StatusOr<std::string> {
    StringRedactor redactor(f.rules, f.key);
    SlowSource in(text, 1 << 16);
    StringSink out;
    Status s = RedactJson(in, redactor, out, parallel);
    if (counts) *counts = redactor.counts();
    if (!s.ok()) return s;
    return out.data();
  };
  for (const std::string& text :
       {"{\"a\": 1, \"traceEvents\": [" + events + "], \"z\": \"/home/q/r/s\"}",
        "[" + events + ",\n]", "[" + events + "\n", std::string("{\"traceEvents\": [ ]}")}) {
    RedactionCounts cs, cp;
    auto serial = run(text, false, &cs);
    auto parallel = run(text, true, &cp);
    ASSERT_TRUE(serial.ok()) << serial.status().message();
    ASSERT_TRUE(parallel.ok()) << parallel.status().message();
    EXPECT_EQ(*serial, *parallel);
    EXPECT_EQ(cs.strings, cp.strings);
    EXPECT_EQ(cs.strings_changed, cp.strings_changed);
    for (size_t r = 0; r < cs.rules.size(); ++r) {
      EXPECT_EQ(cs.rules[r].matches, cp.rules[r].matches) << f.rules.rules[r].id;
      EXPECT_EQ(cs.rules[r].distinct.size(), cp.rules[r].distinct.size()) << f.rules.rules[r].id;
    }
  }
  // A bad value deep in a later chunk: the same message either way.
  std::string bad = "{\"traceEvents\": [" + events + ", {\"ts\": 1.}]}";
  auto serial = run(bad, false, nullptr);
  auto parallel = run(bad, true, nullptr);
  ASSERT_FALSE(serial.ok());
  ASSERT_FALSE(parallel.ok());
  EXPECT_EQ(serial.status().message(), parallel.status().message());
  EXPECT_NE(serial.status().message().find("'1.' is not a JSON value"), std::string::npos);
}

TEST(JsonRedactor, Unescape) {
  std::string out;
  size_t bad = 0;
  ASSERT_TRUE(JsonUnescape("a\\n\\u00e9\\ud83d\\ude00\\\"\\\\\\/", &out, &bad));
  EXPECT_EQ(out, "a\n\xC3\xA9\xF0\x9F\x98\x80\"\\/");
  EXPECT_FALSE(JsonUnescape("x\\udc00", &out, &bad));
  EXPECT_EQ(bad, 1u);
  EXPECT_FALSE(JsonUnescape("\\u12", &out, &bad));
}

}  // namespace
}  // namespace th::redact
