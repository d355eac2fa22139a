#include "core/import/trace_loader.h"

#include <glob.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <regex>
#include <set>

#include "core/graph/text_escape.h"
#include "core/import/common/archive_reader.h"
#include "core/import/common/byte_source.h"
#include "core/import/common/regular_file.h"
#include "core/import/hlo/hlo_join.h"
#include "core/import/hlo/kernel_attribution.h"
#include "core/import/kineto/merged_ranks.h"
#include "core/import/xspace/xspace_importer.h"

namespace th {

namespace fs = std::filesystem;

namespace {

// XProf captures: HLO modules from the metadata plane and the side files next
// to the trace, then kernel -> instruction attribution.
void JoinXla(Trace* trace, const std::vector<xspace::EmbeddedHloProto>& embedded) {
  std::string dir = std::filesystem::path(trace->info.path).parent_path().string();
  hlo::JoinHloModules(trace, embedded, dir.empty() ? "." : dir);
  hlo::AttributeKernels(trace);
}

bool LooksLikeJson(std::string_view name) {
  return name.ends_with(".json") || name.ends_with(".json.gz");
}
bool LooksLikeXSpace(std::string_view name) { return name.ends_with(".xplane.pb"); }

// JAX writes `<host>.trace.json.gz` (and, on request, perfetto_trace.json.gz)
// beside `<host>.xplane.pb`: one capture twice. Among files found by walking a
// directory or expanding a glob, the JSON copy is skipped and the .xplane.pb
// read (it keeps types, program ids and HLO); each copy counted as its own rank
// would double every kernel.
void DropJaxJsonCopies(std::vector<std::string>* files, TrustTable* skipped) {
  std::set<std::string> xplanes, xplane_dirs;
  for (const std::string& p : *files) {
    if (!LooksLikeXSpace(p)) continue;
    xplanes.insert(p.substr(0, p.size() - std::string_view(".xplane.pb").size()));
    xplane_dirs.insert(fs::path(p).parent_path().string());
  }
  if (xplanes.empty()) return;
  std::erase_if(*files, [&](const std::string& p) {
    bool copy = false;
    for (std::string_view suffix : {".trace.json.gz", ".trace.json"}) {
      if (p.ends_with(suffix) && xplanes.count(p.substr(0, p.size() - suffix.size()))) copy = true;
    }
    std::string base = fs::path(p).filename().string();
    if ((base == "perfetto_trace.json.gz" || base == "perfetto_trace.json") &&
        xplane_dirs.count(fs::path(p).parent_path().string()))
      copy = true;
    if (copy) {
      skipped->Add("JAX JSON trace beside its .xplane.pb (same capture; the .xplane.pb is read)",
                   Severity::kInfo, 1, p);
    }
    return copy;
  });
}
bool HasGlobChars(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// A Kineto/Chrome JSON input: one trace, or one per rank of a merged file.
StatusOr<std::vector<std::unique_ptr<Trace>>> ImportSource(std::unique_ptr<ByteSource> raw,
                                                           const LoadOptions& options) {
  auto text = OpenDecoded(std::move(raw), nullptr, options.import.keep_truncated);
  if (!text.ok()) return text.status();
  auto traces = kineto::ImportKinetoJsonRanks(**text, options.import);
  if (!traces.ok()) return traces.status();
  const Trace& t = *traces->front();
  if (traces->size() == 1 && t.graph.events.size() == 0 &&
      t.trust.Count("non-object element in traceEvents (skipped)")) {
    return Unsupported(t.info.path + ": a JSON array whose elements are not trace events");
  }
  return traces;
}

std::optional<int64_t> RankFromName(const std::string& path) {
  static const std::regex kRank(R"((?:rank|worker)[-_]?(\d+))", std::regex::icase);
  std::string base = fs::path(path).filename().string();
  std::smatch m;
  if (std::regex_search(base, m, kRank)) return std::stoll(m[1].str());
  return std::nullopt;
}

}  // namespace

StatusOr<std::vector<InputFile>> ExpandInputs(const std::vector<std::string>& inputs,
                                              TrustTable* skipped) {
  std::vector<InputFile> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(input, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_directory(ec)) continue;
        std::string p = it->path().string();
        if (!it->is_regular_file(ec)) {
          // A FIFO, device or socket (or a dangling link): never opened.
          bool named_like_trace = LooksLikeJson(p) || HasArchiveName(p) || LooksLikeXSpace(p);
          skipped->Add("file in an input directory that is not a regular file (not read)",
                       named_like_trace ? Severity::kDataLoss : Severity::kInfo, 1,
                       PrintableBytes(p));
          continue;
        }
        // `tracehound redact` writes its report beside the traces it
        // redacted: tracehound's own output, no part of any trace.
        if (it->path().filename() == "redaction-report.json") continue;
        if (LooksLikeJson(p) || HasArchiveName(p) || LooksLikeXSpace(p)) {
          found.push_back(p);
        } else {
          skipped->Add(
              "file in an input directory with another format (not "
              ".json/.json.gz/.xplane.pb/archive)",
              Severity::kInfo, 1, p);
        }
      }
      if (ec) return IoError(input + ": cannot list directory: " + ec.message());
      std::sort(found.begin(), found.end());
      DropJaxJsonCopies(&found, skipped);
      for (auto& p : found) files.push_back({std::move(p), false});
    } else if (fs::exists(input, ec)) {
      TH_RETURN_IF_ERROR(CheckRegularFile(input));
      files.push_back({input, true});
    } else if (HasGlobChars(input)) {
      glob_t g{};
      int r = ::glob(input.c_str(), 0, nullptr, &g);
      if (r == GLOB_NOMATCH) {
        globfree(&g);
        return NotFound(input + ": no file matches this pattern");
      }
      std::vector<std::string> matched(g.gl_pathv, g.gl_pathv + g.gl_pathc);
      globfree(&g);
      for (const std::string& p : matched) TH_RETURN_IF_ERROR(CheckRegularFile(p));
      DropJaxJsonCopies(&matched, skipped);
      for (auto& p : matched) files.push_back({std::move(p), true});
    } else {
      return NotFound(input + ": no such file or directory");
    }
  }
  return files;
}

StatusOr<TraceSet> LoadTraceSet(const std::vector<std::string>& inputs,
                                const LoadOptions& options) {
  TraceSet set;
  auto files = ExpandInputs(inputs, &set.trust);
  if (!files.ok()) return files.status();
  if (files->empty()) return NotFound("no trace files found in the inputs given");

  // Each input yields traces in a fixed slot so the result does not depend on
  // scheduling; archives yield several.
  std::vector<std::vector<std::unique_ptr<Trace>>> slots(files->size());
  std::vector<Status> errors(files->size());
  std::mutex trust_mu;
  std::vector<std::string> skipped_inputs;  // why each input that is not a trace was skipped
  // A file or member that holds no trace: a run that should have had it (a
  // rank) is incomplete, so this is data loss, named in the trust table.
  auto skip_input = [&](const Status& s) {
    std::lock_guard<std::mutex> lock(trust_mu);
    if (s.code() == StatusCode::kOtherFormat) {
      set.trust.Add("input skipped: a JSON document of another kind (no traceEvents)",
                    Severity::kInfo, 1, s.message());
    } else {
      set.trust.Add("input skipped: empty or not a trace (if it was a rank, the run misses it)",
                    Severity::kDataLoss, 1, s.message());
    }
    skipped_inputs.push_back(s.message());
  };
  auto skip_member = [&](const std::string& archive, const SkippedMember& m) {
    std::lock_guard<std::mutex> lock(trust_mu);
    std::string where =
        PrintableBytes(archive + ":" + m.member) + " (" + PrintableBytes(m.why) + ")";
    skipped_inputs.push_back(where + ": not a regular file");
    if (m.hard_link) {
      set.trust.Add(
          "archive member that is a hard link (its content is read once, under the "
          "name it links to)",
          Severity::kInfo, 1, where);
    } else {
      set.trust.Add("archive member that is not a regular file (link, FIFO or device: not read)",
                    LooksLikeJson(m.member) || LooksLikeXSpace(m.member) ? Severity::kDataLoss
                                                                         : Severity::kInfo,
                    1, where);
    }
  };
  auto skip_other_member = [&](const std::string& archive, const std::string& member) {
    std::lock_guard<std::mutex> lock(trust_mu);
    skipped_inputs.push_back(PrintableBytes(archive + ":" + member) + ": not .json/.json.gz");
    if (LooksLikeXSpace(member)) {
      set.trust.Add("XSpace capture inside an archive (not read: extract it and pass the file)",
                    Severity::kDataLoss, 1, PrintableBytes(archive + ":" + member));
    } else {
      set.trust.Add("archive member that is not .json/.json.gz (not read)", Severity::kInfo, 1,
                    PrintableBytes(archive + ":" + member));
    }
  };
  tbb::parallel_for(size_t{0}, files->size(), [&](size_t i) {
    const InputFile& f = (*files)[i];
    bool archive = HasArchiveName(f.path) || (!LooksLikeJson(f.path) && IsArchive(f.path));
    if (archive) {
      errors[i] = ForEachArchiveMember(
          f.path,
          [&](const std::string& member, std::unique_ptr<ByteSource> src) -> Status {
            if (!LooksLikeJson(member)) {
              skip_other_member(f.path, member);
              return Ok();
            }
            auto traces = ImportSource(std::move(src), options);
            if (!traces.ok()) {
              if (NotATrace(traces.status())) {
                skip_input(traces.status());
                return Ok();
              }
              return traces.status();
            }
            for (auto& t : *traces) slots[i].push_back(std::move(t));
            return Ok();
          },
          [&](const SkippedMember& m) { skip_member(f.path, m); });
      return;
    }
    if (LooksLikeXSpace(f.path)) {
      std::vector<xspace::EmbeddedHloProto> hlo_protos;
      auto trace = xspace::ImportXSpaceFile(f.path, &hlo_protos);
      if (!trace.ok()) {
        if (!f.explicit_input && NotATrace(trace.status()))
          skip_input(trace.status());
        else
          errors[i] = trace.status();
        return;
      }
      JoinXla(trace->get(), hlo_protos);
      slots[i].push_back(std::move(*trace));
      return;
    }
    auto raw = OpenFileSource(f.path);
    if (!raw.ok()) {
      errors[i] = raw.status();
      return;
    }
    auto traces = ImportSource(std::move(*raw), options);
    if (!traces.ok()) {
      if (!f.explicit_input && NotATrace(traces.status())) {
        skip_input(traces.status());
      } else {
        errors[i] = traces.status();
      }
      return;
    }
    for (auto& t : *traces) {
      if (t->info.format == "xprof_json") JoinXla(t.get(), {});
      slots[i].push_back(std::move(t));
    }
  });
  for (const Status& s : errors)
    if (!s.ok()) return s;

  int64_t order = 0;
  for (auto& slot : slots) {
    for (auto& trace : slot) {
      TraceInfo& info = trace->info;
      if (info.rank_source == kineto::kMergedRanksRule) {
        // A rank of a merged file: its rank is the one it was split by.
      } else if (info.distributed && info.distributed->rank) {
        info.rank = *info.distributed->rank;
        info.rank_source = "distributedInfo";
      } else if (auto r = RankFromName(info.path)) {
        info.rank = *r;
        info.rank_source = "file name";
      } else {
        info.rank = order;
        info.rank_source = "input order";
      }
      ++order;
      set.traces.push_back(std::move(trace));
    }
  }
  if (set.traces.empty()) {
    // Say why, file by file (sorted: the order of a parallel walk is not).
    std::sort(skipped_inputs.begin(), skipped_inputs.end());
    std::string why;
    for (size_t k = 0; k < skipped_inputs.size() && k < 5; ++k)
      why += (k ? "; " : ": ") + skipped_inputs[k];
    if (skipped_inputs.size() > 5)
      why += "; and " + std::to_string(skipped_inputs.size() - 5) + " more";
    return NotFound("none of the inputs is a trace" + why);
  }
  std::stable_sort(set.traces.begin(), set.traces.end(),
                   [](const auto& a, const auto& b) { return a->info.rank < b->info.rank; });
  for (size_t i = 1; i < set.traces.size(); ++i) {
    if (set.traces[i]->info.rank == set.traces[i - 1]->info.rank) {
      set.trust.Add(
          "two inputs claim the same rank", Severity::kDataLoss, 1,
          "rank " + std::to_string(set.traces[i]->info.rank) + ": " + set.traces[i]->info.path);
    }
  }
  return set;
}

}  // namespace th
