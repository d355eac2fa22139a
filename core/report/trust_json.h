// The trust table as JSON: a list of {id, what, severity, count[, example]},
// `id` being the entry's stable TrustId name. One writer for every report that
// shows it.
#pragma once

#include <vector>

#include "core/graph/trust_table.h"
#include "core/report/json_writer.h"

namespace th {

inline void WriteTrustJson(JsonWriter& w, const std::vector<TrustEntry>& entries) {
  w.BeginArray();
  for (const TrustEntry& e : entries) {
    w.BeginObject()
        .Field("id", e.name)
        .Field("what", e.what)
        .Field("severity", SeverityName(e.severity))
        .Field("count", e.count);
    if (!e.example.empty()) w.Field("example", e.example);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace th
