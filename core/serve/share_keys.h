// The server's share-token key and revocation list (share_token.h).
//
// Key file: 32 random bytes (RAND_bytes), mode 0600, created on first use
// (written under a temporary name, then linked into place, so two servers
// starting at once end with the same key); one that others may read, or that
// is not 32 bytes, is refused with an error naming it. Tokens signed with it
// stay valid across restarts until they expire or are revoked.
//
// Revocation list: KEY_FILE.revoked, one token id (32 hex digits) per line,
// appended by `tracehound serve --revoke`. A running server re-reads it when
// its size, modification time or inode changes (one stat per check), so a
// revocation takes effect on the next request.
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/status.h"
#include "core/serve/share_token.h"

namespace th::serve {

// CACHE_DIR/serve-share.key, CACHE_DIR being `cache_dir` or, when that is
// empty, DefaultIndexCacheDir(); "" without either.
std::string DefaultShareKeyFile(const std::string& cache_dir = "");

class ShareAuthority {
 public:
  // Reads `key_file`, creating it (and its folder) when absent.
  static StatusOr<std::unique_ptr<ShareAuthority>> Open(const std::string& key_file);

  const std::string& key_file() const { return key_file_; }
  std::string revocation_file() const { return key_file_ + ".revoked"; }

  // A token for `runs` (content keys) valid until `expires_unix_s`, with a
  // fresh random id; *claims (when given) receives what it says.
  StatusOr<std::string> Issue(const std::vector<std::string>& runs, int64_t expires_unix_s,
                              ShareClaims* claims = nullptr) const;
  // VerifyShareToken, then the revocation list (kRevoked).
  ShareVerdict Check(std::string_view token, int64_t now_unix_s) const;

 private:
  ShareAuthority(std::string key_file, std::string key, const ServeCrypto* crypto)
      : key_file_(std::move(key_file)), key_(std::move(key)), crypto_(crypto) {}
  bool Revoked(const std::string& id) const;

  std::string key_file_, key_;
  const ServeCrypto* crypto_;
  mutable std::mutex mutex_;
  mutable std::set<std::string> revoked_;
  mutable struct {
    bool present = false;
    off_t size = 0;
    ino_t inode = 0;
    int64_t mtime_ns = 0;
  } seen_;
};

// The token id that `what` names: an id (32 hex digits), a token or a link
// holding `token=TOKEN`; an error when it names none.
StatusOr<std::string> ShareTokenId(std::string_view what);

// Appends the id `what` names to the revocation list of `key_file`.
StatusOr<std::string> RevokeShareToken(const std::string& key_file, std::string_view what);

// "7d", "12h", "30m", "90s", "2w" as seconds (1 s to 366 days), or an error.
StatusOr<int64_t> ParseShareDuration(std::string_view text);

}  // namespace th::serve
