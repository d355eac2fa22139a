#include "core/import/common/archive_stream_client.h"

#include <algorithm>
#include <cstdio>

namespace th {

namespace {

constexpr size_t kBlockBytes = size_t{1} << 20;
// A gap ahead up to this size is read and dropped; a longer one reopens.
constexpr uint64_t kReadAheadGap = uint64_t{8} << 20;

}  // namespace

la_ssize_t ArchiveStreamClient::ReadCallback(archive*, void* self, const void** block) {
  return static_cast<ArchiveStreamClient*>(self)->Read(block);
}

la_int64_t ArchiveStreamClient::SeekCallback(archive*, void* self, la_int64_t offset, int whence) {
  return static_cast<ArchiveStreamClient*>(self)->Seek(offset, whence);
}

la_ssize_t ArchiveStreamClient::Read(const void** block) {
  if (position_ >= block_start_ && position_ < block_start_ + block_size_) {
    // A seek back into the block last handed over: its rest again.
    const size_t at = static_cast<size_t>(position_ - block_start_);
    *block = block_.data() + at;
    position_ = block_start_ + block_size_;
    return static_cast<la_ssize_t>(block_size_ - at);
  }
  if (position_ >= stream_.size) return 0;
  failure_ = Reposition();
  if (!failure_.ok()) return ARCHIVE_FATAL;
  block_.resize(kBlockBytes);
  auto got = source_->Read(block_.data(), block_.size());
  if (!got.ok()) {
    failure_ = got.status();
    return ARCHIVE_FATAL;
  }
  block_start_ = position_;
  block_size_ = *got;
  source_position_ += *got;
  position_ += *got;
  *block = block_.data();
  return static_cast<la_ssize_t>(*got);
}

Status ArchiveStreamClient::Reposition() {
  if (source_ && position_ > source_position_ && position_ - source_position_ <= kReadAheadGap) {
    block_.resize(kBlockBytes);
    block_size_ = 0;  // overwritten by the gap
    while (source_position_ < position_) {
      size_t want =
          static_cast<size_t>(std::min<uint64_t>(block_.size(), position_ - source_position_));
      auto got = source_->Read(block_.data(), want);
      if (!got.ok()) return got.status();
      if (*got == 0) break;
      source_position_ += *got;
    }
  }
  if (source_ && source_position_ == position_) return Ok();
  source_.reset();  // its transfers stop before the next one starts
  auto opened = stream_.open_at(position_);
  if (!opened.ok()) return opened.status();
  source_ = std::move(*opened);
  source_position_ = position_;
  return Ok();
}

la_int64_t ArchiveStreamClient::Seek(la_int64_t offset, int whence) {
  la_int64_t base = 0;
  if (whence == SEEK_CUR) base = static_cast<la_int64_t>(position_);
  if (whence == SEEK_END) base = static_cast<la_int64_t>(stream_.size);
  const la_int64_t target = base + offset;
  if (target < 0 || target > static_cast<la_int64_t>(stream_.size)) return ARCHIVE_FATAL;
  position_ = static_cast<uint64_t>(target);
  return target;
}

}  // namespace th
