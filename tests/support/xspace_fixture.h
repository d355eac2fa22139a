// XSpace captures for tests, written with libprotobuf from the project's own
// core/import/xspace/xplane.proto. Event and stat metadata are created on
// first use of a name, per plane, as the profiler does.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "hlo.pb.h"
#include "xplane.pb.h"

namespace th::testing {

using tracehound::xspace::XLine;
using tracehound::xspace::XPlane;

// A stat: name and value. A string value is written as a ref_value (an
// interned stat-metadata name, as XProf does) unless `inline_str`.
struct StatSpec {
  std::string name;
  std::variant<int64_t, uint64_t, double, std::string> value;
  bool inline_str = false;
};

class XSpaceBuilder {
 public:
  XPlane* AddPlane(int64_t id, const std::string& name);
  XLine* AddLine(XPlane* plane, int64_t id, const std::string& name, int64_t timestamp_ns);
  // An event on `line`, its stats on the event itself.
  void AddEvent(XPlane* plane, XLine* line, const std::string& name, int64_t offset_ps,
                int64_t duration_ps, const std::vector<StatSpec>& stats = {});
  // Stats on the event metadata `name` of `plane` (shared by its events).
  void AddMetadataStats(XPlane* plane, const std::string& name, const std::vector<StatSpec>& stats);
  // An "Hlo Proto" stat on the metadata plane for module `m`.
  void EmbedHlo(const tracehound::hlo::HloModuleProto& m);

  std::string Serialize() const { return space_.SerializeAsString(); }
  // Writes the capture; returns false on I/O failure.
  bool WriteTo(const std::string& path) const;

 private:
  int64_t StatId(XPlane* plane, const std::string& name);
  int64_t EventMetadataId(XPlane* plane, const std::string& name);
  void SetStat(XPlane* plane, const StatSpec& s, tracehound::xspace::XStat* st);

  tracehound::xspace::XSpace space_;
  std::unordered_map<const XPlane*, std::unordered_map<std::string, int64_t>> stat_ids_;
  std::unordered_map<const XPlane*, std::unordered_map<std::string, int64_t>> event_ids_;
  XPlane* metadata_ = nullptr;
};

}  // namespace th::testing
