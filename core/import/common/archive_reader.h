// Archives of rank files (.tar, .tar.gz, .tgz, .zip) read with libarchive,
// member by member, each member streamed as a ByteSource.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/graph/status.h"
#include "core/import/common/byte_source.h"

namespace th {

// True when `path` opens as a tar or zip archive (possibly gzip-compressed).
bool IsArchive(const std::string& path);

// True when `path` is named like an archive this reads: .tar, .tar.gz, .tgz or .zip.
bool HasArchiveName(std::string_view path);

// A member that is not read: a symbolic link (never followed), a hard link
// (its content is read under the name it links to), a FIFO, device or socket.
struct SkippedMember {
  std::string member;
  std::string why;  // "symbolic link to x", "hard link to x", "FIFO", ...
  bool hard_link = false;
};

// Calls `visit` for each regular member, in archive order, and `skipped` (if
// given) for every other member but directories. The source is valid only
// during the call and reads the member's stored bytes (a member that is
// itself gzip-compressed is decoded by the caller with OpenDecoded). The
// source's name is "archive:member".
Status ForEachArchiveMember(const std::string& path,
                            const std::function<Status(const std::string& member,
                                                       std::unique_ptr<ByteSource> source)>& visit,
                            const std::function<void(const SkippedMember&)>& skipped = {});

// An archive read from a stream instead of a local file (a remote object):
// `open_at(offset)` yields its bytes from `offset` to the end. Tar and
// compressed tar are read front to back; a zip is read through its central
// directory (at the end), so each seek reopens the stream where libarchive
// asks, unless the bytes are in the block last read or a short skip ahead.
// Memory: one 1 MiB block besides what the stream itself buffers.
struct ArchiveStream {
  std::string name;   // members are named "name:member"
  uint64_t size = 0;  // bytes
  std::function<StatusOr<std::unique_ptr<ByteSource>>(uint64_t offset)> open_at;
};

// As above, for a stream. An error names the archive and the byte offset
// of the archive reached (or the stream's own error, which names both).
Status ForEachArchiveMember(const ArchiveStream& archive,
                            const std::function<Status(const std::string& member,
                                                       std::unique_ptr<ByteSource> source)>& visit,
                            const std::function<void(const SkippedMember&)>& skipped = {});

}  // namespace th
