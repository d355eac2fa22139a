// FlatHashMap: open addressing with linear probing for trivially copyable keys
// and values; no erase. 5-10x faster than std::unordered_map for the joins of
// import (correlation ids, flow ids), and one allocation instead of a node per
// entry, which keeps transient memory per event small.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace th {

inline uint64_t MixHash(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

template <typename Key, typename Value, typename Hash>
class FlatHashMap {
 public:
  explicit FlatHashMap(size_t expected = 16) { Rehash(Capacity(expected)); }

  // Inserts (key, value) unless key is present; returns the stored value and
  // whether it was inserted.
  std::pair<Value*, bool> TryEmplace(const Key& key, const Value& value) {
    if ((size_ + 1) * 4 > keys_.size() * 3) Rehash(keys_.size() * 2);
    size_t i = Hash()(key) & mask_;
    while (used_[i]) {
      if (keys_[i] == key) return {&values_[i], false};
      i = (i + 1) & mask_;
    }
    used_[i] = 1;
    keys_[i] = key;
    values_[i] = value;
    ++size_;
    return {&values_[i], true};
  }
  const Value* Find(const Key& key) const {
    size_t i = Hash()(key) & mask_;
    while (used_[i]) {
      if (keys_[i] == key) return &values_[i];
      i = (i + 1) & mask_;
    }
    return nullptr;
  }
  size_t size() const { return size_; }

 private:
  static size_t Capacity(size_t expected) {
    size_t c = 16;
    while (c * 3 < expected * 4) c *= 2;
    return c;
  }
  void Rehash(size_t capacity) {
    std::vector<Key> old_keys = std::move(keys_);
    std::vector<Value> old_values = std::move(values_);
    std::vector<uint8_t> old_used = std::move(used_);
    keys_.assign(capacity, Key{});
    values_.assign(capacity, Value{});
    used_.assign(capacity, 0);
    mask_ = capacity - 1;
    size_ = 0;
    for (size_t i = 0; i < old_keys.size(); ++i)
      if (old_used[i]) TryEmplace(old_keys[i], old_values[i]);
  }

  std::vector<Key> keys_;
  std::vector<Value> values_;
  std::vector<uint8_t> used_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

struct Int64Hash {
  size_t operator()(int64_t k) const {
    return static_cast<size_t>(MixHash(static_cast<uint64_t>(k)));
  }
};

}  // namespace th
