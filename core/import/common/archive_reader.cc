#include "core/import/common/archive_reader.h"

#include <memory>

#include "core/graph/text_escape.h"
#include "core/import/common/archive_stream_client.h"
#include "core/import/common/libarchive_module.h"

namespace th {

namespace {

struct ArchiveCloser {
  const LibArchiveApi* la;
  void operator()(archive* a) const { la->archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveCloser>;

// libarchive's message for the last error; it has none for some damaged
// headers (found by fuzzing: a null string made the error path crash).
std::string ErrorText(const LibArchiveApi& la, archive* a) {
  const char* text = la.archive_error_string(a);
  return text ? PrintableBytes(text) : "unreadable archive data (libarchive gives no reason)";
}

ArchivePtr NewReader(const LibArchiveApi& la) {
  ArchivePtr a(la.archive_read_new(), ArchiveCloser{&la});
  la.archive_read_support_filter_gzip(a.get());
  la.archive_read_support_filter_xz(a.get());
  la.archive_read_support_filter_zstd(a.get());
  la.archive_read_support_format_tar(a.get());
  la.archive_read_support_format_gnutar(a.get());
  la.archive_read_support_format_zip(a.get());
  return a;
}

ArchivePtr OpenArchive(const LibArchiveApi& la, const std::string& path) {
  ArchivePtr a = NewReader(la);
  if (la.archive_read_open_filename(a.get(), path.c_str(), 1 << 20) != ARCHIVE_OK) return nullptr;
  return a;
}

// What went wrong in a stream-read archive: the stream's own error (it names
// the object and offset), else libarchive's, with the offset reached.
Status StreamError(const LibArchiveApi& la, archive* a, const ArchiveStreamClient& client,
                   const std::string& name, const std::string& what) {
  const Status& failure = client.failure();
  if (!failure.ok()) return Status(failure.code(), name + ": " + what + ": " + failure.message());
  return InvalidInput(name + ": " + what + ": " + ErrorText(la, a) + " (at byte offset " +
                      std::to_string(client.position()) + " of the archive)");
}

class MemberSource final : public ByteSource {
 public:
  MemberSource(const LibArchiveApi& la, archive* a, std::string name, uint64_t size,
               const ArchiveStreamClient* client)
      : la_(la), a_(a), name_(std::move(name)), size_(size), client_(client) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    la_ssize_t got = la_.archive_read_data(a_, buf, n);
    if (got < 0) {
      const std::string what = "cannot read archive member at offset " + std::to_string(read_);
      if (client_) return StreamError(la_, a_, *client_, name_, what);
      return InvalidInput(name_ + ": " + what + ": " + ErrorText(la_, a_));
    }
    read_ += static_cast<uint64_t>(got);
    return static_cast<size_t>(got);
  }
  const std::string& name() const override { return name_; }
  uint64_t stored_bytes_read() const override { return read_; }
  uint64_t stored_size() const override { return size_; }

 private:
  const LibArchiveApi& la_;
  archive* a_;
  std::string name_;
  uint64_t size_;
  const ArchiveStreamClient* client_;  // nullptr for a local file
  uint64_t read_ = 0;
};

}  // namespace

bool HasArchiveName(std::string_view path) {
  return path.ends_with(".tar") || path.ends_with(".tar.gz") || path.ends_with(".tgz") ||
         path.ends_with(".zip");
}

bool IsArchive(const std::string& path) {
  const LibArchiveApi* api = LoadLibArchive(nullptr);
  if (!api) return false;  // the name then decides, and reading says why
  const LibArchiveApi& la = *api;
  ArchivePtr a = OpenArchive(la, path);
  if (!a) return false;
  archive_entry* entry = nullptr;
  return la.archive_read_next_header(a.get(), &entry) == ARCHIVE_OK;
}

namespace {

// The member loop shared by files and streams; `client` is the stream's
// (nullptr for a file).
Status ReadMembers(
    const LibArchiveApi& la, archive* a, const std::string& path, const ArchiveStreamClient* client,
    const std::function<Status(const std::string&, std::unique_ptr<ByteSource>)>& visit,
    const std::function<void(const SkippedMember&)>& skipped) {
  while (true) {
    archive_entry* entry = nullptr;
    int r = la.archive_read_next_header(a, &entry);
    if (r == ARCHIVE_EOF) return Ok();
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
      if (client) return StreamError(la, a, *client, path, "broken archive");
      return InvalidInput(path + ": broken archive: " + ErrorText(la, a));
    }
    const char* name = la.archive_entry_pathname(entry);
    std::string member = name ? name : "";
    const char* hard_link = la.archive_entry_hardlink(entry);
    auto type = la.archive_entry_filetype(entry);
    if (hard_link || type != AE_IFREG) {
      if (type == AE_IFDIR && !hard_link) continue;
      if (!skipped) continue;
      SkippedMember s{member, "", hard_link != nullptr};
      const char* target = la.archive_entry_symlink(entry);
      if (hard_link)
        s.why = std::string("hard link to ") + hard_link;
      else if (type == AE_IFLNK)
        s.why = std::string("symbolic link to ") + (target ? target : "?");
      else if (type == AE_IFIFO)
        s.why = "FIFO";
      else if (type == AE_IFCHR || type == AE_IFBLK)
        s.why = "device";
      else if (type == AE_IFSOCK)
        s.why = "socket";
      else
        s.why = "special file";
      skipped(s);
      continue;
    }
    auto source = std::make_unique<MemberSource>(
        la, a, path + ":" + member, static_cast<uint64_t>(la.archive_entry_size(entry)), client);
    TH_RETURN_IF_ERROR(visit(member, std::move(source)));
  }
}

}  // namespace

Status ForEachArchiveMember(
    const std::string& path,
    const std::function<Status(const std::string&, std::unique_ptr<ByteSource>)>& visit,
    const std::function<void(const SkippedMember&)>& skipped) {
  std::string error;
  const LibArchiveApi* api = LoadLibArchive(&error);
  if (!api) return Unsupported(path + ": " + error);
  const LibArchiveApi& la = *api;
  ArchivePtr a = OpenArchive(la, path);
  if (!a) return InvalidInput(path + ": cannot open as an archive");
  return ReadMembers(la, a.get(), path, nullptr, visit, skipped);
}

Status ForEachArchiveMember(
    const ArchiveStream& stream,
    const std::function<Status(const std::string&, std::unique_ptr<ByteSource>)>& visit,
    const std::function<void(const SkippedMember&)>& skipped) {
  std::string error;
  const LibArchiveApi* api = LoadLibArchive(&error);
  if (!api) return Unsupported(stream.name + ": " + error);
  const LibArchiveApi& la = *api;
  ArchiveStreamClient client(stream);
  ArchivePtr a = NewReader(la);
  la.archive_read_set_seek_callback(a.get(), &ArchiveStreamClient::SeekCallback);
  if (la.archive_read_open(a.get(), &client, nullptr, &ArchiveStreamClient::ReadCallback,
                           nullptr) != ARCHIVE_OK)
    return StreamError(la, a.get(), client, stream.name, "cannot open as an archive");
  return ReadMembers(la, a.get(), stream.name, &client, visit, skipped);
}

}  // namespace th
