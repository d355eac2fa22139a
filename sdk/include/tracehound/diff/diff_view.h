// A ProfileTrace (<tracehound/diff/diff_profile.h>) over the catalog tables
// a plugin reads: events, event_flags, tracks, event_launches, xla_labels,
// and op_inputs when handed over (input shape signatures; else none).
// Header-only; the trace-diff plugin's side of what the `tracehound diff`
// command builds from its event graphs.
#ifndef TRACEHOUND_DIFF_DIFF_VIEW_H_
#define TRACEHOUND_DIFF_DIFF_VIEW_H_

#include <tracehound/diff/diff_profile.h>
#include <tracehound/plugin_api.h>

#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace th::diff {

// Fills `out` from `view` (a plugin declares the five tables above in
// Reads()); `string` resolves the trace's string ids. Returns
// "" or what is missing (a table not handed over, a column of another type).
inline std::string ProfileTraceOfView(const th_trace_view& view,
                                      std::function<std::string_view(uint32_t)> string,
                                      ProfileTrace* out) {
  auto table = [&](const char* name) -> const th_table* {
    for (uint32_t i = 0; i < view.table_count; ++i)
      if (std::strcmp(view.tables[i].name, name) == 0) return &view.tables[i];
    return nullptr;
  };
  using profile_internal::Column;
  const th_table* events = table("events");
  const th_table* flags = table("event_flags");
  const th_table* tracks = table("tracks");
  const th_table* launches = table("event_launches");
  const th_table* labels = table("xla_labels");
  if (!events || !flags || !tracks || !launches || !labels)
    return "the trace view lacks one of the tables events, event_flags, tracks, event_launches, "
           "xla_labels";
  ProfileTrace& t = *out;
  t = ProfileTrace{};
  t.rank = view.rank;
  t.events = events->row_count;
  t.ts = Column<int64_t>(events, "ts", TH_TYPE_I64);
  t.dur = Column<int64_t>(events, "dur", TH_TYPE_I64);
  t.name = Column<uint32_t>(events, "name", TH_TYPE_STRING_ID);
  t.kind = Column<uint8_t>(events, "kind", TH_TYPE_U8);
  t.track = Column<uint32_t>(events, "track", TH_TYPE_U32);
  t.parent = Column<uint32_t>(events, "parent", TH_TYPE_U32);
  t.flags = Column<uint8_t>(flags, "flags", TH_TYPE_U8);
  t.tracks = tracks->row_count;
  t.track_kind = Column<uint32_t>(tracks, "kind", TH_TYPE_U32);
  t.launches = launches->row_count;
  t.launched = Column<uint32_t>(launches, "event", TH_TYPE_U32);
  t.launch = Column<uint32_t>(launches, "launch", TH_TYPE_U32);
  t.labels = labels->row_count;
  t.label_event = Column<uint32_t>(labels, "event", TH_TYPE_U32);
  t.label_hlo_op = Column<uint32_t>(labels, "hlo_op", TH_TYPE_STRING_ID);
  // Every column present with its type (an empty table's may point nowhere).
  const std::pair<const th_table*, std::pair<const char*, uint32_t>> need[] = {
      {events, {"ts", TH_TYPE_I64}},         {events, {"dur", TH_TYPE_I64}},
      {events, {"name", TH_TYPE_STRING_ID}}, {events, {"kind", TH_TYPE_U8}},
      {events, {"track", TH_TYPE_U32}},      {events, {"parent", TH_TYPE_U32}},
      {flags, {"flags", TH_TYPE_U8}},        {tracks, {"kind", TH_TYPE_U32}},
      {launches, {"event", TH_TYPE_U32}},    {launches, {"launch", TH_TYPE_U32}},
      {labels, {"event", TH_TYPE_U32}},      {labels, {"hlo_op", TH_TYPE_STRING_ID}}};
  for (const auto& [table, column] : need) {
    bool found = false;
    for (uint32_t c = 0; c < table->column_count; ++c)
      found |= std::strcmp(table->columns[c].name, column.first) == 0 &&
               table->columns[c].values.type == column.second;
    if (!found)
      return std::string("the catalog table ") + table->name + " has no column " + column.first +
             " of the type this SDK reads";
  }
  if (flags->row_count != t.events) return "event_flags and events differ in rows";
  if (const th_table* op_inputs = table("op_inputs")) {
    t.op_input_event = Column<uint32_t>(op_inputs, "event", TH_TYPE_U32);
    t.op_input_dims = Column<uint32_t>(op_inputs, "input_dims", TH_TYPE_STRING_ID);
    t.op_input_types = Column<uint32_t>(op_inputs, "input_types", TH_TYPE_STRING_ID);
    if (op_inputs->row_count > 0 && (!t.op_input_event || !t.op_input_dims || !t.op_input_types))
      return "the catalog table op_inputs lacks a column of the type this SDK reads";
    t.op_inputs = op_inputs->row_count;
  }
  t.string = std::move(string);
  return "";
}

}  // namespace th::diff

#endif  // TRACEHOUND_DIFF_DIFF_VIEW_H_
