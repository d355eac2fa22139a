// TrustTable: every defect met while reading a trace, counted, with a severity.
// Nothing is dropped silently: a report shows this table so the reader knows
// where the trace cannot be trusted and by how much.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace th {

enum class Severity : uint8_t { kInfo, kDataLoss, kError };
std::string_view SeverityName(Severity s);

struct TrustEntry {
  std::string what;  // stable, human-readable key, e.g. "kernel without launch event"
  Severity severity = Severity::kInfo;
  int64_t count = 0;
  std::string example;  // where it was first seen (file, offset, event name)
};

class TrustTable {
 public:
  // Adds n occurrences of `what`; keeps the first example given.
  void Add(std::string_view what, Severity severity, int64_t n = 1, std::string_view example = {});
  void Merge(const TrustTable& other);
  int64_t Count(std::string_view what) const;
  // Entries ordered by severity (errors first), then by name.
  std::vector<TrustEntry> Entries() const;
  bool empty() const { return entries_.empty(); }

 private:
  std::map<std::string, TrustEntry, std::less<>> entries_;
};

}  // namespace th
