#include "core/plugin/text_column_copy.h"

#include <cstring>
#include <string_view>
#include <vector>

namespace th {
namespace {

// Open addressing over the addresses seen (linear probing, a power-of-two
// table at most half full): address -> value number.
class AddressValues {
 public:
  // The value of `text`, added to `column` the first time its address comes.
  uint32_t ValueOf(const char* text, TextColumn* column) {
    if (2 * (count_ + 1) > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t at = Hash(text) & mask;; at = (at + 1) & mask) {
      Slot& s = slots_[at];
      if (s.address == text) return s.value;
      if (s.address == nullptr) {
        s = {text, column->AddValue(std::string_view(text, std::strlen(text)))};
        ++count_;
        return s.value;
      }
    }
  }
  size_t count() const { return count_; }

 private:
  struct Slot {
    const char* address = nullptr;
    uint32_t value = 0;
  };
  static size_t Hash(const char* p) {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(p) * 0x9E3779B97F4A7C15ull) >> 20);
  }
  void Grow() {
    std::vector<Slot> old(slots_.empty() ? 1024 : 2 * slots_.size());
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.address == nullptr) continue;
      size_t at = Hash(s.address) & mask;
      while (slots_[at].address != nullptr) at = (at + 1) & mask;
      slots_[at] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

// Past this many rows with no more than one row in this many sharing a
// value, the lookup stops paying for itself: the rest are copied as they come.
constexpr uint64_t kSharingProbeRows = 4096;
constexpr uint64_t kMinRowsPerValue = 2;

}  // namespace

TextColumn CopyTextColumn(const char* const* values, uint64_t n) {
  TextColumn column;
  column.reserve(n, 0);
  AddressValues seen;
  static const char kEmpty[] = "";
  uint64_t i = 0;
  const char* last = nullptr;  // the previous row's address and value: runs skip the lookup
  uint32_t last_value = 0;
  for (; i < n; ++i) {
    if (i == kSharingProbeRows && seen.count() * kMinRowsPerValue > i) break;
    const char* text = values[i] ? values[i] : kEmpty;
    if (text != last) {
      last = text;
      last_value = seen.ValueOf(text, &column);
    }
    column.PushRow(last_value);
  }
  for (; i < n; ++i) column.push_back(values[i] ? values[i] : "");
  return column;
}

}  // namespace th
