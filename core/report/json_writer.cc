#include "core/report/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/graph/json_number.h"
#include "core/graph/text_escape.h"

namespace th {

namespace {
constexpr size_t kFlushBytes = size_t{64} << 10;
}  // namespace

JsonWriter::~JsonWriter() {
  if (style_ == JsonStyle::kPretty) Put('\n');
  out_.write(text_.data(), static_cast<std::streamsize>(text_.size()));
}

void JsonWriter::FlushIfFull() {
  if (text_.size() < kFlushBytes) return;
  out_.write(text_.data(), static_cast<std::streamsize>(text_.size()));
  text_.clear();
}

void JsonWriter::Indent() {
  if (style_ != JsonStyle::kPretty) return;
  Put('\n');
  for (size_t i = 0; i < first_.size(); ++i) Put("  ");
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  FlushIfFull();
  if (!first_.empty()) {
    if (!first_.back()) Put(style_ == JsonStyle::kOneLine ? ", " : ",");
    first_.back() = false;
    Indent();
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  Put('{');
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::EndObject() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) Indent();
  Put('}');
  return *this;
}
JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  Put('[');
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::EndArray() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) Indent();
  Put(']');
  return *this;
}
JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  WriteEscaped(key);
  Put(style_ == JsonStyle::kCompact ? ":" : ": ");
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::String(std::string_view s) {
  BeforeValue();
  WriteEscaped(s);
  return *this;
}

void JsonWriter::WriteEscaped(std::string_view s) { AppendJsonString(&text_, s); }
JsonWriter& JsonWriter::Int(int64_t v) {
  BeforeValue();
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
  (void)ec;  // 24 bytes hold every int64_t
  Put(std::string_view(digits, static_cast<size_t>(end - digits)));
  return *this;
}
JsonWriter& JsonWriter::Double(double v) {
  BeforeValue();
  Put(JsonNumber(v));
  return *this;
}
JsonWriter& JsonWriter::Bool(bool v) {
  BeforeValue();
  Put(v ? "true" : "false");
  return *this;
}
JsonWriter& JsonWriter::Null() {
  BeforeValue();
  Put("null");
  return *this;
}

}  // namespace th
