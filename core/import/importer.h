// Importer: one trace format behind the interface the loader, archives, scan
// discovery and the scan memory budget use. A format says whether content is
// its own (Sniff, on the first bytes) and imports it; file names are hints
// only (directory walks, ties, messages), never the decision.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/status.h"
#include "core/graph/trace.h"
#include "core/import/common/byte_source.h"
#include "core/import/common/content_head.h"
#include "core/import/kineto/kineto_importer.h"

namespace th {

using TraceList = std::vector<std::unique_ptr<Trace>>;

class Importer {
 public:
  virtual ~Importer() = default;

  // Short, stable name ("chrome_json", "xspace").
  virtual std::string_view name() const = 0;

  // Name endings this format's files usually carry (".xplane.pb"): files so
  // named are taken by a directory walk without being opened, and an input
  // no sniffer claims goes to the format its name hints at (its importer's
  // error is the most useful).
  virtual std::vector<std::string_view> name_hints() const = 0;

  // Whether content starting with `head` is this format's. `head.decoded` is
  // the content (gunzipped when stored as gzip), at most kContentHeadBytes.
  virtual bool Sniff(const ContentHead& head) const = 0;

  // Imports the file at `path`, whose content Sniff claimed (or whose name
  // hints at this format).
  virtual StatusOr<TraceList> ImportFile(const std::string& path,
                                         const kineto::ImportOptions& options) const = 0;

  // Imports content read from `decoded` (gunzipped already; an archive
  // member named `decoded.name()`).
  virtual StatusOr<TraceList> ImportStream(std::unique_ptr<ByteSource> decoded,
                                           const kineto::ImportOptions& options) const = 0;

  // Events a file of this format holds, from the size of its content
  // (decoded size when gzip): the scan's memory budget.
  virtual uint64_t EstimatedEvents(uint64_t content_bytes) const = 0;

  // Files of this format in one directory are the hosts of one capture (one
  // scan run), e.g. XProf's one .xplane.pb per host.
  virtual bool DirectoryIsOneCapture() const { return false; }

  // Other files that hold the same capture as the file at `path` in another
  // format (JAX writes `<host>.trace.json.gz` beside `<host>.xplane.pb`):
  // among discovered files they are skipped, this one is read.
  virtual std::vector<std::string> SameCaptureCopies(const std::string& path) const {
    (void)path;
    return {};
  }
};

}  // namespace th
