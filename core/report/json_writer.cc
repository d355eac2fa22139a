#include "core/report/json_writer.h"

#include <cmath>
#include <cstdio>

#include "core/graph/json_number.h"
#include "core/graph/text_escape.h"

namespace th {

void JsonWriter::Indent() {
  if (style_ != JsonStyle::kPretty) return;
  out_ << '\n';
  for (size_t i = 0; i < first_.size(); ++i) out_ << "  ";
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ << (style_ == JsonStyle::kOneLine ? ", " : ",");
    first_.back() = false;
    Indent();
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_ << '{';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::EndObject() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) Indent();
  out_ << '}';
  return *this;
}
JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_ << '[';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::EndArray() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) Indent();
  out_ << ']';
  return *this;
}
JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  WriteEscaped(key);
  out_ << (style_ == JsonStyle::kCompact ? ":" : ": ");
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::String(std::string_view s) {
  BeforeValue();
  WriteEscaped(s);
  return *this;
}

void JsonWriter::WriteEscaped(std::string_view s) { out_ << JsonString(s); }
JsonWriter& JsonWriter::Int(int64_t v) {
  BeforeValue();
  out_ << v;
  return *this;
}
JsonWriter& JsonWriter::Double(double v) {
  BeforeValue();
  out_ << JsonNumber(v);
  return *this;
}
JsonWriter& JsonWriter::Bool(bool v) {
  BeforeValue();
  out_ << (v ? "true" : "false");
  return *this;
}
JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ << "null";
  return *this;
}

}  // namespace th
