#include "core/graph/trust_table.h"

#include <algorithm>

#include "core/graph/text_escape.h"

namespace th {

void TrustTable::Add(TrustId id, int64_t n, std::string_view example) {
  if (n == 0) return;
  Occurrences& o = entries_[id];
  o.count += n;
  // Examples quote trace text and file names: kept printable for every output.
  if (o.example.empty() && !example.empty()) o.example = PrintableBytes(example);
}

void TrustTable::Merge(const TrustTable& other) {
  for (const auto& [id, o] : other.entries_) Add(id, o.count, o.example);
}

int64_t TrustTable::Count(TrustId id) const {
  auto it = entries_.find(id);
  return it == entries_.end() ? 0 : it->second.count;
}

std::vector<TrustEntry> TrustTable::Entries() const {
  std::vector<TrustEntry> out;
  out.reserve(entries_.size());
  for (const auto& [id, o] : entries_) {
    const TrustIdInfo& info = InfoOf(id);
    out.push_back({id, info.name, info.description, info.severity, o.count, o.example});
  }
  std::sort(out.begin(), out.end(), [](const TrustEntry& a, const TrustEntry& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    return a.what < b.what;
  });
  return out;
}

}  // namespace th
