// The trace formats tracehound reads, and the one place that decides which
// format a file or archive member is: by content (each format's sniffer on
// its first bytes), with file names as hints only.
//
// Decision for a file: an archive by its magic bytes (tar, zip; gzip'd tar
// too); else the first format whose sniffer claims the content (formats whose
// name hint the file carries are asked first); else an archive libarchive
// opens; else the format the name hints at (its importer says what is wrong);
// else an archive by name; else unrecognised, an error that names the file
// and its first bytes. Archive members: the same without the archive steps.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/import/importer.h"

namespace th {

struct Detection {
  enum class Kind { kFormat, kArchive, kUnknown };
  Kind kind = Kind::kUnknown;
  const Importer* importer = nullptr;  // kFormat
  ContentHead head;
  Status error;  // the head could not be read (kUnknown unless the name decided)
};

class ImporterRegistry {
 public:
  // Adds a format (asked after those registered before it). Register before
  // any import runs; names are unique (a second one is refused).
  Status Register(std::unique_ptr<Importer> importer);

  // The format of content `head` of a file or member named `name`; nullptr
  // when no sniffer claims it and the name hints at no format.
  const Importer* Find(std::string_view name, const ContentHead& head) const;

  // The format `name` hints at by its ending; nullptr when none.
  const Importer* FindByName(std::string_view name) const;

  const Importer* FindByFormat(std::string_view format) const;

  // What the file at `path` is (reads its head; an unreadable file is
  // kUnknown with an empty head).
  Detection Detect(const std::string& path) const;

  // Whether a directory walk takes `path`: named like a trace or an
  // archive (not opened), else its content is claimed.
  bool IsTraceCandidate(const std::string& path) const;

  // Named like a trace or an archive (for files that must not be opened).
  bool NamedLikeTrace(std::string_view name) const;
  bool NamedLikeArchive(std::string_view name) const;

  // `file_name` without the format's name hint; empty when it has none.
  std::string NameStem(std::string_view format, std::string_view file_name) const;

  // Events estimated for a file of `bytes` stored bytes (the scan's memory
  // budget): the detected format's estimate over the content size (a gzip
  // trailer's size when plausible, else 8 x); archives and unrecognised files
  // as 8 x their size of the first registered format.
  uint64_t EstimatedEvents(const std::string& path, uint64_t bytes) const;

  const std::vector<std::unique_ptr<Importer>>& importers() const { return importers_; }

  // An error naming an input no format claims and what its first bytes are.
  static Status Unrecognised(const std::string& name, const ContentHead& head);

 private:
  const Importer* Sniffed(std::string_view name, const ContentHead& head) const;

  std::vector<std::unique_ptr<Importer>> importers_;
};

// The process's registry, the built-in formats registered on first use
// (builtin_formats.cc).
ImporterRegistry& Registry();

// Registers the formats shipped with tracehound.
void RegisterBuiltinFormats(ImporterRegistry* registry);

}  // namespace th
