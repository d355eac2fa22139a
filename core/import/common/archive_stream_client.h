// libarchive's read and seek callbacks over an ArchiveStream: blocks are
// read from the stream, a seek is remembered and served, when the next read
// comes, from the block last handed over, by reading a short gap ahead, or
// by reopening the stream at the offset.
#pragma once

#include <archive.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/graph/status.h"
#include "core/import/common/archive_reader.h"
#include "core/import/common/byte_source.h"

namespace th {

class ArchiveStreamClient {
 public:
  explicit ArchiveStreamClient(const ArchiveStream& stream) : stream_(stream) {}

  // The callbacks, with this object as libarchive's client data.
  static la_ssize_t ReadCallback(archive* a, void* self, const void** block);
  static la_int64_t SeekCallback(archive* a, void* self, la_int64_t offset, int whence);

  // The stream's error that made a callback fail (ok when none did).
  const Status& failure() const { return failure_; }
  // The offset of the next byte the read callback hands over.
  uint64_t position() const { return position_; }

 private:
  la_ssize_t Read(const void** block);
  la_int64_t Seek(la_int64_t offset, int whence);
  // Makes source_ yield the byte at position_ next.
  Status Reposition();

  const ArchiveStream& stream_;
  std::unique_ptr<ByteSource> source_;
  uint64_t source_position_ = 0;  // offset of the next byte source_ yields
  std::vector<char> block_;       // the block last handed over
  uint64_t block_start_ = 0;
  size_t block_size_ = 0;
  uint64_t position_ = 0;
  Status failure_;
};

}  // namespace th
