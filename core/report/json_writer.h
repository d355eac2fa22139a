// JsonWriter: a small streaming JSON writer (pretty-printed unless compact,
// valid UTF-8 in, escaped out). Keys and values are written in call order.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>
#include <vector>

namespace th {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out, bool compact = false) : out_(out), compact_(compact) {}
  ~JsonWriter() {
    if (!compact_) out_ << '\n';
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
  bool compact_ = false;  // no newlines or indentation
};

}  // namespace th
