#include "core/graph/trust_table.h"

#include <algorithm>

#include "core/graph/text_escape.h"

namespace th {

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kDataLoss:
      return "data_loss";
    case Severity::kError:
      return "error";
  }
  return "info";
}

void TrustTable::Add(std::string_view what, Severity severity, int64_t n,
                     std::string_view example) {
  if (n == 0) return;
  auto it = entries_.find(what);
  if (it == entries_.end()) {
    it = entries_.emplace(std::string(what), TrustEntry{std::string(what), severity, 0, {}}).first;
  }
  TrustEntry& e = it->second;
  e.count += n;
  e.severity = std::max(e.severity, severity);
  // Examples quote trace text and file names: kept printable for every output.
  if (e.example.empty() && !example.empty()) e.example = PrintableBytes(example);
}

void TrustTable::Merge(const TrustTable& other) {
  for (const auto& [key, e] : other.entries_) Add(e.what, e.severity, e.count, e.example);
}

int64_t TrustTable::Count(std::string_view what) const {
  auto it = entries_.find(what);
  return it == entries_.end() ? 0 : it->second.count;
}

std::vector<TrustEntry> TrustTable::Entries() const {
  std::vector<TrustEntry> out;
  for (const auto& [key, e] : entries_) out.push_back(e);
  std::stable_sort(out.begin(), out.end(), [](const TrustEntry& a, const TrustEntry& b) {
    return a.severity > b.severity;
  });
  return out;
}

}  // namespace th
