#include "core/graph/text_escape.h"

#include <cstdint>

#include "core/graph/utf8.h"

namespace th {

namespace {

constexpr char kHex[] = "0123456789abcdef";

void AppendHexByte(std::string* out, uint8_t b) {
  out->push_back('\\');
  out->push_back('x');
  out->push_back(kHex[b >> 4]);
  out->push_back(kHex[b & 15]);
}

}  // namespace

std::string AsciiBytes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<uint8_t>(ch);
    if (c >= 0x20 && c < 0x7f)
      out.push_back(ch);
    else
      AppendHexByte(&out, c);
  }
  return out;
}

std::string PrintableBytes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  size_t n = s.size();
  for (size_t i = 0; i < n;) {
    uint8_t c = p[i];
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    if (c == '\t' || c == '\n') {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    size_t len = c >= 0x80 ? Utf8SequenceLength(p + i, n - i) : 0;
    if (len == 0) {
      AppendHexByte(&out, c);
      ++i;
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  size_t n = s.size();
  size_t run = 0;  // start of the bytes copied as they are
  auto flush = [&](size_t i) {
    if (i > run) out->append(s.substr(run, i - run));
  };
  for (size_t i = 0; i < n;) {
    uint8_t c = p[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      size_t len = Utf8SequenceLength(p + i, n - i);
      if (len > 0) {
        i += len;
        continue;
      }
      flush(i);
      out->append("\\\\x");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
      run = ++i;
      continue;
    }
    flush(i);
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        out->append("\\u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
    }
    run = ++i;
  }
  flush(n);
  out->push_back('"');
}

std::string JsonString(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  AppendJsonString(&out, s);
  return out;
}

std::string HtmlText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ScriptSafeJson(std::string_view json) {
  std::string out;
  out.reserve(json.size() + 64);
  for (char c : json) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

}  // namespace th
