// `tracehound serve --share` and `--revoke`: share links signed with the
// server's key file, made or revoked without a running server (docs/serve.md,
// "Sessions and sharing").
#pragma once

#include <string>
#include <vector>

namespace th::cli {

struct ShareCommand {
  std::vector<std::string> runs;  // inputs (paths) or content keys
  std::string expires = "7d";
  std::string revoke;     // a token id, token or link
  std::string key_file;   // "" = serve-share.key in the cache folder
  std::string cache_dir;  // --cache-dir: "" = the default
  std::string bind = "127.0.0.1";
  int port = 8765;
  bool tls = false;
};

// Prints the link (stdout) and what it grants (stderr), or appends to the
// revocation list; the exit status (2 on an error, named on stderr).
int RunShareCommand(const ShareCommand& command);

// The key file `serve` uses: `key_file`, else serve-share.key in `cache_dir`
// or the default cache folder; "" when there is none.
std::string ShareKeyFile(const std::string& key_file, const std::string& cache_dir);

}  // namespace th::cli
