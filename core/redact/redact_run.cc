#include "core/redact/redact_run.h"

#include <glob.h>
#include <sys/stat.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "core/graph/text_escape.h"
#include "core/import/common/archive_reader.h"
#include "core/import/common/byte_source.h"
#include "core/import/common/regular_file.h"
#include "core/redact/archive_writer.h"
#include "core/redact/async_io.h"
#include "core/redact/json_redactor.h"
#include "core/redact/output_sink.h"
#include "core/redact/wire_redactor.h"
#include "core/report/json_writer.h"
#include "core/report/output_file.h"

namespace th::redact {

namespace fs = std::filesystem;

namespace {

enum class Format { kJson, kXSpace, kHlo, kArchive, kOther };

// What tracehound redact reads, by name.
Format FormatByName(std::string_view name) {
  if (name.ends_with(".xplane.pb")) return Format::kXSpace;
  if (name.ends_with(".hlo_proto.pb")) return Format::kHlo;
  if (name.ends_with(".json") || name.ends_with(".json.gz")) return Format::kJson;
  if (HasArchiveName(name)) return Format::kArchive;
  return Format::kOther;
}

std::string_view FormatName(Format f) {
  switch (f) {
    case Format::kJson:
      return "json";
    case Format::kXSpace:
      return "xspace";
    case Format::kHlo:
      return "hlo_proto";
    case Format::kArchive:
      return "archive";
    case Format::kOther:
      return "other";
  }
  return "?";
}

// A source that counts the bytes it hands out.
class CountingSource final : public ByteSource {
 public:
  explicit CountingSource(ByteSource& in) : in_(in) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    auto got = in_.Read(buf, n);
    if (got.ok()) count_ += *got;
    return got;
  }
  const std::string& name() const override { return in_.name(); }
  uint64_t stored_bytes_read() const override { return in_.stored_bytes_read(); }
  uint64_t count() const { return count_; }

 private:
  ByteSource& in_;
  uint64_t count_ = 0;
};

// A file whose first bytes (decompressed) open a JSON object or array.
bool SniffJson(const std::string& path) {
  auto raw = OpenFileSource(path);
  if (!raw.ok()) return false;
  auto text = OpenDecoded(std::move(*raw));
  if (!text.ok()) return false;
  char buf[4096];
  auto got = (*text)->Read(buf, sizeof buf);
  if (!got.ok()) return false;
  std::string_view s(buf, *got);
  if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  size_t i = s.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && (s[i] == '{' || s[i] == '[');
}

struct Job {
  std::string input;
  std::string relative;  // the original path under OUT
  Format format = Format::kOther;
  std::string output;  // the redacted path under OUT
  bool renamed = false;
};

struct Expansion {
  std::vector<Job> jobs;
  int64_t skipped = 0;
  std::set<std::string> reasons;
};

Status Expand(const RedactOptions& o, Expansion* out) {
  std::error_code ec;
  fs::path out_dir = fs::weakly_canonical(o.output_dir, ec);
  auto under_out = [&](const fs::path& p) {
    fs::path c = fs::weakly_canonical(p, ec);
    auto rel = c.lexically_relative(out_dir);
    return !rel.empty() && *rel.begin() != "..";
  };
  auto add_explicit = [&](const std::string& path) -> Status {
    TH_RETURN_IF_ERROR(CheckRegularFile(path));
    Format f = FormatByName(path);
    if (f == Format::kOther) {
      if (IsArchive(path)) {
        f = Format::kArchive;
      } else if (SniffJson(path)) {
        f = Format::kJson;
      } else {
        return Unsupported(path +
                           ": not a format tracehound redact reads (.json, .json.gz, "
                           ".xplane.pb, .hlo_proto.pb, .tar, .tar.gz, .zip)");
      }
    }
    out->jobs.push_back({path, fs::path(path).filename().string(), f, "", false});
    return Ok();
  };
  for (const std::string& input : o.inputs) {
    if (fs::is_directory(input, ec)) {
      // OUT inside the input folder is left out of the walk (a second run);
      // OUT being the folder itself is not: its files would be overwritten,
      // which the checks refuse.
      const bool out_is_input = fs::weakly_canonical(input, ec) == out_dir;
      std::vector<std::pair<std::string, std::string>> found;  // path, relative
      for (auto it = fs::recursive_directory_iterator(input, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_directory(ec)) {
          if (!out_is_input && under_out(it->path())) it.disable_recursion_pending();
          continue;
        }
        if (!out_is_input && under_out(it->path())) continue;
        if (it->path().filename() == kReportName) continue;  // a report of ours
        if (!it->is_regular_file(ec)) {
          ++out->skipped;
          out->reasons.insert("not a regular file (link, FIFO, device): not read");
          continue;
        }
        if (FormatByName(it->path().string()) == Format::kOther) {
          ++out->skipped;
          out->reasons.insert(
              "file in an input directory of another format (not .json, .json.gz, .xplane.pb, "
              ".hlo_proto.pb or an archive): not copied");
          continue;
        }
        found.emplace_back(it->path().string(), fs::relative(it->path(), input, ec).string());
      }
      if (ec) return IoError(input + ": cannot list directory: " + ec.message());
      std::sort(found.begin(), found.end());
      for (auto& [path, rel] : found)
        out->jobs.push_back({path, rel, FormatByName(path), "", false});
    } else if (fs::exists(input, ec)) {
      TH_RETURN_IF_ERROR(add_explicit(input));
    } else if (input.find_first_of("*?[") != std::string::npos) {
      glob_t g{};
      int r = ::glob(input.c_str(), 0, nullptr, &g);
      std::vector<std::string> matched;
      if (r == 0) matched.assign(g.gl_pathv, g.gl_pathv + g.gl_pathc);
      globfree(&g);
      if (matched.empty()) return NotFound(input + ": no file matches this pattern");
      for (const std::string& p : matched) TH_RETURN_IF_ERROR(add_explicit(p));
    } else {
      return NotFound(input + ": no such file or directory");
    }
  }
  if (out->jobs.empty()) return NotFound("no trace files found in the inputs given");
  return Ok();
}

// Names: each path component gets the rules (separately from the content's
// counts).
std::string RedactRelative(const std::string& relative, StringRedactor& names, bool* renamed) {
  fs::path out;
  std::string replaced;
  for (const fs::path& part : fs::path(relative)) {
    std::string s = part.string();
    if (s != "." && s != ".." && names.Apply(s, -1, &replaced)) {
      *renamed = true;
      out /= replaced;
    } else {
      out /= part;
    }
  }
  return out.string();
}

// ---------------------------------------------------------------------------
// Phase 2: the pre-pass.

Status CollectHosts(const Job& job, const RuleSet& rules, std::vector<std::string>* hosts) {
  auto json = [&](std::unique_ptr<ByteSource> raw) -> Status {
    auto text = OpenDecoded(std::move(raw));
    if (!text.ok()) return text.status();
    return CollectJsonHosts(**text, rules, hosts);
  };
  auto whole = [&](std::unique_ptr<ByteSource> raw, std::string* bytes) -> Status {
    auto text = OpenDecoded(std::move(raw));
    if (!text.ok()) return text.status();
    auto all = ReadAll(**text);
    if (!all.ok()) return all.status();
    *bytes = std::move(*all);
    return Ok();
  };
  switch (job.format) {
    case Format::kJson: {
      auto raw = OpenFileSource(job.input);
      if (!raw.ok()) return raw.status();
      return json(std::move(*raw));
    }
    case Format::kXSpace: {
      auto raw = OpenFileSource(job.input);
      if (!raw.ok()) return raw.status();
      size_t size = 0;
      if (char* mapped = (*raw)->MutableMapping(&size))
        return CollectXSpaceHosts(std::string_view(mapped, size), job.input, hosts);
      std::string bytes;
      TH_RETURN_IF_ERROR(whole(std::move(*raw), &bytes));
      return CollectXSpaceHosts(bytes, job.input, hosts);
    }
    case Format::kArchive:
      return ForEachArchiveMember(
          job.input, [&](const std::string& member, std::unique_ptr<ByteSource> src) -> Status {
            Format f = FormatByName(member);
            if (f == Format::kJson) return json(std::move(src));
            if (f == Format::kXSpace) {
              std::string where = src->name();
              std::string bytes;
              TH_RETURN_IF_ERROR(whole(std::move(src), &bytes));
              return CollectXSpaceHosts(bytes, where, hosts);
            }
            return Ok();
          });
    default:
      return Ok();
  }
}

// ---------------------------------------------------------------------------
// Phase 3: one input.

struct Result {
  RedactedFile file;
  RedactionCounts counts;
  int64_t skipped = 0;
  std::set<std::string> reasons;
  std::unique_ptr<AtomicFileSink> sink;
  Status status;
};

// Redacts one stream (a file or a member) of format `f` from `raw` into `into`
// (which the caller finishes); fills the file's numbers.
Status RedactStream(Format f, std::unique_ptr<ByteSource> raw, const std::string& name,
                    StringRedactor& redactor, ByteSink* into, RedactedFile* file,
                    std::unique_ptr<GzipSink>* gzip) {
  Compression comp = Compression::kNone;
  auto text = OpenDecoded(std::move(raw), &comp);
  if (!text.ok()) return text.status();
  file->compression = comp == Compression::kGzip ? "gzip" : "none";
  ByteSink* sink = into;
  if (comp == Compression::kGzip) {
    *gzip = std::make_unique<GzipSink>(into);
    sink = gzip->get();
  }
  const int64_t strings_before = redactor.counts().strings;
  const int64_t changed_before = redactor.counts().strings_changed;
  if (f == Format::kJson) {
    // Read/inflate ahead on one thread, compress/write behind on another.
    CountingSource counted(**text);
    PrefetchSource ahead(counted);
    AsyncSink behind(sink);
    Status s = RedactJson(ahead, redactor, behind);
    if (s.ok()) s = behind.Finish();
    TH_RETURN_IF_ERROR(s);
    file->bytes_in = counted.count();
    file->bytes_out = behind.bytes_in();
  } else {
    std::string bytes;
    std::string_view view;
    size_t size = 0;
    char* mapped = comp == Compression::kNone ? (*text)->MutableMapping(&size) : nullptr;
    if (mapped) {
      view = std::string_view(mapped, size);
    } else {
      auto all = ReadAll(**text);
      if (!all.ok()) return all.status();
      bytes = std::move(*all);
      view = bytes;
    }
    file->bytes_in = view.size();
    if (f == Format::kXSpace) {
      TH_RETURN_IF_ERROR(RedactXSpace(view, name, redactor, *sink, mapped != nullptr));
    } else {
      TH_RETURN_IF_ERROR(RedactHloProto(view, name, redactor, *sink));
    }
  }
  if (f != Format::kJson) file->bytes_out = sink->bytes_in();
  file->format = std::string(FormatName(f));
  file->strings = redactor.counts().strings - strings_before;
  file->strings_changed = redactor.counts().strings_changed - changed_before;
  return Ok();
}

Status RedactFile(const Job& job, const std::string& out_path, const RuleSet& rules,
                  const Pseudonymizer& pseudonyms, StringRedactor& names, std::mutex& names_mu,
                  Result* result) {
  StringRedactor redactor(rules, pseudonyms);
  auto sink = AtomicFileSink::Create(out_path);
  if (!sink.ok()) return sink.status();
  RedactedFile& file = result->file;
  file.output = job.output;
  file.renamed = job.renamed;
  if (job.format != Format::kArchive) {
    auto raw = OpenFileSource(job.input);
    if (!raw.ok()) return raw.status();
    std::unique_ptr<GzipSink> gzip;
    TH_RETURN_IF_ERROR(
        RedactStream(job.format, std::move(*raw), job.input, redactor, sink->get(), &file, &gzip));
    TH_RETURN_IF_ERROR(gzip ? gzip->Finish() : (*sink)->Finish());
  } else {
    ArchiveKind kind = ArchiveKindOf(job.input);
    file.format = "archive";
    file.compression = kind == ArchiveKind::kTar     ? "tar"
                       : kind == ArchiveKind::kTarGz ? "tar.gz"
                                                     : "zip";
    auto writer = ArchiveWriter::Open(kind, sink->get());
    if (!writer.ok()) return writer.status();
    const std::string dir = fs::path(out_path).parent_path().string();
    TH_RETURN_IF_ERROR(ForEachArchiveMember(
        job.input,
        [&](const std::string& member, std::unique_ptr<ByteSource> src) -> Status {
          Format f = FormatByName(member);
          if (f == Format::kOther || f == Format::kArchive) {
            ++result->skipped;
            result->reasons.insert(
                "archive member of another format (not .json, .json.gz, .xplane.pb, "
                ".hlo_proto.pb): left out of the redacted archive");
            return Ok();
          }
          RedactedFile m;
          bool renamed = false;
          std::string name;
          {
            std::lock_guard<std::mutex> lock(names_mu);
            name = RedactRelative(member, names, &renamed);
          }
          m.output = name;
          m.renamed = renamed;
          auto temp = TempFileSink::Create(dir.empty() ? "." : dir);
          if (!temp.ok()) return temp.status();
          std::unique_ptr<GzipSink> gzip;
          std::string where = src->name();
          TH_RETURN_IF_ERROR(
              RedactStream(f, std::move(src), where, redactor, temp->get(), &m, &gzip));
          TH_RETURN_IF_ERROR(gzip ? gzip->Finish() : (*temp)->Finish());
          TH_RETURN_IF_ERROR((*writer)->Add(name, (*temp)->bytes_in(), **temp));
          file.bytes_in += m.bytes_in;
          file.bytes_out += m.bytes_out;
          file.strings += m.strings;
          file.strings_changed += m.strings_changed;
          file.members.push_back(std::move(m));
          return Ok();
        },
        [&](const SkippedMember&) {
          ++result->skipped;
          result->reasons.insert(
              "archive member that is a link, FIFO or device: left out of the redacted archive");
        }));
    TH_RETURN_IF_ERROR((*writer)->Close());
    TH_RETURN_IF_ERROR((*sink)->Finish());
  }
  result->counts = std::move(redactor.counts());
  result->sink = std::move(*sink);
  return Ok();
}

std::string Thousands(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return v < 0 ? "-" + s : s;
}

void WriteFileJson(JsonWriter& w, const RedactedFile& f) {
  w.BeginObject();
  w.Field("output", f.output);
  w.Field("format", f.format);
  w.Field("compression", f.compression);
  w.Field("bytes_in", static_cast<int64_t>(f.bytes_in));
  w.Field("bytes_out", static_cast<int64_t>(f.bytes_out));
  w.Field("strings", f.strings);
  w.Field("strings_changed", f.strings_changed);
  w.Field("renamed", f.renamed);
  if (!f.members.empty()) {
    w.Key("members").BeginArray();
    for (const RedactedFile& m : f.members) WriteFileJson(w, m);
    w.EndArray();
  }
  w.EndObject();
}

void WriteRuleCounts(JsonWriter& w, const RuleSet& rules, const RedactionCounts& counts) {
  w.BeginArray();
  for (size_t i = 0; i < rules.rules.size(); ++i) {
    const Rule& r = rules.rules[i];
    const RuleCount& c = i < counts.rules.size() ? counts.rules[i] : RuleCount{};
    w.BeginObject();
    w.Field("id", r.id);
    w.Field("kind", RuleKindName(r.kind));
    w.Field("class", r.cls);
    w.Field("replacements", c.matches);
    w.Field("distinct", static_cast<int64_t>(c.distinct.size()));
    w.EndObject();
  }
  w.EndArray();
}

int64_t TotalMatches(const RedactionCounts& c) {
  int64_t n = 0;
  for (const RuleCount& r : c.rules) n += r.matches;
  return n;
}

}  // namespace

StatusOr<RedactReport> RunRedaction(const RedactOptions& o, RuleSet rules,
                                    const Pseudonymizer& pseudonyms) {
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<tbb::global_control> limit;
  if (o.threads > 0) {
    limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                  static_cast<size_t>(o.threads));
  }
  std::error_code ec;
  if (fs::exists(o.output_dir, ec) && !fs::is_directory(o.output_dir, ec))
    return InvalidInput(o.output_dir + ": the output must be a directory");

  // Phase 1.
  Expansion ex;
  TH_RETURN_IF_ERROR(Expand(o, &ex));
  std::vector<Job>& jobs = ex.jobs;

  // Phase 2.
  std::vector<std::vector<std::string>> found(jobs.size());
  std::vector<Status> errors(jobs.size());
  tbb::parallel_for(size_t{0}, jobs.size(),
                    [&](size_t i) { errors[i] = CollectHosts(jobs[i], rules, &found[i]); });
  for (const Status& s : errors)
    if (!s.ok()) return s;
  std::set<std::string> learned;
  for (auto& list : found)
    for (auto& h : list) learned.insert(h);
  rules.AddKnownHosts(std::vector<std::string>(learned.begin(), learned.end()));

  // Output names, then the checks that keep inputs safe.
  RedactReport report;
  report.hosts_learned = static_cast<int64_t>(learned.size());
  StringRedactor names(rules, pseudonyms);
  std::map<std::string, size_t> by_output;
  for (size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].output = RedactRelative(jobs[i].relative, names, &jobs[i].renamed);
    if (jobs[i].output == kReportName)
      return InvalidInput(jobs[i].input + ": an input may not be named " +
                          std::string(kReportName));
    auto [it, inserted] = by_output.emplace(jobs[i].output, i);
    if (!inserted)
      return InvalidInput(jobs[it->second].input + " and " + jobs[i].input +
                          " would both be written to " +
                          PrintableBytes((fs::path(o.output_dir) / jobs[i].output).string()));
  }
  std::set<std::pair<dev_t, ino_t>> inputs;
  for (const Job& j : jobs) {
    struct stat st;
    if (::stat(j.input.c_str(), &st) == 0) inputs.insert({st.st_dev, st.st_ino});
  }
  auto is_input = [&](const fs::path& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && inputs.count({st.st_dev, st.st_ino});
  };
  for (const Job& j : jobs) {
    fs::path target = fs::path(o.output_dir) / j.output;
    if (is_input(target))
      return InvalidInput(PrintableBytes(target.string()) +
                          ": the output would overwrite an input (choose another -o)");
  }
  if (is_input(fs::path(o.output_dir) / kReportName))
    return InvalidInput("the report would overwrite an input (choose another -o)");

  // Phase 3.
  std::vector<fs::path> made_dirs;
  auto make_dirs = [&](const fs::path& dir) -> Status {
    std::vector<fs::path> missing;
    for (fs::path p = dir; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
      missing.push_back(p);
      if (p == p.parent_path()) break;
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
      if (!fs::create_directory(*it, ec) && ec)
        return IoError(it->string() + ": cannot create directory: " + ec.message());
      made_dirs.push_back(*it);
    }
    return Ok();
  };
  auto unmake_dirs = [&]() {
    for (auto it = made_dirs.rbegin(); it != made_dirs.rend(); ++it) fs::remove(*it, ec);
  };
  for (const Job& j : jobs) {
    Status s = make_dirs((fs::path(o.output_dir) / j.output).parent_path());
    if (!s.ok()) {
      unmake_dirs();
      return s;
    }
  }
  std::vector<Result> results(jobs.size());
  std::mutex names_mu;
  tbb::parallel_for(size_t{0}, jobs.size(), [&](size_t i) {
    fs::path target = fs::path(o.output_dir) / jobs[i].output;
    results[i].status =
        RedactFile(jobs[i], target.string(), rules, pseudonyms, names, names_mu, &results[i]);
  });
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].status.ok()) {
      Status s = results[i].status;
      results.clear();  // removes every temporary file
      unmake_dirs();
      return s;
    }
  }
  for (Result& r : results) {
    Status s = r.sink->Commit();
    if (!s.ok()) return s;
  }

  // Phase 4: the numbers.
  report.counts.rules.resize(rules.rules.size());
  for (Result& r : results) {
    report.counts.Merge(r.counts);
    report.files.push_back(std::move(r.file));
    report.skipped += r.skipped;
    ex.reasons.insert(r.reasons.begin(), r.reasons.end());
  }
  report.skipped += ex.skipped;
  report.skipped_reasons.assign(ex.reasons.begin(), ex.reasons.end());
  report.name_counts = std::move(names.counts());
  for (const RedactedFile& f : report.files) {
    report.bytes_in += f.bytes_in;
    report.bytes_out += f.bytes_out;
  }
  report.key_source = pseudonyms.source();
  report.key_fingerprint = pseudonyms.KeyFingerprint();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ostringstream json;
  WriteRedactionReportJson(report, rules, pseudonyms.digits(), json);
  TH_RETURN_IF_ERROR(WriteOutput((fs::path(o.output_dir) / kReportName).string(), json.str()));
  report.rules = std::move(rules);
  return report;
}

void WriteRedactionReportJson(const RedactReport& report, const RuleSet& rules, int digits,
                              std::ostream& out) {
  JsonWriter w(out);
  w.BeginObject();
  w.Field("schema_version", "1.0");
  w.Field("tool", "tracehound redact");
  w.Field("rules_file", fs::path(rules.name).filename().string());
  w.Key("key").BeginObject();
  w.Field("source", KeySourceName(report.key_source));
  w.Field("fingerprint", report.key_fingerprint);
  w.Field("stable_across_runs", report.key_source != KeySource::kRandom);
  w.EndObject();
  w.Field("pseudonym_digits", digits);
  w.Key("totals").BeginObject();
  w.Field("files", static_cast<int64_t>(report.files.size()));
  w.Field("strings", report.counts.strings);
  w.Field("strings_changed", report.counts.strings_changed);
  w.Field("replacements", TotalMatches(report.counts));
  w.Field("names_changed", report.name_counts.strings_changed);
  w.Field("hosts_learned", report.hosts_learned);
  w.Field("token_collisions", report.counts.collisions + report.name_counts.collisions);
  w.Field("bytes_in", static_cast<int64_t>(report.bytes_in));
  w.Field("bytes_out", static_cast<int64_t>(report.bytes_out));
  w.Field("seconds", report.seconds);
  w.EndObject();
  w.Key("rules");
  WriteRuleCounts(w, rules, report.counts);
  w.Key("names");
  WriteRuleCounts(w, rules, report.name_counts);
  w.Key("disabled_rules").BeginArray();
  for (const std::string& id : rules.disabled) w.String(id);
  w.EndArray();
  w.Key("files").BeginArray();
  for (const RedactedFile& f : report.files) WriteFileJson(w, f);
  w.EndArray();
  w.Key("skipped").BeginObject();
  w.Field("count", report.skipped);
  w.Key("reasons").BeginArray();
  for (const std::string& r : report.skipped_reasons) w.String(r);
  w.EndArray();
  w.EndObject();
  std::string keep_keys;
  std::vector<std::string> sorted(rules.keep_keys.begin(), rules.keep_keys.end());
  std::sort(sorted.begin(), sorted.end());
  for (const std::string& k : sorted) keep_keys += (keep_keys.empty() ? "" : ", ") + k;
  w.Key("kept").BeginArray();
  w.String("numbers, true/false/null, whitespace and key order: byte-identical");
  w.String(
      "every string no rule matched: byte-identical (kernel names, aten:: ops, categories, "
      "shapes, HLO op names unless a rule matches them)");
  w.String("JSON values under the keys kept by the rules: " +
           (keep_keys.empty() ? "none" : keep_keys));
  w.String(
      "protobuf fields other than the rewritten strings: byte-identical (timestamps, "
      "durations, ids, metadata ids, stat values)");
  w.EndArray();
  w.EndObject();
}

void WriteRedactionSummary(const RedactReport& report, const RuleSet& rules, std::ostream& out) {
  std::map<std::string, int> formats;
  for (const RedactedFile& f : report.files) ++formats[f.format];
  std::string kinds;
  for (auto& [k, n] : formats) kinds += (kinds.empty() ? "" : ", ") + std::to_string(n) + " " + k;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f", report.seconds);
  out << "redacted " << report.files.size() << " file" << (report.files.size() == 1 ? "" : "s")
      << " (" << kinds << ") in " << secs << " s: " << Thousands(report.counts.strings_changed)
      << " of " << Thousands(report.counts.strings) << " strings changed, "
      << Thousands(TotalMatches(report.counts)) << " replacements\n";
  size_t width = 4;
  for (const Rule& r : rules.rules) width = std::max(width, r.id.size());
  for (size_t i = 0; i < rules.rules.size(); ++i) {
    const RuleCount& c = report.counts.rules[i];
    const RuleCount& n =
        report.name_counts.rules.size() > i ? report.name_counts.rules[i] : RuleCount{};
    if (c.matches == 0 && n.matches == 0) continue;
    out << "  " << rules.rules[i].id << std::string(width - rules.rules[i].id.size() + 2, ' ')
        << Thousands(c.matches) << " replaced, "
        << Thousands(static_cast<int64_t>(c.distinct.size())) << " distinct";
    if (n.matches) out << "; " << Thousands(n.matches) << " in file names";
    out << "\n";
  }
  if (report.skipped)
    out << "left out (not redacted, not copied): " << report.skipped << " file"
        << (report.skipped == 1 ? "" : "s") << "\n";
  if (report.counts.collisions + report.name_counts.collisions)
    out << "warning: " << report.counts.collisions + report.name_counts.collisions
        << " pseudonyms stand for two originals (raise pseudonym_digits)\n";
  out << "key: " << KeySourceName(report.key_source) << ", fingerprint " << report.key_fingerprint;
  if (report.key_source == KeySource::kRandom)
    out << " (pseudonyms match within this run only; --key-file or TRACEHOUND_REDACT_KEY makes "
           "them stable across runs)";
  out << "\n";
}

}  // namespace th::redact
