#include "cli/redact_command.h"

#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/pipeline_setup.h"
#include "core/graph/text_escape.h"
#include "core/redact/pseudonymizer.h"
#include "core/redact/redact_rules.h"
#include "core/redact/redact_run.h"

namespace th::cli {

namespace {

struct RedactCommandOptions {
  std::vector<std::string> inputs;
  std::string output;
  std::string rules;
  std::string key_file;
  int threads = 0;
  bool quiet = false;
};

int Fail(const std::string& message) {
  std::cerr << "tracehound: error: " << PrintableBytes(message) << "\n";
  return 2;
}

int Run(const RedactCommandOptions& o) {
  std::string rules_path = o.rules.empty() ? ConfigPath("redact.yaml") : o.rules;
  auto rules = redact::LoadRules(rules_path);
  if (!rules.ok()) return Fail(rules.status().message());
  auto pseudonyms = redact::Pseudonymizer::Create(o.key_file, std::getenv("TRACEHOUND_REDACT_KEY"),
                                                  rules->pseudonym_digits);
  if (!pseudonyms.ok()) return Fail(pseudonyms.status().message());
  redact::RedactOptions options;
  options.inputs = o.inputs;
  options.output_dir = o.output;
  options.threads = o.threads;
  redact::RuleSet final_rules = *rules;
  auto report = redact::RunRedaction(options, std::move(*rules), *pseudonyms);
  if (!report.ok()) return Fail(report.status().message());
  if (!o.quiet) {
    redact::WriteRedactionSummary(*report, final_rules, std::cout);
    std::cout << "report: " << PrintableBytes(o.output + "/" + std::string(redact::kReportName))
              << "\n";
  }
  return 0;
}

}  // namespace

void AddRedactCommand(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<RedactCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "redact",
      "Write copies of traces with user names, paths, hosts, IPs, e-mails and secrets replaced "
      "by stable pseudonyms (Kineto/Chrome JSON, XSpace, HLO; archives of ranks)");
  cmd->add_option("inputs", opt->inputs,
                  "traces: files (.json, .json.gz, .xplane.pb, .hlo_proto.pb), directories, "
                  "globs, .tar/.tar.gz/.zip of ranks")
      ->required();
  cmd->add_option("-o,--output", opt->output,
                  "output directory (created; each input is written under it by its name)")
      ->required();
  cmd->add_option("--rules", opt->rules,
                  "rules file (YAML; default: the shipped configs/redact.yaml)");
  cmd->add_option("--key-file", opt->key_file,
                  "key for the pseudonyms (>= 16 bytes; also $TRACEHOUND_REDACT_KEY): the same "
                  "key gives the same pseudonyms across runs; without one a random key is used");
  cmd->add_option("--threads", opt->threads, "worker threads (0 = all cores)");
  cmd->add_flag("-q,--quiet", opt->quiet, "print nothing on success");
  cmd->callback([opt, exit_code] { *exit_code = Run(*opt); });
}

}  // namespace th::cli
