#include "core/scan/run_signature.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "core/graph/text_escape.h"
#include "core/scan/content_hash.h"

namespace th::scan {

RunSignature ComputeRunSignature(const TraceSet& traces) {
  RunSignature out;
  std::set<int64_t> ranks;
  std::set<std::pair<int64_t, int32_t>> devices;
  std::map<std::string, int64_t, std::less<>> launches;
  for (const auto& trace : traces.traces) {
    const EventGraph& g = trace->graph;
    const int64_t rank = trace->info.rank;
    ranks.insert(rank);
    for (const Track& t : g.tracks)
      if (t.kind == TrackKind::kGpuStream && t.device >= 0) devices.insert({rank, t.device});
    // Counted per name id first (a dense array over the string pool: one
    // increment per kernel), then one map lookup per distinct kernel name.
    std::vector<int64_t> by_id(g.strings.size(), 0);
    for (size_t e = 0; e < g.events.size(); ++e)
      if (g.events.kind[e] == EventKind::kKernel) ++by_id[g.events.name[e]];
    for (StringId id = 0; id < by_id.size(); ++id) {
      const int64_t n = by_id[id];
      if (n == 0) continue;
      std::string_view name = g.strings.Get(id);
      auto it = launches.find(name);
      if (it == launches.end()) it = launches.emplace(std::string(name), 0).first;
      it->second += n;
    }
  }
  out.ranks = static_cast<int64_t>(ranks.size());
  out.devices = static_cast<int64_t>(devices.size());
  std::vector<std::pair<int64_t, std::string>> order;
  for (const auto& [name, n] : launches) order.emplace_back(-n, name);
  std::sort(order.begin(), order.end());
  for (size_t i = 0; i < order.size() && i < kSignatureKernels; ++i)
    out.top_kernels.push_back(order[i].second);
  return out;
}

std::string SignatureJson(const RunSignature& s) {
  std::string out = "{\"ranks\": " + std::to_string(s.ranks) +
                    ", \"devices\": " + std::to_string(s.devices) + ", \"top_kernels\": [";
  for (size_t i = 0; i < s.top_kernels.size(); ++i)
    out += (i ? ", " : "") + JsonString(s.top_kernels[i]);
  return out + "]}";
}

std::string JobFamily(const std::string& pipeline_hash, const std::string& signature_json) {
  return HashBytes(pipeline_hash + "\n" + signature_json);
}

}  // namespace th::scan
