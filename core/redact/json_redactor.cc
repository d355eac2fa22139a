#include "core/redact/json_redactor.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/graph/text_escape.h"

namespace th::redact {

namespace {

constexpr size_t kReadBytes = size_t{1} << 20;
// A single string or number longer than this is refused (the importer's
// bound on one value as well).
constexpr size_t kMaxToken = size_t{256} << 20;
constexpr size_t kMaxDepth = 10000;
constexpr size_t kMaxKeyBytes = 4096;
constexpr size_t kMaxDropCapture = size_t{1} << 20;

bool IsWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool Hex4(std::string_view s, size_t at, uint32_t* out) {
  if (at + 4 > s.size()) return false;
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) {
    int h = HexValue(s[at + i]);
    if (h < 0) return false;
    v = (v << 4) | static_cast<uint32_t>(h);
  }
  *out = v;
  return true;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// The non-finite literals real writers emit, accepted like the importer does.
bool IsNonFinite(std::string_view t) {
  return t == "NaN" || t == "Infinity" || t == "-Infinity" || t == "nan" || t == "-nan" ||
         t == "inf" || t == "-inf";
}

// True when `t` is exactly one JSON number.
bool ValidNumber(std::string_view t) {
  size_t i = 0;
  if (i < t.size() && t[i] == '-') ++i;
  if (i >= t.size()) return false;
  if (t[i] == '0') {
    ++i;
  } else if (t[i] >= '1' && t[i] <= '9') {
    while (i < t.size() && IsDigit(t[i])) ++i;
  } else {
    return false;
  }
  if (i < t.size() && t[i] == '.') {
    ++i;
    size_t d = i;
    while (i < t.size() && IsDigit(t[i])) ++i;
    if (i == d) return false;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    size_t d = i;
    while (i < t.size() && IsDigit(t[i])) ++i;
    if (i == d) return false;
  }
  return i == t.size();
}

bool IsScalarChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '+' ||
         c == '.';
}

enum class Expect : uint8_t {
  kValue,         // a value (top level, after ':' or after ',' in an array)
  kValueOrClose,  // just after '['
  kKeyOrClose,    // just after '{'
  kKey,           // after ',' in an object
  kColon,         // after a key
  kCommaOrClose,  // after a value inside a container
  kEnd,           // after the top-level value: only whitespace
};

struct KeyInfo {
  int field = -1;
  bool keep = false;
  bool trace_events = false;
};

struct Frame {
  bool object = false;
  Expect expect = Expect::kValue;
  KeyInfo member;  // object: the current member's key
  int field = -1;  // in force for values inside (inherited)
  bool keep = false;
  bool top_object = false;
};

class JsonRewriter {
 public:
  JsonRewriter(ByteSource& in, const RuleSet& rules, StringRedactor* redactor, ByteSink* out,
               std::vector<std::string>* hosts)
      : in_(in), rules_(rules), redactor_(redactor), out_(out), hosts_(hosts) {
    buf_.resize(2 * kReadBytes);
  }

  Status Run();

 private:
  // Input window.
  StatusOr<bool> Refill(size_t keep_from);
  Status Error(size_t at, const std::string& what) const {
    return InvalidInput(in_.name() + ": invalid JSON at text offset " + std::to_string(base_ + at) +
                        ": " + what);
  }
  // Output of [copy_from_, upto) (discarded while dropping).
  Status Emit(size_t upto);
  Status Write(std::string_view s) { return out_ ? out_->Write(s) : Ok(); }

  const KeyInfo& Lookup(std::string_view key);
  // Context of the value starting now.
  void ValueContext(int* field, bool* keep) const;
  Status AfterValue();
  Status String(size_t start, bool* stop);
  Status Scalar(size_t start);
  Status StartDrop(size_t at, int field);

  ByteSource& in_;
  const RuleSet& rules_;
  StringRedactor* redactor_;
  ByteSink* out_;
  std::vector<std::string>* hosts_;  // collect mode (no redactor)

  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0, copy_from_ = 0;
  uint64_t base_ = 0;  // text offset of buf_[0]
  bool eof_ = false;

  std::vector<Frame> stack_;
  Expect top_ = Expect::kValue;
  bool dropping_ = false;
  size_t drop_depth_ = 0;
  int drop_field_ = -1;
  std::string drop_raw_;

  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return static_cast<size_t>(XXH3_64bits(s.data(), s.size()));
    }
  };
  struct Eq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  std::unordered_map<std::string, KeyInfo, Hash, Eq> keys_;
  std::string decoded_;
};

StatusOr<bool> JsonRewriter::Refill(size_t keep_from) {
  TH_RETURN_IF_ERROR(Emit(keep_from));
  // Keep [keep_from, end_): a token that the window cut. It starts the
  // buffer from now on, whether more text comes or not.
  size_t kept = end_ - keep_from;
  if (keep_from > 0) {
    std::memmove(buf_.data(), buf_.data() + keep_from, kept);
    base_ += keep_from;
    pos_ -= keep_from;
    copy_from_ -= keep_from;
    end_ = kept;
  }
  if (eof_) return false;
  if (buf_.size() - end_ < kReadBytes) {
    if (kept > kMaxToken) return Error(0, "a single value longer than 256 MiB");
    buf_.resize(std::max(buf_.size() * 2, end_ + kReadBytes));
  }
  auto got = in_.Read(buf_.data() + end_, buf_.size() - end_);
  if (!got.ok()) return got.status();
  if (*got == 0) {
    eof_ = true;
    return false;
  }
  end_ += *got;
  return true;
}

Status JsonRewriter::Emit(size_t upto) {
  if (upto > copy_from_) {
    std::string_view bytes(buf_.data() + copy_from_, upto - copy_from_);
    if (dropping_) {
      if (drop_raw_.size() < kMaxDropCapture)
        drop_raw_.append(bytes.substr(0, kMaxDropCapture - drop_raw_.size()));
    } else {
      TH_RETURN_IF_ERROR(Write(bytes));
    }
  }
  copy_from_ = upto;
  return Ok();
}

const KeyInfo& JsonRewriter::Lookup(std::string_view key) {
  auto it = keys_.find(key);
  if (it != keys_.end()) return it->second;
  KeyInfo info;
  info.field = rules_.FieldRuleFor(key);
  info.keep = rules_.keep_keys.count(std::string(key)) > 0;
  info.trace_events = key == "traceEvents";
  if (keys_.size() > 100000) keys_.clear();  // keys are few; a hostile file's are not
  return keys_.emplace(std::string(key), info).first->second;
}

void JsonRewriter::ValueContext(int* field, bool* keep) const {
  if (stack_.empty()) {
    *field = -1;
    *keep = false;
    return;
  }
  const Frame& f = stack_.back();
  if (f.object) {
    *keep = f.keep || f.member.keep;
    *field = f.member.field >= 0 ? f.member.field : f.field;
  } else {
    *keep = f.keep;
    *field = f.field;
  }
  if (*keep) *field = -1;
}

Status JsonRewriter::AfterValue() {
  if (stack_.empty()) {
    top_ = Expect::kEnd;
  } else {
    stack_.back().expect = Expect::kCommaOrClose;
  }
  return Ok();
}

Status JsonRewriter::StartDrop(size_t at, int field) {
  TH_RETURN_IF_ERROR(Emit(at));
  TH_RETURN_IF_ERROR(Write("\"\""));
  dropping_ = true;
  drop_depth_ = stack_.size();
  drop_field_ = field;
  drop_raw_.clear();
  return Ok();
}

// A string at buf_[start] (its opening quote): a key or a value.
Status JsonRewriter::String(size_t start, bool* stop) {
  // Find the closing quote: a '"' preceded by an even run of backslashes.
  size_t q = start + 1;
  while (true) {
    const char* hit = static_cast<const char*>(std::memchr(buf_.data() + q, '"', end_ - q));
    if (hit) {
      size_t at = static_cast<size_t>(hit - buf_.data());
      size_t bs = 0;
      while (at - bs > start + 1 && buf_[at - bs - 1] == '\\') ++bs;
      if (bs % 2 == 0) {
        q = at;
        break;
      }
      q = at + 1;
      continue;
    }
    size_t scanned = end_ - start;
    auto more = Refill(start);
    if (!more.ok()) return more.status();
    start = 0;
    if (!*more) return Error(start, "the text ends inside a string");
    q = scanned;
  }
  const size_t close = q;
  std::string_view raw(buf_.data() + start + 1, close - start - 1);
  std::string_view text = raw;
  if (raw.find('\\') != std::string_view::npos) {
    size_t bad = 0;
    if (!JsonUnescape(raw, &decoded_, &bad))
      return Error(start + 1 + bad, "invalid escape in a string");
    text = decoded_;
  }
  pos_ = close + 1;

  Frame* f = stack_.empty() ? nullptr : &stack_.back();
  bool is_key = f && f->object && (f->expect == Expect::kKeyOrClose || f->expect == Expect::kKey);
  if (is_key) {
    f->member = Lookup(text.substr(0, kMaxKeyBytes));
    f->expect = Expect::kColon;
    if (!redactor_) {
      if (f->top_object && f->member.trace_events) *stop = true;
      return Ok();
    }
    if (dropping_ || f->keep) return Ok();
    std::string_view json;
    if (redactor_->ApplyJson(text, -1, &json)) {
      TH_RETURN_IF_ERROR(Emit(start));
      TH_RETURN_IF_ERROR(Write(json));
      copy_from_ = pos_;
    }
    return Ok();
  }
  if (f && (f->expect == Expect::kColon || f->expect == Expect::kCommaOrClose ||
            f->expect == Expect::kKeyOrClose || f->expect == Expect::kKey))
    return Error(start,
                 "a string where a " +
                     std::string(f->expect == Expect::kColon ? "':'" : "',' or a closing bracket") +
                     " belongs");
  if (!f && top_ != Expect::kValue) return Error(start, "text after the top-level value");
  if (!f) return Error(start, "the top level is a string, not an object or array");
  int field;
  bool keep;
  ValueContext(&field, &keep);
  if (!redactor_) {
    if (field >= 0 && rules_.rules[static_cast<size_t>(field)].learn_hosts && !text.empty())
      hosts_->emplace_back(text);
    return AfterValue();
  }
  std::string_view json;
  if (!dropping_ && !keep && redactor_->ApplyJson(text, field, &json)) {
    TH_RETURN_IF_ERROR(Emit(start));
    TH_RETURN_IF_ERROR(Write(json));
    copy_from_ = pos_;
  }
  return AfterValue();
}

// A number or literal starting at buf_[start].
Status JsonRewriter::Scalar(size_t start) {
  size_t e = start;
  while (true) {
    while (e < end_ && IsScalarChar(buf_[e])) ++e;
    if (e < end_ || eof_) break;
    size_t scanned = e - start;
    auto more = Refill(start);
    if (!more.ok()) return more.status();
    start = 0;
    e = scanned;
    if (!*more) break;
  }
  std::string_view t(buf_.data() + start, e - start);
  bool ok = ValidNumber(t) || t == "true" || t == "false" || t == "null" || IsNonFinite(t);
  if (!ok) {
    std::string shown = PrintableBytes(t.substr(0, 32));
    return Error(start, "'" + shown + "' is not a JSON value");
  }
  pos_ = e;
  int field;
  bool keep;
  ValueContext(&field, &keep);
  if (redactor_ && !dropping_ && field >= 0 &&
      rules_.rules[static_cast<size_t>(field)].action == FieldAction::kDrop) {
    TH_RETURN_IF_ERROR(Emit(start));
    TH_RETURN_IF_ERROR(Write("\"\""));
    redactor_->CountDrop(field, t);
    copy_from_ = pos_;
  }
  return AfterValue();
}

Status JsonRewriter::Run() {
  // A UTF-8 byte order mark is no part of the text.
  while (end_ < 3 && !eof_) {
    auto more = Refill(0);
    if (!more.ok()) return more.status();
    if (!*more) break;
  }
  if (end_ >= 3 && static_cast<uint8_t>(buf_[0]) == 0xEF && static_cast<uint8_t>(buf_[1]) == 0xBB &&
      static_cast<uint8_t>(buf_[2]) == 0xBF) {
    pos_ = copy_from_ = 3;
  }
  while (true) {
    if (pos_ >= end_) {
      auto more = Refill(pos_);
      if (!more.ok()) return more.status();
      if (!*more) break;
      continue;
    }
    char c = buf_[pos_];
    if (IsWs(c)) {
      ++pos_;
      continue;
    }
    Frame* f = stack_.empty() ? nullptr : &stack_.back();
    Expect expect = f ? f->expect : top_;
    switch (c) {
      case '{':
      case '[': {
        if (expect == Expect::kEnd) return Error(pos_, "text after the top-level value");
        if (expect != Expect::kValue && expect != Expect::kValueOrClose)
          return Error(pos_, "a value where a key, ':' or ',' belongs");
        if (stack_.size() >= kMaxDepth)
          return Error(pos_, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
        int field;
        bool keep;
        ValueContext(&field, &keep);
        if (redactor_ && !dropping_ && field >= 0 &&
            rules_.rules[static_cast<size_t>(field)].action == FieldAction::kDrop)
          TH_RETURN_IF_ERROR(StartDrop(pos_, field));
        Frame nf;
        nf.object = c == '{';
        nf.expect = nf.object ? Expect::kKeyOrClose : Expect::kValueOrClose;
        nf.field = field;
        nf.keep = keep;
        nf.top_object = nf.object && stack_.empty();
        stack_.push_back(nf);
        ++pos_;
        break;
      }
      case '}':
      case ']': {
        bool object = c == '}';
        if (!f || f->object != object)
          return Error(pos_, std::string("'") + c + "' does not close an open " +
                                 (object ? "object" : "array"));
        // "[..., ]": a trailing comma is tolerated in arrays, as the importer
        // does in traceEvents; an object's is an error, as there.
        if (f->expect == Expect::kColon || (object && f->expect == Expect::kValue))
          return Error(pos_, "an object member without its value");
        if (object && f->expect == Expect::kKey) return Error(pos_, "a ',' before '}'");
        ++pos_;
        stack_.pop_back();
        if (dropping_ && stack_.size() == drop_depth_) {
          TH_RETURN_IF_ERROR(Emit(pos_));
          dropping_ = false;
          redactor_->CountDrop(drop_field_, drop_raw_);
          drop_raw_.clear();
        }
        TH_RETURN_IF_ERROR(AfterValue());
        break;
      }
      case ',':
        if (!f || f->expect != Expect::kCommaOrClose) return Error(pos_, "a misplaced ','");
        f->expect = f->object ? Expect::kKey : Expect::kValue;
        ++pos_;
        break;
      case ':':
        if (!f || f->expect != Expect::kColon) return Error(pos_, "a misplaced ':'");
        f->expect = Expect::kValue;
        ++pos_;
        break;
      case '"': {
        bool stop = false;
        TH_RETURN_IF_ERROR(String(pos_, &stop));
        if (stop) return Ok();
        break;
      }
      default:
        if (!IsScalarChar(c)) {
          return Error(pos_, "unexpected byte " + PrintableBytes(std::string_view(&c, 1)));
        }
        if (expect == Expect::kEnd) return Error(pos_, "text after the top-level value");
        if (!f) return Error(pos_, "the top level is a scalar, not an object or array");
        if (expect != Expect::kValue && expect != Expect::kValueOrClose)
          return Error(pos_, "a value where a key, ':' or ',' belongs");
        TH_RETURN_IF_ERROR(Scalar(pos_));
        break;
    }
  }
  TH_RETURN_IF_ERROR(Emit(end_));
  if (stack_.empty()) {
    if (top_ == Expect::kValue) return Error(end_, "no JSON value (empty text)");
    return Ok();
  }
  // A top-level array may end without its ']' (Trace Event Format).
  if (stack_.size() == 1 && !stack_[0].object && stack_[0].expect != Expect::kColon) return Ok();
  return Error(end_, "the text ends before the document does (truncated?)");
}

}  // namespace

bool JsonUnescape(std::string_view raw, std::string* out, size_t* bad) {
  out->clear();
  out->reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    *bad = i;
    if (++i >= raw.size()) return false;
    switch (raw[i]) {
      case '"':
        out->push_back('"');
        break;
      case '\\':
        out->push_back('\\');
        break;
      case '/':
        out->push_back('/');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'u': {
        uint32_t cp;
        if (!Hex4(raw, i + 1, &cp)) return false;
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo;
          if (i + 2 >= raw.size() || raw[i + 1] != '\\' || raw[i + 2] != 'u' ||
              !Hex4(raw, i + 3, &lo) || lo < 0xDC00 || lo > 0xDFFF)
            return false;
          i += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return false;
        }
        AppendUtf8(cp, out);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

Status RedactJson(ByteSource& in, StringRedactor& redactor, ByteSink& out) {
  JsonRewriter w(in, redactor.rules(), &redactor, &out, nullptr);
  return w.Run();
}

Status CollectJsonHosts(ByteSource& in, const RuleSet& rules, std::vector<std::string>* hosts) {
  JsonRewriter w(in, rules, nullptr, nullptr, hosts);
  return w.Run();
}

}  // namespace th::redact
