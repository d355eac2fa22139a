#include "core/serve/share_keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/serve/serve_index_cache.h"

namespace th::serve {
namespace {

std::string Errno() { return std::strerror(errno); }

// Reads the key file; NotFound when it does not exist.
StatusOr<std::string> ReadKey(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound(path);
    return IoError("share key " + path + ": cannot open: " + Errno());
  }
  struct stat st {};
  std::string key(kShareKeyBytes + 1, '\0');
  const bool stat_ok = fstat(fd, &st) == 0;
  const ssize_t n = stat_ok ? read(fd, key.data(), key.size()) : -1;
  close(fd);
  if (!stat_ok || n < 0) return IoError("share key " + path + ": cannot read: " + Errno());
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return InvalidInput("share key " + path + ": others may read it (mode " + mode +
                        "); chmod 600 it, or delete it to make a new key (links made with it "
                        "stop working)");
  }
  if (n != static_cast<ssize_t>(kShareKeyBytes))
    return InvalidInput("share key " + path + ": " + std::to_string(n) + " bytes, not " +
                        std::to_string(kShareKeyBytes));
  key.resize(kShareKeyBytes);
  return key;
}

// Draws a key into a 0600 temporary file and links it to `path`; whoever
// links first wins, and every caller then reads the same file.
Status CreateKey(const ServeCrypto& crypto, const std::string& path) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) return IoError("share key " + path + ": cannot create its folder: " + ec.message());
  unsigned char key[kShareKeyBytes];
  if (!crypto.random_bytes(key, sizeof key))
    return Internal("share key " + path + ": OpenSSL RAND_bytes failed");
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return IoError("share key " + path + ": cannot create " + tmp + ": " + Errno());
  const bool written =
      write(fd, key, sizeof key) == static_cast<ssize_t>(sizeof key) && fsync(fd) == 0;
  close(fd);
  const bool linked = written && (link(tmp.c_str(), path.c_str()) == 0 || errno == EEXIST);
  const std::string why = Errno();
  unlink(tmp.c_str());
  if (!linked) return IoError("share key " + path + ": cannot write: " + why);
  return Ok();
}

int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace

std::string DefaultShareKeyFile(const std::string& cache_dir) {
  const std::string dir = cache_dir.empty() ? DefaultIndexCacheDir() : cache_dir;
  return dir.empty() ? "" : dir + "/serve-share.key";
}

StatusOr<std::unique_ptr<ShareAuthority>> ShareAuthority::Open(const std::string& key_file) {
  std::string error;
  const HttpModuleApi* api = LoadHttpModule(&error);
  if (!api) return Unsupported(error);
  auto key = ReadKey(key_file);
  if (!key.ok() && key.status().code() == StatusCode::kNotFound) {
    Status created = CreateKey(*api->crypto, key_file);
    if (!created.ok()) return created;
    key = ReadKey(key_file);
  }
  if (!key.ok()) return key.status();
  return std::unique_ptr<ShareAuthority>(new ShareAuthority(key_file, *key, api->crypto));
}

StatusOr<std::string> ShareAuthority::Issue(const std::vector<std::string>& runs,
                                            int64_t expires_unix_s, ShareClaims* out) const {
  ShareClaims claims;
  unsigned char id[16];
  if (!crypto_->random_bytes(id, sizeof id))
    return Internal("share token: OpenSSL RAND_bytes failed");
  static const char kHex[] = "0123456789abcdef";
  for (unsigned char b : id) {
    claims.id.push_back(kHex[b >> 4]);
    claims.id.push_back(kHex[b & 15]);
  }
  for (const std::string& run : runs)
    if (!IsHex32(run)) return InvalidInput("share: " + run + " is not a content key");
  if (runs.empty() || runs.size() > kMaxShareRuns)
    return InvalidInput("share: a link names 1 to " + std::to_string(kMaxShareRuns) + " runs");
  claims.runs = runs;
  claims.expires_unix_s = expires_unix_s;
  auto token = SignShareToken(*crypto_, key_, claims);
  if (token.ok() && out) *out = claims;
  return token;
}

ShareVerdict ShareAuthority::Check(std::string_view token, int64_t now_unix_s) const {
  ShareVerdict v = VerifyShareToken(*crypto_, key_, token, now_unix_s);
  if (v.check == ShareCheck::kOk && Revoked(v.claims.id)) {
    v.check = ShareCheck::kRevoked;
    v.message = "token: this link was revoked";
  }
  return v;
}

bool ShareAuthority::Revoked(const std::string& id) const {
  const std::string path = revocation_file();
  struct stat st {};
  const bool present = stat(path.c_str(), &st) == 0;
  std::lock_guard<std::mutex> lock(mutex_);
  if (present != seen_.present ||
      (present &&
       (st.st_size != seen_.size || st.st_ino != seen_.inode || MtimeNs(st) != seen_.mtime_ns))) {
    revoked_.clear();
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
      if (IsHex32(line)) revoked_.insert(line);
    }
    seen_ = {present, present ? st.st_size : 0, present ? st.st_ino : 0, present ? MtimeNs(st) : 0};
  }
  return revoked_.count(id) > 0;
}

StatusOr<std::string> ShareTokenId(std::string_view what) {
  if (IsHex32(what)) return std::string(what);
  const size_t at = what.find("token=");
  if (at != std::string_view::npos) {
    what.remove_prefix(at + 6);
    what = what.substr(0, what.find_first_of("&#"));
  }
  auto claims = ReadUnverifiedClaims(what);
  if (!claims.ok())
    return InvalidInput(
        "neither a token id (32 hex digits), a share token nor a link "
        "holding one (" +
        claims.status().message() + ")");
  return claims->id;
}

StatusOr<std::string> RevokeShareToken(const std::string& key_file, std::string_view what) {
  auto id = ShareTokenId(what);
  if (!id.ok()) return id.status();
  const std::string path = key_file + ".revoked";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return IoError("revocation list " + path + ": cannot open: " + Errno());
  const std::string line = *id + "\n";
  const bool ok = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  const std::string why = Errno();
  close(fd);
  if (!ok) return IoError("revocation list " + path + ": cannot append: " + why);
  return *id;
}

StatusOr<int64_t> ParseShareDuration(std::string_view text) {
  const std::string bad = std::string(text.size() > 12 ? "?" : text) +
                          ": expected a number and a unit (s, m, h, d or w), e.g. 7d";
  if (text.size() < 2 || text.size() > 12) return InvalidInput(bad);
  int64_t n = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return InvalidInput(bad);
    n = n * 10 + (c - '0');
  }
  int64_t unit = 0;
  switch (text.back()) {
    case 's':
      unit = 1;
      break;
    case 'm':
      unit = 60;
      break;
    case 'h':
      unit = 3600;
      break;
    case 'd':
      unit = 86400;
      break;
    case 'w':
      unit = 7 * 86400;
      break;
    default:
      return InvalidInput(bad);
  }
  const int64_t seconds = n * unit;
  if (seconds < 1 || seconds > 366 * 86400)
    return InvalidInput(std::string(text) + ": between 1 s and 366 days");
  return seconds;
}

}  // namespace th::serve
