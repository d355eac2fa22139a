// TopLevelReader: the sequential front of Kineto import.
//
// Phase 1 reads decompressed text in a bounded window. The top-level object's
// keys other than `traceEvents` are captured as raw JSON (deviceProperties,
// distributedInfo, baseTimeNanoseconds, ...). Phase 2 cuts `traceEvents` into
// TextChunks of whole elements with EventBoundaryScanner; chunks are parsed in
// parallel elsewhere. A top-level array (plain Chrome trace) is read the same
// way and may be left unterminated, as the Trace Event Format allows.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/import/common/byte_source.h"
#include "core/import/kineto/event_boundary_scanner.h"
#include "core/import/kineto/parsed_chunk.h"

namespace th::kineto {

class TopLevelReader {
 public:
  // keep_truncated: text that ends early yields its complete events instead of
  // an error; truncated_at() then says where the text ended.
  TopLevelReader(ByteSource& source, size_t chunk_bytes, bool keep_truncated = false);

  // Fills `chunk` with the next run of complete events. Returns false once the
  // events (and the rest of the document) have been read.
  StatusOr<bool> Next(TextChunk* chunk);

  // Valid after Next returned false; the keys written before traceEvents are
  // there once Next has returned the first chunk.
  const std::map<std::string, std::string>& top_level_values() const { return values_; }
  bool found_events() const { return found_events_; }
  bool top_level_array() const { return top_level_array_; }
  uint64_t text_bytes() const { return window_offset_ + end_; }

  // Mapped input only: gives back the pages before `offset` (a chunk's
  // release_before) once every chunk up to it is merged, bounding resident text.
  // Safe to call from another thread than Next().
  void ReleaseBefore(size_t offset);
  int64_t elements() const { return elements_; }
  std::optional<uint64_t> truncated_at() const { return truncated_at_; }
  // "...},]": a comma before the closing bracket, tolerated.
  bool trailing_comma() const { return trailing_comma_; }

 private:
  enum class Mode {
    kStart,
    kExpectKey,
    kExpectColon,
    kValue,
    kAfterValue,
    kEvents,
    kTrailing,
    kDone
  };

  Status Fill();  // more text into the window, keeping [keep_, end_)
  Status Error(const std::string& what, size_t pos) const;
  bool SkipSpace();  // advances pos_ over whitespace; false if the window ran out
  // Finds the end of the JSON value starting at pos_ (resumable); true when found.
  bool ScanValue(size_t* value_end);
  void EmitChunk(size_t from, size_t to, bool final_chunk, TextChunk* chunk);
  // Streaming input: whitespace between elements is dropped from the window
  // instead of held (a hostile file can hold gigabytes of it).
  static constexpr size_t kIdleGapBytes = size_t{1} << 16;
  void DropIdleGap();
  StatusOr<bool> ReadEvents(TextChunk* chunk);

  ByteSource& source_;
  size_t chunk_bytes_;
  bool keep_truncated_;
  std::optional<uint64_t> truncated_at_;
  bool trailing_comma_ = false;
  bool unterminated_ = false;  // a top-level array that ends without its bracket
  // Streaming input. Not zero-filled: bytes past end_ are never read, and a
  // fresh 2 MiB of zeros (a memset and its page faults) was a tenth of the
  // import time of a 1 MB trace.
  std::unique_ptr<char[]> window_;
  size_t window_size_ = 0;
  char* buf_ = nullptr;  // window_.get(), or the whole mapped input
  bool mapped_ = false;
  static constexpr size_t kNoPatch = SIZE_MAX;
  size_t patched_pos_ = kNoPatch;  // byte overwritten with ']' by the last in-place chunk
  char patched_char_ = 0;
  size_t keep_ = 0, pos_ = 0, end_ = 0;
  uint64_t window_offset_ = 0;  // text offset of window_[0]
  bool eof_ = false;

  Mode mode_ = Mode::kStart;
  bool top_level_array_ = false;
  bool found_events_ = false;
  std::string key_;
  std::map<std::string, std::string> values_;
  // Resumable state of ScanValue.
  size_t value_start_ = 0, value_scan_ = 0;
  int value_depth_ = 0;
  bool value_in_string_ = false, value_escaped_ = false, value_started_ = false;

  EventBoundaryScanner scanner_;
  size_t chunk_start_ = 0, last_element_end_ = 0;
  int64_t elements_ = 0;
  uint64_t sequence_ = 0;
};

}  // namespace th::kineto
