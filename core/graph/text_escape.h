// Text from traces, file names and user input, written to people and to JSON.
//
// Trace strings and file names may hold any bytes; every output tracehound
// writes is valid UTF-8. A byte that does not belong to a valid UTF-8
// sequence is written as the four characters \xNN (as Python's
// "backslashreplace" does), so nothing is lost and nothing breaks a reader.
#pragma once

#include <string>
#include <string_view>

namespace th {

// For messages, the terminal and Markdown: valid UTF-8 kept; invalid bytes
// and control characters (other than tab and newline) shown as \xNN.
std::string PrintableBytes(std::string_view s);

// For bytes that are not text (a binary file's first bytes, in a one-line
// message): printable ASCII kept, every other byte (newline and UTF-8
// sequences included) shown as \xNN.
std::string AsciiBytes(std::string_view s);

// Appends `s` as a JSON string literal, quotes included: '"', '\\' and control
// characters escaped (\n, \u001f, ...), invalid UTF-8 bytes as the text \xNN.
void AppendJsonString(std::string* out, std::string_view s);
std::string JsonString(std::string_view s);

// For HTML text and attribute values: '&', '<', '>', '"' as entities; every
// other byte as it is (callers pass text already made valid UTF-8).
std::string HtmlText(std::string_view s);

// JSON placed inside a <script> element: every '<' (which occurs only inside
// JSON strings) as \u003c, so neither "</script" nor "<!--" can end or change
// the element; the JSON means the same.
std::string ScriptSafeJson(std::string_view json);

}  // namespace th
