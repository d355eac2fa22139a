// Reads a binary tensorflow.profiler.XSpace (`*.xplane.pb`) without libprotobuf.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/status.h"
#include "core/import/xspace/xspace_model.h"

namespace th::xspace {

// Decodes `bytes` strictly (see wire_reader.h). Errors read
// "<name>: <what> at byte offset N (in <path>)", e.g. path
// `planes[2].lines[0].events[7]`, matching ../shared/tools/oracle.py.
th::StatusOr<XSpaceData> ReadXSpace(std::string_view bytes, const std::string& name);

// The same without the fast paths for events and stats (every field through
// the strict field-by-field decoder): slower, same result. For tests.
th::StatusOr<XSpaceData> ReadXSpaceStrictOnly(std::string_view bytes, const std::string& name);

// Maps the file read-only and decodes it; the name in errors is `path`.
th::StatusOr<XSpaceData> ReadXSpaceFile(const std::string& path);

// Receives a capture plane by plane and line by line. For each plane, in file
// order: BeginPlane; one Preview per line it asked for; then for each line
// BeginLine, LineEvents zero or more times (the line's events in order, in
// batches), EndLine; then EndPlane.
class XSpaceSink {
 public:
  virtual ~XSpaceSink() = default;
  // `plane` holds everything but its lines' events: read those from the
  // batches only (plane.lines[i].events may be empty). Returns the lines
  // whose events are wanted before the lines are delivered.
  virtual std::vector<size_t> BeginPlane(const Plane& plane) = 0;
  // Every event of line `line` (a preview: LineEvents still follow).
  virtual void Preview(const Plane& plane, size_t line, std::span<const Event> events) = 0;
  virtual void BeginLine(const Plane& plane, size_t line) = 0;
  // A batch of the line's events; their stats (plane.StatsOf) and string
  // values live until the call returns.
  virtual void LineEvents(const Plane& plane, size_t line, std::span<const Event> events) = 0;
  // `events`: how many the line held.
  virtual void EndLine(const Plane& plane, size_t line, uint64_t events) = 0;
  virtual void EndPlane(const Plane& plane) = 0;
};

// Hands the decoded capture `data` to `sink` in the order above.
void ReplayXSpace(const XSpaceData& data, XSpaceSink* sink);

// Maps the file and decodes it straight into `sink`, a batch of events at a
// time, so that no model of the whole capture is built (each plane's
// metadata and line headers are decoded before its events). On bad input it
// returns the error ReadXSpaceFile gives (the sink may have received part of
// the capture). kInternal: the streaming decoder failed where the whole-model
// decoder did not (not expected; use ReadXSpaceFile then).
//
// With `guess_line_ends`, a line's fields that follow its events
// (duration_ps, display_id, display_name: protobuf writes them last) are
// found by parsing back from its end instead of skimming every event first.
// A wrong guess is always detected (the events must end exactly where the
// guessed fields begin); the call then fails early with *guess_failed set,
// and must be repeated without guessing.
th::Status StreamXSpaceFile(const std::string& path, XSpaceSink* sink, bool guess_line_ends = false,
                            bool* guess_failed = nullptr);

// The same over bytes in memory (an archive member read whole); `name` is
// the name in errors.
th::Status StreamXSpace(std::string_view bytes, const std::string& name, XSpaceSink* sink,
                        bool guess_line_ends = false, bool* guess_failed = nullptr);

}  // namespace th::xspace
