#include "core/import/kineto/chrome_json_format.h"

#include "core/import/remote/object_url.h"
#include "core/import/xla_join.h"

namespace th::kineto {

namespace {

// One trace, or one per rank of a merged file.
StatusOr<TraceList> ImportText(ByteSource& text, const ImportOptions& options) {
  auto traces = ImportKinetoJsonRanks(text, options);
  if (!traces.ok()) return traces.status();
  const Trace& t = *traces->front();
  if (traces->size() == 1 && t.graph.events.size() == 0 &&
      t.trust.Count(TrustId::kNonObjectEvent)) {
    return Unsupported(t.info.path + ": a JSON array whose elements are not trace events");
  }
  return traces;
}

size_t SkipWhitespace(std::string_view text, size_t at) {
  while (at < text.size() &&
         (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
    ++at;
  return at;
}

class ChromeJsonImporter final : public Importer {
 public:
  std::string_view name() const override { return "chrome_json"; }
  std::vector<std::string_view> name_hints() const override { return {".json", ".json.gz"}; }

  bool Sniff(const ContentHead& head) const override {
    std::string_view text = head.decoded;
    size_t at = SkipWhitespace(text, 0);
    if (at == text.size()) return !text.empty() && !head.complete;  // more follows
    if (text[at] == '{') return true;
    if (text[at] != '[') return false;
    // An event array: objects (or nothing), not an array of numbers.
    at = SkipWhitespace(text, at + 1);
    return at == text.size() || text[at] == '{' || text[at] == ']';
  }

  StatusOr<TraceList> ImportFile(const std::string& path,
                                 const ImportOptions& options) const override {
    auto raw = OpenFileSource(path);
    if (!raw.ok()) return raw.status();
    auto text = OpenDecoded(std::move(*raw), nullptr, options.keep_truncated);
    if (!text.ok()) return text.status();
    auto traces = ImportText(**text, options);
    if (!traces.ok()) return traces.status();
    for (auto& t : *traces) {
      if (t->info.format == "xprof_json") JoinXla(t.get(), {}, /*with_side_files=*/true);
    }
    return traces;
  }

  StatusOr<TraceList> ImportStream(std::unique_ptr<ByteSource> decoded,
                                   const ImportOptions& options) const override {
    auto traces = ImportText(*decoded, options);
    if (!traces.ok() || !remote::IsRemoteObjectName(decoded->name())) return traces;
    // A remote object is read as its file would be: XProf's JSON joined with
    // the HLO modules beside it.
    for (auto& t : *traces) {
      if (t->info.format == "xprof_json") JoinXla(t.get(), {}, /*with_side_files=*/true);
    }
    return traces;
  }

  // The median size of an event in the traces of benchmarks/RESULTS.md.
  uint64_t EstimatedEvents(uint64_t content_bytes) const override { return content_bytes / 250; }
};

}  // namespace

std::unique_ptr<Importer> MakeChromeJsonImporter() {
  return std::make_unique<ChromeJsonImporter>();
}

}  // namespace th::kineto
