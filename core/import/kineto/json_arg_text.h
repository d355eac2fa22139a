// Arguments kept as JSON text (record_shapes' "Input Dims" / "Input type"):
// the string id of a value's compact text (compact_json.h). One per parse
// thread, kept across chunks. Text equal byte for byte to text this thread
// already checked and interned is looked up, not checked or compacted again:
// an op's shapes repeat every step, so most values cost one hash and one
// compare of their bytes.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/import/kineto/compact_json.h"
#include "core/import/kineto/json_value_check.h"
#include "core/import/kineto/shared_tables.h"

namespace th::kineto {

class JsonArgText {
 public:
  explicit JsonArgText(ThreadTables* tables) : tables_(tables) { Resize(256); }

  // The id of the compact form of `raw`, the text of one JSON value (blanks
  // after it allowed). `checked`: the caller has checked the text already;
  // otherwise a container is checked here (a scalar must have been). On
  // malformed text returns false with the error in `check`.
  bool Intern(std::string_view raw, bool checked, ValueCheck* check, StringId* id) {
    const uint64_t h = HashBytes(raw);
    size_t i = h & mask_;
    for (; slots_[i].used; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.hash == h && s.length == raw.size() &&
          std::memcmp(arena_.data() + s.offset, raw.data(), raw.size()) == 0) {
        *id = s.id;
        return true;
      }
    }
    if (!checked && !raw.empty() && (raw[0] == '[' || raw[0] == '{') &&
        !CheckContainerEnd(raw.data(), check->text_end, check))
      return false;
    CompactJson(raw, &compact_);
    *id = tables_->Intern(compact_);
    if (arena_.size() + raw.size() > kMaxArenaBytes) return true;  // not cached: still right
    slots_[i] = {h, static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(raw.size()), *id,
                 true};
    arena_.append(raw);
    if (++size_ * 2 > slots_.size()) Resize(slots_.size() * 2);
    return true;
  }

 private:
  static constexpr size_t kMaxArenaBytes = size_t{16} << 20;  // distinct texts kept per thread
  struct Slot {
    uint64_t hash = 0;
    uint32_t offset = 0, length = 0;  // in arena_
    StringId id = 0;
    bool used = false;
  };
  void Resize(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (!s.used) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].used) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  ThreadTables* tables_;
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
  std::string arena_;    // the cached raw texts, back to back
  std::string compact_;  // CompactJson's buffer
};

}  // namespace th::kineto
