// The first bytes of a file or stream, as importers' sniffers see them: the
// content itself, decoded first when it is stored as gzip.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "core/graph/status.h"
#include "core/import/common/byte_source.h"

namespace th {

// How many bytes of content a sniffer is shown at most.
inline constexpr size_t kContentHeadBytes = 4096;

struct ContentHead {
  std::string stored;   // the first bytes as stored (up to kContentHeadBytes)
  std::string decoded;  // the first bytes of the content (gunzipped when gzip)
  bool gzip = false;    // stored as gzip
  // `decoded` is the whole content (it ended within kContentHeadBytes).
  bool complete = false;
  // The decoded bytes could not all be read (a damaged gzip stream): what
  // was read before the error is kept.
  bool damaged = false;
};

// Reads the head of the file at `path` (opening it like OpenFileSource).
StatusOr<ContentHead> ReadContentHead(const std::string& path);

// Reads the head of `decoded` (already gunzipped) and returns a source that
// yields the whole content again, the head first.
struct PeekedSource {
  ContentHead head;
  std::unique_ptr<ByteSource> source;
};
StatusOr<PeekedSource> PeekHead(std::unique_ptr<ByteSource> decoded);

// "starts with '...'" (printable ASCII, other bytes as \xNN: one line; at most 16 bytes) or
// "empty": what a file looks like, for errors about files no format claims.
std::string DescribeHead(const ContentHead& head);

// True when the content is a tar or zip archive by its magic bytes (zip's
// "PK" header, tar's "ustar" at offset 257 of the decoded content).
bool HasArchiveMagic(const ContentHead& head);

}  // namespace th
