// Writing a redacted archive of rank files: the same kind as the input
// (.tar, .tar.gz/.tgz, .zip), through an AtomicFileSink. Members get neutral
// metadata (mode 0644, no owner or group names, the time of the run): an
// archive's headers are no place for the originals either.
#pragma once

#include <memory>
#include <string>

#include "core/graph/status.h"
#include "core/redact/output_sink.h"

struct archive;

namespace th {
struct LibArchiveApi;
}

namespace th::redact {

enum class ArchiveKind { kTar, kTarGz, kZip };

// The kind of `path` by its name, else by its first bytes (gzip magic: a
// .tar.gz; "PK": a zip; otherwise tar).
ArchiveKind ArchiveKindOf(const std::string& path);

class ArchiveWriter {
 public:
  // `out` receives the archive bytes; the caller commits it after Close().
  static StatusOr<std::unique_ptr<ArchiveWriter>> Open(ArchiveKind kind, ByteSink* out);
  ~ArchiveWriter();

  // Adds a regular file `name` of `size` bytes read from `content`.
  Status Add(const std::string& name, uint64_t size, TempFileSink& content);
  // Writes the archive's end; `out` is then complete (not finished).
  Status Close();

 private:
  ArchiveWriter(const LibArchiveApi& la, archive* a, ByteSink* out) : la_(la), a_(a), out_(out) {}
  Status Error(const std::string& what) const;
  const LibArchiveApi& la_;
  archive* a_;
  ByteSink* out_;
  bool closed_ = false;
};

}  // namespace th::redact
