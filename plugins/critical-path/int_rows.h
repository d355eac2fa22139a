// An integer column of a table the plugin publishes, appended to row by row:
// into a vector of its own, or, once Allocate(n) has sized it, in place into
// a column of n values from Context::NewInts (in the host's memory, published
// without a copy). A sized column must be filled to exactly n rows.
#pragma once

#include <tracehound/sdk.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace th::critical_path {

class IntRows {
 public:
  // Sizes the column to `n` rows (it must be empty).
  void Allocate(const th::sdk::Context& ctx, size_t n) {
    if (size() != 0) throw std::logic_error("IntRows::Allocate on a column with rows");
    fixed_ = ctx.NewInts(n);
    sized_ = true;
  }
  void push_back(int64_t v) {
    if (!sized_) {
      own_.push_back(v);
    } else if (filled_ < fixed_.size()) {
      fixed_[filled_++] = v;
    } else {
      throw std::logic_error("IntRows: more rows than allocated");
    }
  }
  // Room for `n` more rows, to be written through the pointer (valid until
  // the next push_back or Extend).
  int64_t* Extend(size_t n) {
    if (!sized_) {
      own_.resize(own_.size() + n);
      return own_.data() + own_.size() - n;
    }
    if (n > fixed_.size() - filled_) throw std::logic_error("IntRows: more rows than allocated");
    filled_ += n;
    return fixed_.data() + filled_ - n;
  }
  size_t size() const { return sized_ ? filled_ : own_.size(); }
  int64_t operator[](size_t i) const { return sized_ ? fixed_[i] : own_[i]; }
  // Appends the rows of `other`.
  void Append(const IntRows& other) {
    for (size_t i = 0; i < other.size(); ++i) push_back(other[i]);
  }
  // Adds the column to `table` (a sized column must be full).
  void AddTo(th::sdk::Table& table, std::string name, std::string unit = "") && {
    if (!sized_) {
      table.Int(std::move(name), std::move(own_), std::move(unit));
      return;
    }
    if (filled_ != fixed_.size())
      throw std::logic_error("IntRows: " + std::to_string(filled_) + " rows of " +
                             std::to_string(fixed_.size()) + " allocated for " + name);
    table.IntColumn(std::move(name), std::move(fixed_), std::move(unit));
  }

 private:
  bool sized_ = false;
  std::vector<int64_t> own_;
  th::sdk::Column<int64_t> fixed_;
  size_t filled_ = 0;
};

}  // namespace th::critical_path
