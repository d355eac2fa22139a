#include "core/import/hlo/hlo_join.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "core/import/hlo/hlo_reader.h"

namespace th::hlo {

std::vector<std::string> FindHloSideFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    constexpr std::string_view kSuffix = ".hlo_proto.pb";
    if (name.size() > kSuffix.size() &&
        name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0 &&
        it->is_regular_file(ec)) {
      out.push_back(it->path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void JoinHloModules(Trace* trace, const std::vector<xspace::EmbeddedHloProto>& embedded,
                    const std::string& side_file_dir,
                    const std::vector<std::pair<std::string, std::string>>& side_file_bytes) {
  XlaData& xla = trace->xla;
  std::set<std::pair<int64_t, std::string>> seen;
  for (const HloModule& m : xla.modules) seen.emplace(m.id, m.name);
  int64_t duplicates = 0;
  auto add = [&](StatusOr<std::vector<HloModule>> read, const std::string& origin) {
    if (!read.ok()) {
      trace->trust.Add(TrustId::kHloModuleUndecodable, 1, read.status().message());
      return;
    }
    for (HloModule& m : *read) {
      if (!seen.emplace(m.id, m.name).second) {
        ++duplicates;
        continue;
      }
      m.origin = origin;
      xla.modules.push_back(std::move(m));
    }
  };
  for (const xspace::EmbeddedHloProto& e : embedded) {
    add(ReadHloProto(e.bytes, e.where), "metadata plane");
  }
  if (!side_file_dir.empty()) {
    for (const std::string& path : FindHloSideFiles(side_file_dir)) {
      add(ReadHloProtoFile(path), path);
    }
  }
  for (const auto& [name, bytes] : side_file_bytes) add(ReadHloProto(bytes, name), name);
  trace->trust.Add(TrustId::kHloModuleDuplicate, duplicates);
  xla.BuildIndex(&trace->graph.strings);
  trace->trust.Add(TrustId::kHloOperandUnresolved,
                   static_cast<int64_t>(xla.index->unresolved_operands()));
}

}  // namespace th::hlo
