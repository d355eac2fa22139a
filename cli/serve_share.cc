#include "cli/serve_share.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "core/graph/text_escape.h"
#include "core/serve/serve_index_cache.h"
#include "core/serve/share_keys.h"

namespace th::cli {
namespace {

int Fail(const Status& s) {
  std::cerr << "tracehound: error: " << PrintableBytes(s.message()) << "\n";
  return 2;
}

// A path's content key, or a content key as given.
StatusOr<std::string> RunKey(const std::string& run) {
  std::error_code ec;
  if (std::filesystem::exists(run, ec)) return serve::InputContentKey(run);
  if (serve::IsHex32(run)) return run;
  return InvalidInput("--share " + run +
                      ": neither a trace, folder or archive nor a content key (32 hex digits)");
}

// scheme://HOST:PORT/ of the server the link is for; a wildcard bind
// address becomes this machine's name.
std::string BaseUrl(const ShareCommand& c) {
  std::string host = c.bind;
  if (host == "0.0.0.0" || host == "::") {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0 && name[0]) host = name;
  }
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return std::string(c.tls ? "https://" : "http://") + host + ":" + std::to_string(c.port) + "/";
}

int Share(const ShareCommand& c, const std::string& key_file) {
  auto seconds = serve::ParseShareDuration(c.expires);
  if (!seconds.ok()) return Fail(InvalidInput("--expires " + seconds.status().message()));
  std::vector<std::string> keys;
  for (const std::string& run : c.runs) {
    auto key = RunKey(run);
    if (!key.ok()) return Fail(key.status());
    keys.push_back(*key);
  }
  auto authority = serve::ShareAuthority::Open(key_file);
  if (!authority.ok()) return Fail(authority.status());
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  serve::ShareClaims claims;
  auto token = (*authority)->Issue(keys, now + *seconds, &claims);
  if (!token.ok()) return Fail(token.status());
  std::cout << BaseUrl(c) << "?token=" << *token << "#key=" << keys.front() << std::endl;
  std::cerr << "tracehound: share link " << claims.id << ": read-only, " << keys.size()
            << (keys.size() == 1 ? " run" : " runs") << ", expires "
            << serve::UtcTime(claims.expires_unix_s) << "; signed with " << key_file
            << " (revoke: tracehound serve --revoke " << claims.id << ")\n";
  return 0;
}

}  // namespace

std::string ShareKeyFile(const std::string& key_file, const std::string& cache_dir) {
  return key_file.empty() ? serve::DefaultShareKeyFile(cache_dir) : key_file;
}

int RunShareCommand(const ShareCommand& c) {
  const std::string key_file = ShareKeyFile(c.key_file, c.cache_dir);
  if (key_file.empty())
    return Fail(InvalidInput("no key file: give --key-file (no $XDG_CACHE_HOME or $HOME)"));
  if (!c.revoke.empty()) {
    auto id = serve::RevokeShareToken(key_file, c.revoke);
    if (!id.ok()) return Fail(InvalidInput("--revoke: " + id.status().message()));
    std::cerr << "tracehound: revoked share link " << *id << " (" << key_file
              << ".revoked); servers using " << key_file << " refuse it from their next request\n";
    return 0;
  }
  return Share(c, key_file);
}

}  // namespace th::cli
