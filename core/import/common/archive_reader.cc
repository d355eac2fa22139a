#include "core/import/common/archive_reader.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>

#include "core/graph/text_escape.h"

namespace th {

namespace {

struct ArchiveCloser {
  void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveCloser>;

// libarchive's message for the last error; it has none for some damaged
// headers (found by fuzzing: a null string made the error path crash).
std::string ErrorText(archive* a) {
  const char* text = archive_error_string(a);
  return text ? PrintableBytes(text) : "unreadable archive data (libarchive gives no reason)";
}

ArchivePtr OpenArchive(const std::string& path) {
  ArchivePtr a(archive_read_new());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_xz(a.get());
  archive_read_support_filter_zstd(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_gnutar(a.get());
  archive_read_support_format_zip(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 20) != ARCHIVE_OK) return nullptr;
  return a;
}

class MemberSource final : public ByteSource {
 public:
  MemberSource(archive* a, std::string name, uint64_t size)
      : a_(a), name_(std::move(name)), size_(size) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    la_ssize_t got = archive_read_data(a_, buf, n);
    if (got < 0) {
      return InvalidInput(name_ + ": cannot read archive member at offset " +
                          std::to_string(read_) + ": " + ErrorText(a_));
    }
    read_ += static_cast<uint64_t>(got);
    return static_cast<size_t>(got);
  }
  const std::string& name() const override { return name_; }
  uint64_t stored_bytes_read() const override { return read_; }
  uint64_t stored_size() const override { return size_; }

 private:
  archive* a_;
  std::string name_;
  uint64_t size_;
  uint64_t read_ = 0;
};

}  // namespace

bool HasArchiveName(std::string_view path) {
  return path.ends_with(".tar") || path.ends_with(".tar.gz") || path.ends_with(".tgz") ||
         path.ends_with(".zip");
}

bool IsArchive(const std::string& path) {
  ArchivePtr a = OpenArchive(path);
  if (!a) return false;
  archive_entry* entry = nullptr;
  return archive_read_next_header(a.get(), &entry) == ARCHIVE_OK;
}

Status ForEachArchiveMember(
    const std::string& path,
    const std::function<Status(const std::string&, std::unique_ptr<ByteSource>)>& visit,
    const std::function<void(const SkippedMember&)>& skipped) {
  ArchivePtr a = OpenArchive(path);
  if (!a) return InvalidInput(path + ": cannot open as an archive");
  while (true) {
    archive_entry* entry = nullptr;
    int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) return Ok();
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
      return InvalidInput(path + ": broken archive: " + ErrorText(a.get()));
    }
    const char* name = archive_entry_pathname(entry);
    std::string member = name ? name : "";
    const char* hard_link = archive_entry_hardlink(entry);
    auto type = archive_entry_filetype(entry);
    if (hard_link || type != AE_IFREG) {
      if (type == AE_IFDIR && !hard_link) continue;
      if (!skipped) continue;
      SkippedMember s{member, "", hard_link != nullptr};
      const char* target = archive_entry_symlink(entry);
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
    auto source = std::make_unique<MemberSource>(a.get(), path + ":" + member,
                                                 static_cast<uint64_t>(archive_entry_size(entry)));
    TH_RETURN_IF_ERROR(visit(member, std::move(source)));
  }
}

}  // namespace th
