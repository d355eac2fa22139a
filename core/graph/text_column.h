// The values of a text column of a derived table, packed one after another in
// one buffer, each followed by a NUL (an end offset per value), instead of a
// std::string each: a plugin table of millions of rows costs its bytes and 9
// bytes a row, and filling it is one copy, not an allocation per value.
// Values read as std::string_view (or c_str), valid while the column lives
// unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace th {

class TextColumn {
 public:
  // Forward iteration over the values, as views.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::string_view;
    const_iterator() = default;
    const_iterator(const TextColumn* c, size_t i) : c_(c), i_(i) {}
    std::string_view operator*() const { return (*c_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) { return {c_, i_++}; }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

   private:
    const TextColumn* c_ = nullptr;
    size_t i_ = 0;
  };
  using value_type = std::string_view;

  TextColumn() = default;
  // From owned strings (builders and tests).
  TextColumn(const std::vector<std::string>& values) {  // NOLINT: implicit on purpose
    reserve(values.size(), 0);
    for (const std::string& v : values) push_back(v);
  }
  // Room for `values` values of `bytes` bytes in all.
  void reserve(size_t values, size_t bytes) {
    ends_.reserve(values);
    chars_.reserve(bytes + values);
  }
  void push_back(std::string_view v) {
    chars_.append(v);
    ends_.push_back(chars_.size());
    chars_.push_back('\0');
  }
  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  std::string_view operator[](size_t i) const {
    const uint64_t start = i == 0 ? 0 : ends_[i - 1] + 1;
    return std::string_view(chars_.data() + start, ends_[i] - start);
  }
  // Value i, NUL-terminated.
  const char* c_str(size_t i) const { return chars_.data() + (i == 0 ? 0 : ends_[i - 1] + 1); }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }
  std::vector<std::string> ToStrings() const { return {begin(), end()}; }

  friend bool operator==(const TextColumn& a, const TextColumn& b) {
    return a.ends_ == b.ends_ && a.chars_ == b.chars_;
  }
  // For test failure messages (GoogleTest prints through PrintTo).
  friend void PrintTo(const TextColumn& c, std::ostream* os) {
    *os << "{";
    for (size_t i = 0; i < c.size(); ++i) *os << (i ? ", \"" : "\"") << c[i] << "\"";
    *os << "}";
  }

 private:
  std::string chars_;
  std::vector<uint64_t> ends_;  // value i is chars_[ends_[i - 1] + 1, ends_[i]), then a NUL
};

}  // namespace th
