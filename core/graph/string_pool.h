// StringPool: every string of a trace interned once; events refer to strings
// by a dense uint32 id. Id 0 is the empty string.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace th {

using StringId = uint32_t;
inline constexpr StringId kEmptyString = 0;

class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  StringId Intern(std::string_view s);
  // Id of s if it was interned, else kNotFound.
  static constexpr StringId kNotFound = 0xffffffffu;
  StringId Find(std::string_view s) const;
  std::string_view Get(StringId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }
  // Bytes held by the string text and the index (for memory accounting).
  size_t bytes() const { return text_bytes_ + views_.size() * (sizeof(std::string_view) + 32); }

 private:
  std::deque<std::string> storage_;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StringId> index_;
  size_t text_bytes_ = 0;
};

}  // namespace th
