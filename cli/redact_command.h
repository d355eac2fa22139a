// `tracehound redact IN... -o OUT`: writes copies of traces with user names,
// paths, hosts, addresses, e-mails and secrets replaced by stable pseudonyms
// (core/redact, docs/redact.md).
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

void AddRedactCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
