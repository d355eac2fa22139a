// The values of a text column of a derived table: its distinct values packed
// one after another in one buffer, each followed by a NUL, and per row the
// number of its value, instead of a std::string a row. A plugin table of
// millions of rows naming a few thousand events costs 4 bytes a row (a value
// added once, its bytes + 9); filling it is one copy, not an allocation per
// value. Values read as std::string_view (or c_str), valid while the column
// lives unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <ostream>
#include <stdexcept>
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
  // Room for `rows` rows of `bytes` bytes of new values in all.
  void reserve(size_t rows, size_t bytes) {
    rows_.reserve(rows);
    chars_.reserve(bytes + rows);
  }
  // A row holding `v`, as a value of its own.
  void push_back(std::string_view v) { PushRow(AddValue(v)); }
  // Adds a value (no row yet) and returns its number.
  uint32_t AddValue(std::string_view v) {
    if (value_ends_.size() >= UINT32_MAX) throw std::length_error("TextColumn: too many values");
    chars_.append(v);
    value_ends_.push_back(chars_.size());
    chars_.push_back('\0');
    return static_cast<uint32_t>(value_ends_.size() - 1);
  }
  // A row holding value number `value` (AddValue's).
  void PushRow(uint32_t value) {
    if (value >= value_ends_.size()) throw std::out_of_range("TextColumn: no such value");
    rows_.push_back(value);
  }
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  size_t value_count() const { return value_ends_.size(); }
  std::string_view operator[](size_t i) const {
    const uint32_t v = rows_[i];
    const uint64_t start = Start(v);
    return std::string_view(chars_.data() + start, value_ends_[v] - start);
  }
  // Row i's value, NUL-terminated.
  const char* c_str(size_t i) const { return chars_.data() + Start(rows_[i]); }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }
  std::vector<std::string> ToStrings() const { return {begin(), end()}; }

  // Equal when they hold the same values row by row (however stored).
  friend bool operator==(const TextColumn& a, const TextColumn& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  // For test failure messages (GoogleTest prints through PrintTo).
  friend void PrintTo(const TextColumn& c, std::ostream* os) {
    *os << "{";
    for (size_t i = 0; i < c.size(); ++i) *os << (i ? ", \"" : "\"") << c[i] << "\"";
    *os << "}";
  }

 private:
  uint64_t Start(uint32_t v) const { return v == 0 ? 0 : value_ends_[v - 1] + 1; }

  std::string chars_;                 // the values, each followed by a NUL
  std::vector<uint64_t> value_ends_;  // value v is chars_[value_ends_[v - 1] + 1, value_ends_[v])
  std::vector<uint32_t> rows_;        // per row: its value
};

}  // namespace th
