#include "tests/support/xspace_fixture.h"

#include <fstream>

#include "tests/support/hlo_fixture.h"

namespace th::testing {

XPlane* XSpaceBuilder::AddPlane(int64_t id, const std::string& name) {
  XPlane* p = space_.add_planes();
  p->set_id(id);
  p->set_name(name);
  return p;
}

XLine* XSpaceBuilder::AddLine(XPlane* plane, int64_t id, const std::string& name,
                              int64_t timestamp_ns) {
  XLine* l = plane->add_lines();
  l->set_id(id);
  l->set_name(name);
  l->set_timestamp_ns(timestamp_ns);
  return l;
}

int64_t XSpaceBuilder::StatId(XPlane* plane, const std::string& name) {
  auto& ids = stat_ids_[plane];
  auto it = ids.find(name);
  if (it != ids.end()) return it->second;
  auto id = static_cast<int64_t>(plane->stat_metadata_size() + 1);
  auto& md = (*plane->mutable_stat_metadata())[id];
  md.set_id(id);
  md.set_name(name);
  ids.emplace(name, id);
  return id;
}

int64_t XSpaceBuilder::EventMetadataId(XPlane* plane, const std::string& name) {
  auto& ids = event_ids_[plane];
  auto it = ids.find(name);
  if (it != ids.end()) return it->second;
  auto id = static_cast<int64_t>(plane->event_metadata_size() + 1);
  auto& md = (*plane->mutable_event_metadata())[id];
  md.set_id(id);
  md.set_name(name);
  ids.emplace(name, id);
  return id;
}

void XSpaceBuilder::AddEvent(XPlane* plane, XLine* line, const std::string& name, int64_t offset_ps,
                             int64_t duration_ps, const std::vector<StatSpec>& stats) {
  auto* e = line->add_events();
  e->set_metadata_id(EventMetadataId(plane, name));
  e->set_offset_ps(offset_ps);
  e->set_duration_ps(duration_ps);
  for (const StatSpec& s : stats) SetStat(plane, s, e->add_stats());
}

void XSpaceBuilder::AddMetadataStats(XPlane* plane, const std::string& name,
                                     const std::vector<StatSpec>& stats) {
  auto& md = (*plane->mutable_event_metadata())[EventMetadataId(plane, name)];
  for (const StatSpec& s : stats) SetStat(plane, s, md.add_stats());
}

void XSpaceBuilder::SetStat(XPlane* plane, const StatSpec& s, tracehound::xspace::XStat* st) {
  st->set_metadata_id(StatId(plane, s.name));
  if (auto* i = std::get_if<int64_t>(&s.value)) st->set_int64_value(*i);
  if (auto* u = std::get_if<uint64_t>(&s.value)) st->set_uint64_value(*u);
  if (auto* d = std::get_if<double>(&s.value)) st->set_double_value(*d);
  if (auto* str = std::get_if<std::string>(&s.value)) {
    if (s.inline_str) {
      st->set_str_value(*str);
    } else {
      st->set_ref_value(static_cast<uint64_t>(StatId(plane, *str)));
    }
  }
}

void XSpaceBuilder::EmbedHlo(const tracehound::hlo::HloModuleProto& m) {
  if (!metadata_) metadata_ = AddPlane(0, "/host:metadata");
  int64_t id = EventMetadataId(metadata_, m.name() + "(" + std::to_string(m.id()) + ")");
  auto& md = (*metadata_->mutable_event_metadata())[id];
  auto* st = md.add_stats();
  st->set_metadata_id(StatId(metadata_, "Hlo Proto"));
  st->set_bytes_value(SerializeHloProto(m));
}

bool XSpaceBuilder::WriteTo(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << Serialize();
  return static_cast<bool>(out);
}

}  // namespace th::testing
