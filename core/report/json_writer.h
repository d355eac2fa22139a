// JsonWriter: a small streaming JSON writer (valid UTF-8 in, escaped out).
// Keys and values are written in call order, laid out as its style says.
// The text is gathered in a buffer and written to the stream in pieces of
// 64 KiB and when the writer is destroyed: read the stream after the writer's
// scope, and write nothing else to it meanwhile. (One stream insertion per
// token cost a third of the time of the HTML and JSON reports.)
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace th {

enum class JsonStyle : uint8_t {
  kPretty,   // one member per line, indented by two spaces; a newline at the end
  kCompact,  // {"a":1,"b":[1,2]}
  kOneLine,  // {"a": 1, "b": [1, 2]}
};

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out, JsonStyle style = JsonStyle::kPretty)
      : out_(out), style_(style) {}
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view s);
  JsonWriter& Int(int64_t v);
  JsonWriter& Double(double v);
  JsonWriter& Bool(bool v);
  JsonWriter& Null();

  // Key + value shorthands.
  JsonWriter& Field(std::string_view key, std::string_view v) { return Key(key).String(v); }
  JsonWriter& Field(std::string_view key, const char* v) { return Key(key).String(v); }
  JsonWriter& Field(std::string_view key, int64_t v) { return Key(key).Int(v); }
  JsonWriter& Field(std::string_view key, int v) { return Key(key).Int(v); }
  JsonWriter& Field(std::string_view key, double v) { return Key(key).Double(v); }
  JsonWriter& Field(std::string_view key, bool v) { return Key(key).Bool(v); }

 private:
  void BeforeValue();
  void Indent();
  void WriteEscaped(std::string_view s);
  void Put(char c) { text_.push_back(c); }
  void Put(std::string_view s) { text_.append(s); }
  void FlushIfFull();
  std::ostream& out_;
  std::string text_;         // not yet written to out_
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
  JsonStyle style_;
};

}  // namespace th
