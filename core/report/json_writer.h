// JsonWriter: a small streaming JSON writer (valid UTF-8 in, escaped out).
// Keys and values are written in call order, laid out as its style says.
#pragma once

#include <cstdint>
#include <ostream>
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
  ~JsonWriter() {
    if (style_ == JsonStyle::kPretty) out_ << '\n';
  }

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
  std::ostream& out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
  JsonStyle style_;
};

}  // namespace th
