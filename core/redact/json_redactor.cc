#include "core/redact/json_redactor.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/graph/text_escape.h"
#include "core/import/kineto/event_boundary_scanner.h"

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

// Reads a chunk held elsewhere, without a copy of its own.
class ViewSource final : public ByteSource {
 public:
  ViewSource(const std::string& name, std::string_view text) : name_(name), text_(text) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    size_t k = std::min(n, text_.size() - pos_);
    std::memcpy(buf, text_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }
  uint64_t stored_bytes_read() const override { return pos_; }

 private:
  const std::string& name_;
  std::string_view text_;
  size_t pos_ = 0;
};

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
               std::vector<std::string>* hosts, const Pseudonymizer* pseudonyms = nullptr,
               std::vector<char>* window = nullptr)
      : in_(in),
        rules_(rules),
        redactor_(redactor),
        out_(out),
        hosts_(hosts),
        pseudonyms_(pseudonyms) {
    // A fragment borrows its thread's window instead of allocating one.
    if (window) buf_.swap(*window);
    if (buf_.size() < 2 * kReadBytes) buf_.resize(2 * kReadBytes);
  }

  Status Run();

  // A fragment: whole elements of an array (a chunk of traceEvents), as
  // they stand inside `frame`, at text offset `base` of the document.
  Status RunFragment(const Frame& frame, uint64_t base);

 private:
  // traceEvents in chunks of whole elements rewritten on all cores, in order
  // (called just after its '['; returns with pos_ at its closing bracket, or
  // at the end of the text).
  Status ParallelElements();

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
  const Pseudonymizer* pseudonyms_;  // set: traceEvents may be rewritten in parallel
  bool fragment_ = false;

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

Status JsonRewriter::RunFragment(const Frame& frame, uint64_t base) {
  fragment_ = true;
  base_ = base;
  stack_.push_back(frame);
  return Run();
}

Status JsonRewriter::Run() {
  // A UTF-8 byte order mark is no part of the text.
  while (!fragment_ && end_ < 3 && !eof_) {
    auto more = Refill(0);
    if (!more.ok()) return more.status();
    if (!*more) break;
  }
  if (!fragment_ && end_ >= 3 && static_cast<uint8_t>(buf_[0]) == 0xEF &&
      static_cast<uint8_t>(buf_[1]) == 0xBB && static_cast<uint8_t>(buf_[2]) == 0xBF) {
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
        const bool events = !nf.object && !dropping_ && !keep && pseudonyms_ && !fragment_ &&
                            (stack_.empty() || (f->top_object && f->member.trace_events));
        stack_.push_back(nf);
        ++pos_;
        if (events) TH_RETURN_IF_ERROR(ParallelElements());
        break;
      }
      case '}':
      case ']': {
        bool object = c == '}';
        if (fragment_ && stack_.size() == 1)
          return Internal("a chunk of traceEvents holds its closing bracket");
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
  if (fragment_) {
    // Whole elements, each followed by ',' but maybe the last.
    if (stack_.size() == 1 && stack_[0].expect != Expect::kColon) return Ok();
    return Error(end_, "the text ends before the document does (truncated?)");
  }
  if (stack_.empty()) {
    if (top_ == Expect::kValue) return Error(end_, "no JSON value (empty text)");
    return Ok();
  }
  // A top-level array may end without its ']' (Trace Event Format).
  if (stack_.size() == 1 && !stack_[0].object && stack_[0].expect != Expect::kColon) return Ok();
  return Error(end_, "the text ends before the document does (truncated?)");
}

// Phase 1 (serial, a pipeline's input stage): the importer's SIMD boundary
// scanner finds where elements end; chunks of at least kChunk bytes of whole
// elements are cut there and copied out of the window. Phase 2 (parallel): each chunk is
// rewritten by a fragment rewriter with a StringRedactor of its thread.
// Phase 3 (serial, in order): the outputs go to the sink. Bounded: a few
// chunks per thread in flight.
Status JsonRewriter::ParallelElements() {
  constexpr size_t kChunk = size_t{1} << 20;
  TH_RETURN_IF_ERROR(Emit(pos_));
  const Frame frame = stack_.back();
  struct Chunk {
    std::string text;
    uint64_t base = 0;
    uint64_t index = 0;
    bool first = false;
    std::string out;
    Status status;
  };
  // Scanner state, in window offsets: the importer's SIMD boundary scanner
  // finds where elements end; chunks are cut just after one.
  kineto::EventBoundaryScanner scanner;
  size_t scan = pos_;  // next byte to scan
  size_t chunk_start = pos_;
  size_t last_end = SIZE_MAX;  // one past the last element ended after chunk_start
  bool done = false, first = true;
  Expect after = Expect::kCommaOrClose;  // the array frame's state after the elements
  Status input_error;

  // What a thread keeps from chunk to chunk: its redactor (and memo), its
  // window, its key cache, and buffers that are reused, not reallocated.
  struct Worker {
    std::unique_ptr<StringRedactor> redactor;
    std::vector<char> window;
    std::unordered_map<std::string, KeyInfo, Hash, Eq> keys;
  };
  tbb::enumerable_thread_specific<Worker> workers;
  std::mutex pool_mu;
  std::vector<std::unique_ptr<Chunk>> pool;
  // The first chunk (in order) that failed: later ones are not rewritten and
  // no more are cut, so the error reported is the first in the text.
  std::atomic<uint64_t> failed_at{UINT64_MAX};
  uint64_t next_index = 0;
  Status output_error;

  auto cut = [&](size_t at) {
    std::unique_ptr<Chunk> c;
    {
      std::lock_guard<std::mutex> lock(pool_mu);
      if (!pool.empty()) {
        c = std::move(pool.back());
        pool.pop_back();
      }
    }
    if (!c) c = std::make_unique<Chunk>();
    c->text.assign(buf_.data() + chunk_start, at - chunk_start);
    c->out.clear();
    c->status = Ok();
    c->base = base_ + chunk_start;
    c->index = next_index++;
    c->first = first;
    first = false;
    chunk_start = at;
    copy_from_ = at;
    last_end = SIZE_MAX;
    return c.release();
  };
  auto next_chunk = [&](tbb::flow_control& fc) -> Chunk* {
    while (!done && failed_at.load() == UINT64_MAX) {
      if (scan >= end_) {
        const uint64_t before = base_;
        pos_ = chunk_start;
        copy_from_ = chunk_start;
        auto more = Refill(chunk_start);
        if (!more.ok()) {
          input_error = more.status();
          done = true;
          break;
        }
        const size_t shift = static_cast<size_t>(base_ - before);
        scan -= shift;
        chunk_start -= shift;
        if (last_end != SIZE_MAX) last_end -= shift;
        if (!*more) {  // the text ends inside the array: the rest is the last chunk
          done = true;
          pos_ = end_;
          if (end_ > chunk_start) return cut(end_);
          break;
        }
        continue;
      }
      size_t ended = SIZE_MAX;
      auto r = scanner.Scan(buf_.data(), scan, end_, &ended);
      if (ended != SIZE_MAX) last_end = ended;
      scan = r.stop;
      if (r.array_closed || r.bad_close) {
        // The array's end (a '}' here is a mismatch the serial loop reports).
        done = true;
        pos_ = scan;
        size_t k = scan;
        while (k > chunk_start && IsWs(buf_[k - 1])) --k;
        after = k > chunk_start ? (buf_[k - 1] == ',' ? Expect::kValue : Expect::kCommaOrClose)
                                : (first ? Expect::kValueOrClose : Expect::kCommaOrClose);
        if (scan > chunk_start) return cut(scan);
        copy_from_ = scan;
        break;
      }
      if (last_end != SIZE_MAX && last_end - chunk_start >= kChunk) return cut(last_end);
    }
    fc.stop();
    return nullptr;
  };
  auto rewrite = [&](Chunk* c) -> Chunk* {
    if (c->index > failed_at.load()) return c;  // never written: an earlier chunk failed
    Worker& worker = workers.local();
    if (!worker.redactor) worker.redactor = std::make_unique<StringRedactor>(rules_, *pseudonyms_);
    ViewSource source(in_.name(), c->text);
    StringSink out;
    out.data().swap(c->out);  // reuse the chunk's output buffer
    JsonRewriter w(source, rules_, worker.redactor.get(), &out, nullptr, nullptr, &worker.window);
    w.keys_.swap(worker.keys);
    Frame f = frame;  // a chunk starts after '[' or after an element
    f.expect = c->first ? Expect::kValueOrClose : Expect::kCommaOrClose;
    c->status = w.RunFragment(f, c->base);
    if (!c->status.ok()) {
      uint64_t seen = failed_at.load();
      while (c->index < seen && !failed_at.compare_exchange_weak(seen, c->index)) {
      }
    }
    c->out.swap(out.data());
    w.buf_.swap(worker.window);
    w.keys_.swap(worker.keys);
    return c;
  };
  auto write = [&](Chunk* c) {
    std::unique_ptr<Chunk> owned(c);
    if (output_error.ok()) output_error = c->status.ok() ? Write(c->out) : c->status;
    std::lock_guard<std::mutex> lock(pool_mu);
    pool.push_back(std::move(owned));
  };
  const size_t tokens = 2 * static_cast<size_t>(tbb::this_task_arena::max_concurrency()) + 2;
  tbb::parallel_pipeline(
      tokens, tbb::make_filter<void, Chunk*>(tbb::filter_mode::serial_in_order, next_chunk) &
                  tbb::make_filter<Chunk*, Chunk*>(tbb::filter_mode::parallel, rewrite) &
                  tbb::make_filter<Chunk*, void>(tbb::filter_mode::serial_in_order, write));
  for (auto& w : workers)
    if (w.redactor) redactor_->counts().Merge(w.redactor->counts());
  TH_RETURN_IF_ERROR(output_error);
  TH_RETURN_IF_ERROR(input_error);
  // Where the elements left the array: after a ',' (a trailing comma), after
  // an element, or empty.
  stack_.back().expect = after;
  return Ok();
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

Status RedactJson(ByteSource& in, StringRedactor& redactor, ByteSink& out, bool parallel) {
  JsonRewriter w(in, redactor.rules(), &redactor, &out, nullptr,
                 parallel ? &redactor.pseudonyms() : nullptr);
  return w.Run();
}

Status CollectJsonHosts(ByteSource& in, const RuleSet& rules, std::vector<std::string>* hosts) {
  JsonRewriter w(in, rules, nullptr, nullptr, hosts);
  return w.Run();
}

}  // namespace th::redact
