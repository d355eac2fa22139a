// Strings and tracks get their final ids while chunks are parsed in parallel:
// SharedTables is the import's one table of each (a lock per miss), and every
// parse thread keeps a ThreadTables cache in front of it, so a string or track
// already seen by the thread costs one hash probe and no lock. Merging a chunk
// is then a plain append. Ids follow first sight across threads, so they can
// differ between runs; everything read from them (names, counts) does not,
// and the graph's track ids are renumbered by first event after the parse
// (GraphBuilder::NumberTracksByFirstEvent).
#pragma once

#include <cstdint>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/graph/flat_hash_map.h"
#include "core/graph/string_pool.h"
#include "core/import/kineto/parsed_chunk.h"

namespace th::kineto {

class SharedTables {
 public:
  explicit SharedTables(StringPool* strings) : strings_(strings) {}

  // The id of s and the pool's stable copy of it.
  std::pair<StringId, std::string_view> InternString(std::string_view s) {
    std::lock_guard<std::mutex> lock(mu_);
    StringId id = strings_->Intern(s);
    return {id, strings_->Get(id)};
  }
  uint32_t InternTrack(const TrackKey& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = track_index_.try_emplace(key, static_cast<uint32_t>(tracks_.size()));
    if (inserted) tracks_.push_back(key);
    return it->second;
  }
  // After parsing: the tracks by id.
  const std::vector<TrackKey>& tracks() const { return tracks_; }

 private:
  std::mutex mu_;
  StringPool* strings_;
  std::vector<TrackKey> tracks_;
  std::unordered_map<TrackKey, uint32_t, TrackKeyHash> track_index_;
};

// Hash of a string, 8 bytes at a time (names are long and repeat a lot).
inline uint64_t HashBytes(std::string_view s) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  uint64_t tail = 0;
  if (i < s.size()) std::memcpy(&tail, s.data() + i, s.size() - i);  // data() may be null
  h = (h ^ tail) * 0x94D049BB133111EBULL;
  return h ^ (h >> 29);
}

class ThreadTables {
 public:
  explicit ThreadTables(SharedTables* shared) : shared_(shared) { Resize(1024); }

  StringId Intern(std::string_view s) {
    uint64_t h = HashBytes(s);
    size_t i = h & mask_;
    while (slots_[i].view.data() != nullptr) {
      if (slots_[i].hash == h && slots_[i].view == s) return slots_[i].id;
      i = (i + 1) & mask_;
    }
    auto [id, stored] = shared_->InternString(s);
    slots_[i] = {h, stored, id};
    if (++size_ * 4 > slots_.size() * 3) Resize(slots_.size() * 2);
    return id;
  }
  uint32_t Track(const TrackKey& key) {
    const uint32_t* id = tracks_.Find(key);
    if (id) return *id;
    uint32_t global = shared_->InternTrack(key);
    tracks_.TryEmplace(key, global);
    return global;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    std::string_view view;  // into the pool's stable storage; data() == nullptr when empty
    StringId id = 0;
  };
  void Resize(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    for (const Slot& s : old) {
      if (s.view.data() == nullptr) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].view.data() != nullptr) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  struct TrackKeyFlatHash {
    size_t operator()(const TrackKey& k) const { return TrackKeyHash()(k); }
  };

  SharedTables* shared_;
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
  FlatHashMap<TrackKey, uint32_t, TrackKeyFlatHash> tracks_{64};
};

}  // namespace th::kineto
