// ByteSource: a forward-only stream of bytes (a file, a decompressor, an
// archive member). Importers read decompressed text through it in bounded
// pieces, so no input is ever held whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/status.h"

namespace th {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes into buf; returns 0 at the end of the stream.
  virtual StatusOr<size_t> Read(char* buf, size_t n) = 0;
  // The name used in error messages ("runs/rank0.json.gz").
  virtual const std::string& name() const = 0;
  // Bytes consumed from the underlying storage so far (compressed bytes for a
  // decompressor), for "at compressed offset N" in errors and for throughput.
  virtual uint64_t stored_bytes_read() const = 0;
  // Size as stored, when known (0 otherwise).
  virtual uint64_t stored_size() const { return 0; }
  // The whole content as a private, writable memory mapping (copy-on-write;
  // the file is never changed), when the source is a plain file not yet read
  // by the caller; nullptr otherwise. Valid while the source lives.
  // Non-empty when the stream ended early and the source was told to tolerate
  // it (a truncated gzip member): what was lost, for the trust table.
  virtual std::string truncation() const { return {}; }
  virtual char* MutableMapping(size_t* size) {
    (void)size;
    return nullptr;
  }
};

// Opens a file for sequential reading.
StatusOr<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path);

// A source over bytes held in memory (tests, archive members read whole).
std::unique_ptr<ByteSource> MakeMemorySource(std::string name, std::string bytes);

// A source that yields `prefix` (bytes already read from `rest`), then the
// rest of `rest`.
std::unique_ptr<ByteSource> MakePrefixedSource(std::string prefix,
                                               std::unique_ptr<ByteSource> rest);

enum class Compression { kNone, kGzip };

// Looks at the first bytes of `raw` and returns a source that yields the
// decompressed content (gzip: streaming isa-l inflate, multi-member aware).
// `compression` receives what was found.
// keep_truncated: a gzip stream that ends before its trailer ends the text
// there (see ByteSource::truncation) instead of failing.
StatusOr<std::unique_ptr<ByteSource>> OpenDecoded(std::unique_ptr<ByteSource> raw,
                                                  Compression* compression = nullptr,
                                                  bool keep_truncated = false);

// Reads a whole source into memory (small inputs only: metadata, tests).
StatusOr<std::string> ReadAll(ByteSource& source);

}  // namespace th
