// `tracehound redact IN... -o OUT`: the whole run.
//
// Phase 1: inputs → files (files, directories, globs, archives; .json,
//   .json.gz, .xplane.pb, .hlo_proto.pb side files, .tar/.tar.gz/.zip), each
//   with its output path under OUT: a file or archive named on the command
//   line → OUT/<its name>; a file found in a directory → OUT/<its path under
//   that directory>. Names get the rules too (a host in "<host>.xplane.pb").
//   Refused before anything is written: two inputs with one output, an output
//   that is an input.
// Phase 2: the pre-pass reads the host names the inputs list (XSpace
//   hostnames, learn_hosts fields before traceEvents), so that they are found
//   in every string of every input, whichever file comes first.
// Phase 3: each input is redacted to a temporary file in OUT (in parallel,
//   one StringRedactor each); an archive becomes an archive of the same kind;
//   gzip stays gzip. Only when every input succeeded are the files renamed
//   into place: a failed run leaves OUT as it was.
// Phase 4: OUT/redaction-report.json (counts per rule, never an original).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/redact/pseudonymizer.h"
#include "core/redact/redact_rules.h"
#include "core/redact/string_redactor.h"

namespace th::redact {

inline constexpr std::string_view kReportName = "redaction-report.json";

struct RedactOptions {
  std::vector<std::string> inputs;
  std::string output_dir;
  std::string key_file;           // --key-file
  const char* env_key = nullptr;  // $TRACEHOUND_REDACT_KEY, nullptr when unset
  int threads = 0;                // 0: all cores
};

// One output file (or archive member): named by its redacted name only.
struct RedactedFile {
  std::string output;       // under OUT ("rank0.json.gz", "ranks.tar.gz:rank0.json")
  std::string format;       // json | xspace | hlo_proto | archive
  std::string compression;  // none | gzip (archives: tar | tar.gz | zip)
  uint64_t bytes_in = 0;    // decompressed bytes read
  uint64_t bytes_out = 0;   // decompressed bytes written
  int64_t strings = 0, strings_changed = 0;
  bool renamed = false;  // a rule changed its name
  std::vector<RedactedFile> members;
};

struct RedactReport {
  std::vector<RedactedFile> files;
  RedactionCounts counts;       // trace content
  RedactionCounts name_counts;  // file and member names
  // Inputs left out: files in directories or archive members that are no
  // trace (never copied: their content was not redacted), links, FIFOs.
  int64_t skipped = 0;
  std::vector<std::string> skipped_reasons;  // distinct reasons, no names
  int64_t hosts_learned = 0;                 // names from the pre-pass
  KeySource key_source = KeySource::kRandom;
  std::string key_fingerprint;
  double seconds = 0;
  uint64_t bytes_in = 0, bytes_out = 0;
  // The rules as applied: with the host names the pre-pass learned (a
  // StringRedactor over them and the same key redacts text as the run did).
  RuleSet rules;
};

// Runs the redaction; `rules` gets the learned host names.
StatusOr<RedactReport> RunRedaction(const RedactOptions& options, RuleSet rules,
                                    const Pseudonymizer& pseudonyms);

// The report as JSON (redaction-report.json) and as a terminal summary.
void WriteRedactionReportJson(const RedactReport& report, const RuleSet& rules, int digits,
                              std::ostream& out);
void WriteRedactionSummary(const RedactReport& report, const RuleSet& rules, std::ostream& out);

}  // namespace th::redact
