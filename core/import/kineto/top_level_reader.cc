#include "core/import/kineto/top_level_reader.h"

#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/graph/text_escape.h"

namespace th::kineto {

namespace {
// The text window holds at most one element (or top-level value) beyond a
// chunk; a larger one is refused. Real events are a few hundred bytes.
constexpr size_t kMaxWindow = size_t{256} << 20;
// Pages of a mapping behind the parse are given back above this size.
constexpr size_t kReleaseAbove = size_t{64} << 20;
inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
}  // namespace

TopLevelReader::TopLevelReader(ByteSource& source, size_t chunk_bytes, bool keep_truncated)
    : source_(source),
      chunk_bytes_(std::max<size_t>(chunk_bytes, 4096)),
      keep_truncated_(keep_truncated) {
  size_t mapped_size = 0;
  if (char* mapped = source_.MutableMapping(&mapped_size); mapped && mapped_size > 0) {
    buf_ = mapped;
    mapped_ = true;
    end_ = mapped_size;
    eof_ = true;
  } else {
    window_size_ = chunk_bytes_ * 2;
    window_.reset(new char[window_size_]);
    buf_ = window_.get();
  }
}

Status TopLevelReader::Error(const std::string& what, size_t pos) const {
  return InvalidInput(source_.name() + ": " + what + " at text offset " +
                      std::to_string(window_offset_ + pos));
}

Status TopLevelReader::Fill() {
  if (mapped_) return Ok();  // everything is already there (eof_ is set)
  if (keep_ > 0) {
    std::memmove(buf_, buf_ + keep_, end_ - keep_);
    window_offset_ += keep_;
    pos_ -= keep_;
    end_ -= keep_;
    chunk_start_ -= std::min(chunk_start_, keep_);
    last_element_end_ -= std::min(last_element_end_, keep_);
    value_start_ -= std::min(value_start_, keep_);
    value_scan_ -= std::min(value_scan_, keep_);
    keep_ = 0;
  }
  if (end_ == window_size_) {
    if (window_size_ >= kMaxWindow)
      return Error("a single JSON value larger than 256 MiB (from text offset " +
                       std::to_string(window_offset_ + keep_) + ")",
                   end_);
    std::unique_ptr<char[]> wider(new char[window_size_ * 2]);
    std::memcpy(wider.get(), buf_, end_);
    window_ = std::move(wider);
    window_size_ *= 2;
    buf_ = window_.get();
  }
  auto got = source_.Read(buf_ + end_, window_size_ - end_);
  if (!got.ok()) return got.status();
  if (*got == 0) eof_ = true;
  end_ += *got;
  return Ok();
}

bool TopLevelReader::SkipSpace() {
  while (pos_ < end_ && IsSpace(buf_[pos_])) ++pos_;
  keep_ = pos_;
  return pos_ < end_;
}

bool TopLevelReader::ScanValue(size_t* value_end) {
  if (!value_started_) {
    value_started_ = true;
    value_start_ = value_scan_ = pos_;
    value_depth_ = 0;
    value_in_string_ = value_escaped_ = false;
  }
  keep_ = value_start_;
  for (; value_scan_ < end_; ++value_scan_) {
    char c = buf_[value_scan_];
    if (value_in_string_) {
      if (value_escaped_)
        value_escaped_ = false;
      else if (c == '\\')
        value_escaped_ = true;
      else if (c == '"') {
        value_in_string_ = false;
        if (value_depth_ == 0) {
          *value_end = value_scan_ + 1;
          value_started_ = false;
          return true;
        }
      }
      continue;
    }
    if (c == '"') {
      value_in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++value_depth_;
    } else if (c == '}' || c == ']') {
      if (value_depth_ == 0) {  // end of a scalar, at the enclosing object's '}'
        *value_end = value_scan_;
        value_started_ = false;
        return true;
      }
      if (--value_depth_ == 0) {
        *value_end = value_scan_ + 1;
        value_started_ = false;
        return true;
      }
    } else if (value_depth_ == 0 && (c == ',' || IsSpace(c))) {
      *value_end = value_scan_;
      value_started_ = false;
      return true;
    }
  }
  return false;
}

void TopLevelReader::EmitChunk(size_t from, size_t to, bool final_chunk, TextChunk* chunk) {
  // Text between chunks starts with the separating comma (which an in-place
  // chunk before may have overwritten: CharAt sees the original).
  auto at = [&](size_t i) { return i == patched_pos_ ? patched_char_ : buf_[i]; };
  while (from < to && IsSpace(at(from))) ++from;
  if (from < to && at(from) == ',') ++from;
  while (from < to && IsSpace(at(from))) ++from;
  if (final_chunk) {
    while (to > from && IsSpace(at(to - 1))) --to;
    // A trailing comma: an unterminated top-level array (allowed by the
    // format), or a lenient writer's "...},]" (tolerated, reported).
    if (to > from && at(to - 1) == ',') {
      --to;
      trailing_comma_ = !unterminated_;
    }
  }
  size_t n = to - from;
  chunk->length = n + 2;
  chunk->text_offset = window_offset_ + from;
  chunk->first_event = elements_;
  chunk->sequence = sequence_++;
  chunk->release_before = mapped_ ? from : 0;
  // In place (mapped input): '[' goes on the byte before the first element and
  // ']' on the byte after the last, when neither belongs to another chunk and
  // simdjson's padding can be read past the end. Otherwise the text is copied.
  // The byte at `to` must already be behind the scanner, or it would read the ']'.
  bool in_place = mapped_ && from >= 1 && (patched_pos_ == kNoPatch || from - 1 > patched_pos_) &&
                  to < pos_ && to + simdjson::SIMDJSON_PADDING < end_;
  if (in_place) {
    patched_pos_ = to;
    patched_char_ = buf_[to];
    buf_[from - 1] = '[';
    buf_[to] = ']';
    chunk->data = buf_ + from - 1;
    chunk->capacity = end_ - (from - 1);
    return;
  }
  if (chunk->owned_capacity < chunk->length + simdjson::SIMDJSON_PADDING) {
    chunk->owned_capacity = chunk->length + simdjson::SIMDJSON_PADDING + (chunk->length >> 3);
    chunk->owned.reset(new char[chunk->owned_capacity]);
  }
  char* text = chunk->owned.get();
  text[0] = '[';
  if (n) std::memcpy(text + 1, buf_ + from, n);
  text[n + 1] = ']';
  std::memset(text + n + 2, ' ', simdjson::SIMDJSON_PADDING);
  chunk->data = text;
  chunk->capacity = chunk->owned_capacity;
}

void TopLevelReader::ReleaseBefore(size_t offset) {
  // Small mappings are freed whole soon after; pages given back early would
  // only be faulted in again by the next allocation (a scan's next run).
  if (!mapped_ || end_ < kReleaseAbove) return;
  uintptr_t base = reinterpret_cast<uintptr_t>(buf_);
  uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t first = (base + page - 1) & ~(page - 1);
  uintptr_t last = (base + offset) & ~(page - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

void TopLevelReader::DropIdleGap() {
  if (scanner_.depth() != 0 || scanner_.in_string() || last_element_end_ > chunk_start_) return;
  if (pos_ - chunk_start_ < kIdleGapBytes) return;
  // Between two elements: what was read since the last one may only be the
  // separating comma and whitespace; keep one comma, drop the rest.
  size_t commas = 0;
  for (size_t i = chunk_start_; i < pos_; ++i) {
    char c = buf_[i];
    if (c == ',') {
      if (++commas > 1) return;  // an empty element: left for the parser to report
    } else if (!IsSpace(c)) {
      return;  // a scalar element in progress
    }
  }
  if (commas) buf_[pos_ - 1] = ',';
  chunk_start_ = last_element_end_ = pos_ - (commas ? 1 : 0);
  keep_ = chunk_start_;
}

StatusOr<bool> TopLevelReader::ReadEvents(TextChunk* chunk) {
  while (true) {
    keep_ = chunk_start_;
    size_t limit = chunk_start_ + chunk_bytes_;
    if (pos_ >= limit) limit = end_;
    size_t stop_at = std::min(end_, limit);
    auto r = scanner_.Scan(buf_, pos_, stop_at, &last_element_end_);
    if (r.bad_close) return Error("unexpected '}' in the traceEvents array", r.stop);
    if (r.array_closed) {
      size_t from = chunk_start_;
      pos_ = r.stop + 1;
      mode_ = top_level_array_ ? Mode::kTrailing : Mode::kAfterValue;
      keep_ = pos_;
      EmitChunk(from, r.stop, true, chunk);
      elements_ = scanner_.elements_closed();
      return true;
    }
    pos_ = r.stop;
    if (pos_ >= limit && last_element_end_ > chunk_start_) {
      size_t from = chunk_start_;
      chunk_start_ = last_element_end_;
      EmitChunk(from, last_element_end_, false, chunk);
      elements_ = scanner_.elements_closed();
      return true;
    }
    if (pos_ < end_) continue;
    if (!mapped_) DropIdleGap();
    if (eof_) {
      if (top_level_array_ && scanner_.depth() == 0 && !scanner_.in_string()) {
        unterminated_ = true;
        EmitChunk(chunk_start_, end_, true, chunk);
        mode_ = Mode::kDone;
        return true;
      }
      if (keep_truncated_) {
        // Keep the complete elements; the partial one and the rest are lost.
        truncated_at_ = window_offset_ + end_;
        size_t last = std::max(last_element_end_, chunk_start_);
        EmitChunk(chunk_start_, last, true, chunk);
        elements_ = scanner_.elements_closed();
        mode_ = Mode::kDone;
        return true;
      }
      return Error("input ends inside the traceEvents array (truncated? " +
                       std::to_string(scanner_.elements_closed()) + " complete events before)",
                   end_);
    }
    TH_RETURN_IF_ERROR(Fill());
  }
}

StatusOr<bool> TopLevelReader::Next(TextChunk* chunk) {
  while (true) {
    if (mode_ == Mode::kDone) return false;
    if (mode_ == Mode::kEvents) {
      auto got = ReadEvents(chunk);
      if (!got.ok() || *got) return got;
      continue;
    }
    bool need_more = false;
    switch (mode_) {
      case Mode::kStart: {
        if (!SkipSpace()) {
          need_more = true;
          break;
        }
        // A UTF-8 byte order mark (some editors and Windows tools add one),
        // also when a stream hands it over in pieces.
        size_t have = std::min<size_t>(end_ - pos_, 3);
        if (std::memcmp(buf_ + pos_, "\xEF\xBB\xBF", have) == 0) {
          if (have < 3 && !eof_) {
            need_more = true;
            break;
          }
          if (have == 3) {
            pos_ += 3;
            keep_ = pos_;
            break;
          }
        }
        char c = buf_[pos_];
        if (c == '{') {
          mode_ = Mode::kExpectKey;
        } else if (c == '[') {
          top_level_array_ = found_events_ = true;
          mode_ = Mode::kEvents;
          chunk_start_ = last_element_end_ = pos_ + 1;
        } else {
          return Unsupported(source_.name() + ": not a JSON trace: the text starts with '" +
                             PrintableBytes(std::string_view(&c, 1)) + "'");
        }
        ++pos_;
        keep_ = pos_;
        break;
      }
      case Mode::kExpectKey: {
        if (!SkipSpace()) {
          need_more = true;
          break;
        }
        char c = buf_[pos_];
        if (c == '}') {
          ++pos_;
          mode_ = Mode::kTrailing;
          break;
        }
        if (c != '"')
          return Error("expected a key, found '" + PrintableBytes(std::string_view(&c, 1)) + "'",
                       pos_);
        const char* q =
            static_cast<const char*>(std::memchr(buf_ + pos_ + 1, '"', end_ - pos_ - 1));
        if (!q) {
          need_more = true;
          break;
        }
        key_.assign(buf_ + pos_ + 1, static_cast<size_t>(q - (buf_ + pos_ + 1)));
        pos_ = static_cast<size_t>(q - buf_) + 1;
        keep_ = pos_;
        mode_ = Mode::kExpectColon;
        break;
      }
      case Mode::kExpectColon: {
        if (!SkipSpace()) {
          need_more = true;
          break;
        }
        if (buf_[pos_] != ':') return Error("expected ':' after key \"" + key_ + "\"", pos_);
        ++pos_;
        keep_ = pos_;
        mode_ = Mode::kValue;
        break;
      }
      case Mode::kValue: {
        if (!value_started_ && !SkipSpace()) {
          need_more = true;
          break;
        }
        if (!value_started_ && key_ == "traceEvents") {
          if (buf_[pos_] != '[') return Error("traceEvents is not an array", pos_);
          found_events_ = true;
          ++pos_;
          chunk_start_ = last_element_end_ = pos_;
          mode_ = Mode::kEvents;
          break;
        }
        size_t value_end = 0;
        if (!ScanValue(&value_end)) {
          need_more = true;
          break;
        }
        values_[key_].assign(buf_ + value_start_, buf_ + value_end);
        pos_ = value_end;
        keep_ = pos_;
        mode_ = Mode::kAfterValue;
        break;
      }
      case Mode::kAfterValue: {
        if (!SkipSpace()) {
          need_more = true;
          break;
        }
        char c = buf_[pos_];
        if (c == ',') {
          mode_ = Mode::kExpectKey;
        } else if (c == '}') {
          mode_ = Mode::kTrailing;
        } else {
          return Error("expected ',' or '}' in the top-level object, found '" +
                           PrintableBytes(std::string_view(&c, 1)) + "'",
                       pos_);
        }
        ++pos_;
        keep_ = pos_;
        break;
      }
      case Mode::kTrailing: {
        if (SkipSpace()) return Error("unexpected text after the end of the JSON document", pos_);
        if (eof_) {
          mode_ = Mode::kDone;
          break;
        }
        need_more = true;
        break;
      }
      default:
        break;
    }
    if (need_more) {
      if (eof_) {
        if (mode_ == Mode::kStart)
          return Unsupported(source_.name() + ": empty input, not a trace");
        if (keep_truncated_ && found_events_) {
          truncated_at_ = window_offset_ + end_;
          mode_ = Mode::kDone;
          continue;
        }
        return Error("input ends inside the top-level JSON object (truncated?)", end_);
      }
      TH_RETURN_IF_ERROR(Fill());
    }
  }
}

}  // namespace th::kineto
