// TrustTable: every defect met while reading a trace, counted by TrustId.
// Nothing is dropped silently: a report shows this table so the reader knows
// where the trace cannot be trusted and by how much.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/trust_id.h"

namespace th {

struct TrustEntry {
  TrustId id{};
  std::string_view name;  // the id's stable snake_case name
  std::string_view what;  // the id's description, e.g. "kernel with no launch event ..."
  Severity severity = Severity::kInfo;  // the id's severity
  int64_t count = 0;
  std::string example;  // where it was first seen (file, offset, event name)
};

class TrustTable {
 public:
  // Adds n occurrences of `id`; keeps the first non-empty example given.
  void Add(TrustId id, int64_t n = 1, std::string_view example = {});
  void Merge(const TrustTable& other);
  int64_t Count(TrustId id) const;
  // Entries ordered by severity (errors first), then by description.
  std::vector<TrustEntry> Entries() const;
  bool empty() const { return entries_.empty(); }

 private:
  struct Occurrences {
    int64_t count = 0;
    std::string example;
  };
  std::map<TrustId, Occurrences> entries_;
};

}  // namespace th
