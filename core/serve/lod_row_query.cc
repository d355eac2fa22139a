// QueryRow (lod_row.h): one tile of one row.
//
// Events starting in the tile are positions [lo, hi) of the row's time order.
// Drawn events there are found with the BlockMaxTree (class >= L), drawn ones
// starting before the tile by their end (> tile start). Narrow events are
// counted one by one when the tile holds few events or no pyramid level lies
// at or below L; otherwise from the highest stored level L' <= L (merging its
// buckets 2^(L-L') at a time) plus the events of classes [L', L), which the
// tree finds too.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "core/serve/lod_levels.h"
#include "core/serve/lod_row.h"

namespace th::serve {
namespace {

class TileBuilder {
 public:
  TileBuilder(const RowIndex& row, const EventColumns& events, int level, int64_t tile)
      : row_(row),
        events_(events),
        level_(level),
        start_(TileStart(level, tile)),
        end_(TileStart(level, tile) + Pow2(level + kTileBucketsLog2)),
        first_bucket_(static_cast<Int128>(tile) * kTileBuckets),
        // A tile well inside the int64 range (every real trace's) takes
        // AddNarrow's 64-bit path: its bucket ends then fit too.
        narrow64_(start_ >= static_cast<Int128>(INT64_MIN / 4) &&
                  end_ <= static_cast<Int128>(INT64_MAX / 4) && level_ < 60),
        start64_(narrow64_ ? static_cast<int64_t>(start_) : 0),
        first_bucket64_(narrow64_ ? static_cast<int64_t>(first_bucket_) : 0) {}

  void Run(LodTile* out);

 private:
  int64_t Ts(uint32_t p) const { return events_.ts[row_.order[p]]; }
  int64_t Dur(uint32_t p) const { return events_.dur[row_.order[p]]; }
  // First position whose start is >= t.
  uint32_t LowerBound(Int128 t) const;
  // A narrow event starting in the tile: its count and busy time.
  void AddNarrow(uint32_t p);
  void AddSpillIn(uint32_t lo, const PyramidLevel* pyramid);
  void AddPyramid(const PyramidLevel& pyramid, uint32_t lo, uint32_t hi);
  void ScanDirect(uint32_t lo, uint32_t hi);
  void Emit(LodTile* out) const;

  const RowIndex& row_;
  const EventColumns& events_;
  const int level_;
  const Int128 start_, end_;
  const Int128 first_bucket_;  // number at this level of the tile's bucket 0
  const bool narrow64_;
  const int64_t start64_, first_bucket64_;  // start_ and first_bucket_ when narrow64_
  // Bucket b's slot is valid once b is marked in touched_ (no 3 KB cleared
  // and scanned per tile: most tiles touch few buckets).
  uint32_t& Count(int64_t b) { return Touch(b), count_[b]; }
  int64_t& Busy(int64_t b) { return Touch(b), busy_[b]; }
  void Touch(int64_t b) {
    const uint64_t bit = uint64_t{1} << (b & 63);
    if (touched_[b >> 6] & bit) return;
    touched_[b >> 6] |= bit;
    count_[b] = 0;
    busy_[b] = 0;
  }
  std::array<uint64_t, kTileBuckets / 64> touched_{};
  std::array<uint32_t, kTileBuckets> count_;
  std::array<int64_t, kTileBuckets> busy_;
  std::vector<uint32_t> drawn_;  // positions, ascending
};

uint32_t TileBuilder::LowerBound(Int128 t) const {
  const uint32_t block = row_.tree.BlockBefore(t);
  uint32_t lo = block * BlockMaxTree::kBlockEvents;
  uint32_t hi = std::min(lo + BlockMaxTree::kBlockEvents, static_cast<uint32_t>(row_.size()));
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (static_cast<Int128>(Ts(mid)) < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void TileBuilder::AddNarrow(uint32_t p) {
  const int64_t ts = Ts(p);
  int64_t end64;
  if (narrow64_ && !__builtin_add_overflow(ts, std::max<int64_t>(Dur(p), 0), &end64)) {
    // The event starts in the tile, so its bucket and that bucket's end fit.
    const int64_t bucket = (ts >> level_) - first_bucket64_;
    const int64_t bucket_end = start64_ + ((bucket + 1) << level_);
    ++Count(bucket);
    int64_t& busy = Busy(bucket);
    busy = SaturatingAdd(busy, std::min(end64, bucket_end) - ts);
    if (end64 > bucket_end && bucket + 1 < kTileBuckets) {
      int64_t& next = Busy(bucket + 1);
      next = SaturatingAdd(next, end64 - bucket_end);
    }
    return;
  }
  // Near the ends of the int64 range: exact in 128 bits.
  const Int128 end = EventEnd(ts, Dur(p));
  const int64_t bucket = static_cast<int64_t>(FloorShift(ts, level_) - first_bucket_);  // 0..255
  const Int128 bucket_end = start_ + (static_cast<Int128>(bucket) + 1) * Pow2(level_);
  ++Count(bucket);
  int64_t& busy = Busy(bucket);
  busy = SaturatingAdd(busy, static_cast<int64_t>(std::min(end, bucket_end) - ts));
  if (end > bucket_end && bucket + 1 < kTileBuckets) {
    int64_t& next = Busy(bucket + 1);
    next = SaturatingAdd(next, static_cast<int64_t>(end - bucket_end));
  }
}

// Events starting before the tile and ending inside or after its start: the
// wide ones are drawn, the narrow ones (they end inside bucket 0) add busy
// time unless the pyramid already holds them (class < its level).
void TileBuilder::AddSpillIn(uint32_t lo, const PyramidLevel* pyramid) {
  if (lo == 0) return;
  const uint32_t block_size = BlockMaxTree::kBlockEvents;
  row_.tree.ForBlocksWithEndAbove(0, (lo - 1) / block_size, start_, [&](uint32_t block) {
    const uint32_t last = std::min(lo, (block + 1) * block_size);
    for (uint32_t p = block * block_size; p < last; ++p) {
      const Int128 end = EventEnd(Ts(p), Dur(p));
      if (end <= start_) continue;
      if (row_.cls[p] >= level_) {
        drawn_.push_back(p);
      } else if (pyramid == nullptr || row_.cls[p] >= pyramid->level) {
        int64_t& busy = Busy(0);
        busy = SaturatingAdd(busy, static_cast<int64_t>(end - start_));
      }
    }
  });
}

void TileBuilder::ScanDirect(uint32_t lo, uint32_t hi) {
  for (uint32_t p = lo; p < hi; ++p) {
    if (row_.cls[p] >= level_)
      drawn_.push_back(p);
    else
      AddNarrow(p);
  }
}

void TileBuilder::AddPyramid(const PyramidLevel& pyramid, uint32_t lo, uint32_t hi) {
  const int shift = level_ - pyramid.level;
  const Int128 first = start_ >> pyramid.level, last = end_ >> pyramid.level;  // [first, last)
  auto it = std::lower_bound(pyramid.bucket.begin(), pyramid.bucket.end(), first,
                             [](int64_t b, Int128 f) { return static_cast<Int128>(b) < f; });
  // Stored buckets come in order: sum each run that falls in one tile bucket.
  int64_t run = -1;
  uint32_t run_count = 0;
  int64_t run_busy = 0;
  auto flush = [&] {
    if (run < 0) return;
    Count(run) += run_count;
    int64_t& busy = Busy(run);
    busy = SaturatingAdd(busy, run_busy);
  };
  for (size_t i = static_cast<size_t>(it - pyramid.bucket.begin());
       i < pyramid.bucket.size() && static_cast<Int128>(pyramid.bucket[i]) < last; ++i) {
    const int64_t bucket =
        static_cast<int64_t>(FloorShift(pyramid.bucket[i], shift) - first_bucket_);
    if (bucket != run) {
      flush();
      run = bucket;
      run_count = 0;
      run_busy = 0;
    }
    run_count += pyramid.count[i];
    run_busy = SaturatingAdd(run_busy, pyramid.busy_ns[i]);
  }
  flush();
  if (lo == hi) return;
  const uint32_t block_size = BlockMaxTree::kBlockEvents;
  row_.tree.ForBlocksWithClassAtLeast(
      lo / block_size, (hi - 1) / block_size, pyramid.level, [&](uint32_t block) {
        const uint32_t end = std::min(hi, (block + 1) * block_size);
        for (uint32_t p = std::max(lo, block * block_size); p < end; ++p) {
          if (row_.cls[p] >= level_)
            drawn_.push_back(p);
          else if (row_.cls[p] >= pyramid.level)
            AddNarrow(p);
        }
      });
}

void TileBuilder::Emit(LodTile* out) const {
  out->drawn.reserve(drawn_.size());
  for (uint32_t p : drawn_) out->drawn.push_back(row_.order[p]);
  size_t touched = 0;
  for (uint64_t w : touched_) touched += static_cast<size_t>(std::popcount(w));
  out->buckets.reserve(touched);
  for (int word = 0; word < kTileBuckets / 64; ++word) {
    for (uint64_t bits = touched_[word]; bits != 0; bits &= bits - 1) {
      const int b = word * 64 + std::countr_zero(bits);
      if (count_[b] != 0 || busy_[b] != 0)
        out->buckets.push_back({static_cast<uint16_t>(b), count_[b], busy_[b]});
    }
  }
}

void TileBuilder::Run(LodTile* out) {
  if (row_.size() == 0 || !MayEndAfter(row_.reach, start_) || end_ <= row_.first_start) return;
  const uint32_t lo = LowerBound(start_), hi = LowerBound(end_);
  const PyramidLevel* pyramid = nullptr;
  if (hi - lo > kDirectScanEvents) {
    for (const PyramidLevel& l : row_.levels)
      if (l.level <= level_) pyramid = &l;
  }
  AddSpillIn(lo, pyramid);
  if (pyramid != nullptr)
    AddPyramid(*pyramid, lo, hi);
  else
    ScanDirect(lo, hi);
  Emit(out);
}

}  // namespace

void QueryRow(const RowIndex& row, const EventColumns& events, int level, int64_t tile,
              LodTile* out) {
  out->clear();
  // Events lie in [INT64_MIN, 2^64 - 2] (an end may pass INT64_MAX): tiles
  // wholly outside hold nothing (and their bounds could not be computed).
  const int shift = level + kTileBucketsLog2;
  const int64_t last_tile = shift >= 64 ? 0 : static_cast<int64_t>(UINT64_MAX >> shift);
  if (tile < FloorShift(INT64_MIN, shift) || tile > last_tile) return;
  TileBuilder(row, events, level, tile).Run(out);
}

}  // namespace th::serve
