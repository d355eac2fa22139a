#include "core/import/trace_loader.h"

#include <glob.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <mutex>
#include <regex>
#include <set>

#include "core/graph/text_escape.h"
#include "core/import/common/archive_reader.h"
#include "core/import/common/byte_source.h"
#include "core/import/common/content_head.h"
#include "core/import/common/regular_file.h"
#include "core/import/importer_registry.h"
#include "core/import/kineto/merged_ranks.h"
#include "core/import/remote/object_url.h"
#include "core/import/remote/remote_inputs.h"
#include "core/import/run_manifest.h"

namespace th {

namespace fs = std::filesystem;

namespace {

// Among files found by walking a directory or expanding a glob, a file that
// holds the same capture as another in a richer format (a format's
// SameCaptureCopies: JAX's `<host>.trace.json.gz` beside `<host>.xplane.pb`)
// is skipped; each copy counted as its own rank would double every kernel.
void DropSameCaptureCopies(std::vector<std::string>* files, TrustTable* skipped) {
  std::set<std::string> copies;
  for (const std::string& p : *files) {
    if (const Importer* importer = Registry().FindByName(p)) {
      for (std::string& copy : importer->SameCaptureCopies(p)) copies.insert(std::move(copy));
    }
  }
  if (copies.empty()) return;
  std::erase_if(*files, [&](const std::string& p) {
    if (!copies.count(p)) return false;
    skipped->Add(TrustId::kJaxJsonBesideXPlane, 1, p);
    return true;
  });
}
bool HasGlobChars(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// A remote input (s3://, gs://, az://, http(s)://): an object, a prefix read
// as a directory (objects named like traces; others counted as skipped), or
// a glob over keys.
Status ExpandRemote(const std::string& input, TrustTable* skipped, std::vector<InputFile>* files) {
  auto expanded = remote::ExpandRemoteInput(
      input, [](std::string_view key) { return Registry().NamedLikeTrace(key); });
  if (!expanded.ok()) return expanded.status();
  if (skipped) {
    for (const std::string& url : expanded->skipped)
      skipped->Add(TrustId::kDirectoryFileOtherFormat, 1, url);
  }
  std::vector<std::string> found;
  for (const remote::RemoteObject& o : expanded->objects) found.push_back(o.url);
  if (!expanded->explicit_object && skipped) DropSameCaptureCopies(&found, skipped);
  for (auto& url : found) files->push_back({std::move(url), expanded->explicit_object});
  return Ok();
}

// A remote archive object, read as a stream of ranged GETs.
StatusOr<ArchiveStream> RemoteArchive(const std::string& url) {
  auto object = remote::LookUpRemoteObject(url);
  if (!object.ok()) return object.status();
  return ArchiveStream{url, object->size,
                       [url](uint64_t offset) { return remote::OpenRemoteObject(url, offset); }};
}

// A remote object streams through the same path as an archive member; an
// archive object goes to `read_archive`, whose members are read as a local
// archive's are. A discovered object that is not a trace goes to `skip`.
Status ImportRemote(const InputFile& f, const LoadOptions& options,
                    std::vector<std::unique_ptr<Trace>>* out,
                    const std::function<void(const Status&)>& skip,
                    const std::function<Status(const ArchiveStream&)>& read_archive) {
  auto raw = remote::OpenRemoteObject(f.path);
  if (!raw.ok()) return raw.status();
  auto decoded = OpenDecoded(std::move(*raw), nullptr, options.import.keep_truncated);
  if (!decoded.ok()) return decoded.status();
  auto peeked = PeekHead(std::move(*decoded));
  if (!peeked.ok()) return peeked.status();
  if (HasArchiveMagic(peeked->head) ||
      (HasArchiveName(f.path) && !Registry().Find(f.path, peeked->head))) {
    peeked->source.reset();  // its ranged GETs stop; the archive reader makes its own
    auto archive = RemoteArchive(f.path);
    if (!archive.ok()) return archive.status();
    return read_archive(*archive);
  }
  const Importer* importer = Registry().Find(f.path, peeked->head);
  Status failed = importer ? Ok() : ImporterRegistry::Unrecognised(f.path, peeked->head);
  if (importer) {
    auto traces = importer->ImportStream(std::move(peeked->source), options.import);
    if (traces.ok()) {
      for (auto& t : *traces) out->push_back(std::move(t));
      return Ok();
    }
    failed = traces.status();
  }
  if (f.explicit_input || !NotATrace(failed)) return failed;
  skip(failed);
  return Ok();
}

std::optional<int64_t> RankFromName(const std::string& path) {
  static const std::regex kRank(R"((?:rank|worker)[-_]?(\d+))", std::regex::icase);
  std::string base = fs::path(path).filename().string();
  std::smatch m;
  if (std::regex_search(base, m, kRank)) return std::stoll(m[1].str());
  return std::nullopt;
}

// The facts of a tracehound.capture manifest beside the trace: its start
// time and host (where the trace lacks them); the rank it names.
std::optional<int64_t> ApplyManifest(Trace* trace) {
  auto manifest = ManifestForTrace(trace->info.path);
  if (!manifest.ok()) {
    trace->trust.Add(TrustId::kRunManifestUnreadable, 1, manifest.status().message());
    return std::nullopt;
  }
  if (!*manifest) return std::nullopt;
  const RunManifest& m = **manifest;
  TraceInfo& info = trace->info;
  trace->trust.Add(TrustId::kRunManifestRead, 1, m.path);
  if (!info.base_time_ns && m.start_time_ns) info.base_time_ns = m.start_time_ns;
  if (!m.host.empty() && !info.metadata.count("host_name"))
    info.metadata["host_name"] = JsonString(m.host);
  return m.rank;
}

// Why no input gave a trace, input by input (sorted: the order of a
// parallel walk is not).
Status NoTraceError(std::vector<std::string> skipped_inputs) {
  std::sort(skipped_inputs.begin(), skipped_inputs.end());
  std::string why;
  for (size_t k = 0; k < skipped_inputs.size() && k < 5; ++k)
    why += (k ? "; " : ": ") + skipped_inputs[k];
  if (skipped_inputs.size() > 5)
    why += "; and " + std::to_string(skipped_inputs.size() - 5) + " more";
  return NotFound("none of the inputs is a trace" + why);
}

}  // namespace

StatusOr<std::vector<InputFile>> ExpandInputs(const std::vector<std::string>& inputs,
                                              TrustTable* skipped) {
  std::vector<InputFile> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (remote::IsRemoteInput(input)) {
      TH_RETURN_IF_ERROR(ExpandRemote(input, skipped, &files));
    } else if (fs::is_directory(input, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(input, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_directory(ec)) continue;
        std::string p = it->path().string();
        if (!it->is_regular_file(ec)) {
          // A FIFO, device or socket (or a dangling link): never opened.
          bool named_like_trace = Registry().NamedLikeTrace(p);
          skipped->Add(named_like_trace ? TrustId::kDirectoryTraceFileNotRegular
                                        : TrustId::kDirectoryOtherFileNotRegular,
                       1, PrintableBytes(p));
          continue;
        }
        // `tracehound redact` writes its report beside the traces it
        // redacted: tracehound's own output, no part of any trace.
        if (it->path().filename() == "redaction-report.json") continue;
        if (IsManifestFile(p)) continue;  // tracehound.capture's, read with its trace
        if (Registry().IsTraceCandidate(p)) {
          found.push_back(p);
        } else {
          skipped->Add(TrustId::kDirectoryFileOtherFormat, 1, p);
        }
      }
      if (ec) return IoError(input + ": cannot list directory: " + ec.message());
      std::sort(found.begin(), found.end());
      DropSameCaptureCopies(&found, skipped);
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
      DropSameCaptureCopies(&matched, skipped);
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
      set.trust.Add(TrustId::kInputOtherJsonDocument, 1, s.message());
    } else {
      set.trust.Add(TrustId::kInputNotATrace, 1, s.message());
    }
    skipped_inputs.push_back(s.message());
  };
  auto skip_member = [&](const std::string& archive, const SkippedMember& m) {
    std::lock_guard<std::mutex> lock(trust_mu);
    std::string where =
        PrintableBytes(archive + ":" + m.member) + " (" + PrintableBytes(m.why) + ")";
    skipped_inputs.push_back(where + ": not a regular file");
    if (m.hard_link) {
      set.trust.Add(TrustId::kArchiveMemberHardLink, 1, where);
    } else {
      set.trust.Add(Registry().FindByName(m.member) ? TrustId::kArchiveTraceMemberNotRegular
                                                    : TrustId::kArchiveOtherMemberNotRegular,
                    1, where);
    }
  };
  auto skip_other_member = [&](const std::string& archive, const std::string& member,
                               const ContentHead& head) {
    std::lock_guard<std::mutex> lock(trust_mu);
    std::string where = PrintableBytes(archive + ":" + member);
    skipped_inputs.push_back(where + ": no trace format (content " + DescribeHead(head) + ")");
    set.trust.Add(TrustId::kArchiveMemberOtherFormat, 1, where);
  };
  auto import_member = [&](size_t i, const std::string& archive, const std::string& member,
                           std::unique_ptr<ByteSource> src) -> Status {
    auto decoded = OpenDecoded(std::move(src), nullptr, options.import.keep_truncated);
    if (!decoded.ok()) return decoded.status();
    auto peeked = PeekHead(std::move(*decoded));
    if (!peeked.ok()) return peeked.status();
    const Importer* importer = Registry().Find(member, peeked->head);
    if (!importer) {
      skip_other_member(archive, member, peeked->head);
      return Ok();
    }
    auto traces = importer->ImportStream(std::move(peeked->source), options.import);
    if (!traces.ok()) {
      if (NotATrace(traces.status())) {
        skip_input(traces.status());
        return Ok();
      }
      return traces.status();
    }
    for (auto& t : *traces) slots[i].push_back(std::move(t));
    return Ok();
  };
  auto read_archive = [&](size_t i, const auto& archive, const std::string& name) {
    return ForEachArchiveMember(
        archive,
        [&](const std::string& member, std::unique_ptr<ByteSource> src) {
          return import_member(i, name, member, std::move(src));
        },
        [&](const SkippedMember& m) { skip_member(name, m); });
  };
  tbb::parallel_for(size_t{0}, files->size(), [&](size_t i) {
    const InputFile& f = (*files)[i];
    if (remote::IsRemoteInput(f.path)) {
      errors[i] = ImportRemote(f, options, &slots[i], skip_input,
                               [&](const ArchiveStream& a) { return read_archive(i, a, f.path); });
      return;
    }
    Detection detected = Registry().Detect(f.path);
    if (detected.kind == Detection::Kind::kArchive) {
      errors[i] = read_archive(i, f.path, f.path);
      return;
    }
    Status failed;
    if (detected.kind == Detection::Kind::kFormat) {
      auto traces = detected.importer->ImportFile(f.path, options.import);
      if (traces.ok()) {
        for (auto& t : *traces) slots[i].push_back(std::move(t));
        return;
      }
      failed = traces.status();
    } else {
      failed = detected.error.ok() ? ImporterRegistry::Unrecognised(f.path, detected.head)
                                   : detected.error;
    }
    if (!f.explicit_input && NotATrace(failed))
      skip_input(failed);
    else
      errors[i] = failed;
  });
  for (const Status& s : errors)
    if (!s.ok()) return s;

  int64_t order = 0;
  for (auto& slot : slots) {
    for (auto& trace : slot) {
      TraceInfo& info = trace->info;
      const std::optional<int64_t> manifest_rank = ApplyManifest(trace.get());
      if (info.rank_source == kineto::kMergedRanksRule) {
        // A rank of a merged file: its rank is the one it was split by.
      } else if (info.distributed && info.distributed->rank) {
        info.rank = *info.distributed->rank;
        info.rank_source = "distributedInfo";
      } else if (manifest_rank) {
        info.rank = *manifest_rank;
        info.rank_source = "run manifest";
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
  if (set.traces.empty()) return NoTraceError(std::move(skipped_inputs));
  std::stable_sort(set.traces.begin(), set.traces.end(),
                   [](const auto& a, const auto& b) { return a->info.rank < b->info.rank; });
  for (size_t i = 1; i < set.traces.size(); ++i) {
    if (set.traces[i]->info.rank == set.traces[i - 1]->info.rank) {
      set.trust.Add(
          TrustId::kDuplicateRank, 1,
          "rank " + std::to_string(set.traces[i]->info.rank) + ": " + set.traces[i]->info.path);
    }
  }
  return set;
}

}  // namespace th
