#include "core/redact/archive_writer.h"

#include <ctime>
#include <fstream>

#include "core/import/common/libarchive_module.h"

namespace th::redact {

namespace {

struct Client {
  ByteSink* out;
  Status status;
};

la_ssize_t WriteCallback(archive*, void* data, const void* buf, size_t n) {
  auto* c = static_cast<Client*>(data);
  if (!c->status.ok()) return -1;
  c->status = c->out->Write(std::string_view(static_cast<const char*>(buf), n));
  return c->status.ok() ? static_cast<la_ssize_t>(n) : -1;
}

}  // namespace

ArchiveKind ArchiveKindOf(const std::string& path) {
  if (path.ends_with(".tar.gz") || path.ends_with(".tgz")) return ArchiveKind::kTarGz;
  if (path.ends_with(".zip")) return ArchiveKind::kZip;
  if (path.ends_with(".tar")) return ArchiveKind::kTar;
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {0, 0};
  in.read(magic, 2);
  if (static_cast<uint8_t>(magic[0]) == 0x1f && static_cast<uint8_t>(magic[1]) == 0x8b)
    return ArchiveKind::kTarGz;
  if (magic[0] == 'P' && magic[1] == 'K') return ArchiveKind::kZip;
  return ArchiveKind::kTar;
}

StatusOr<std::unique_ptr<ArchiveWriter>> ArchiveWriter::Open(ArchiveKind kind, ByteSink* out) {
  std::string error;
  const LibArchiveApi* api = LoadLibArchive(&error);
  if (!api) return Unsupported(error);
  const LibArchiveApi& la = *api;
  archive* a = la.archive_write_new();
  if (!a) return Internal("libarchive: cannot allocate a writer");
  int r = ARCHIVE_OK;
  switch (kind) {
    case ArchiveKind::kTar:
      r = la.archive_write_set_format_pax_restricted(a);
      break;
    case ArchiveKind::kTarGz:
      r = la.archive_write_set_format_pax_restricted(a);
      if (r == ARCHIVE_OK) r = la.archive_write_add_filter_gzip(a);
      break;
    case ArchiveKind::kZip:
      r = la.archive_write_set_format_zip(a);
      break;
  }
  // Whole blocks as the format needs, no padding of the last block beyond it.
  if (r == ARCHIVE_OK && kind != ArchiveKind::kZip)
    r = la.archive_write_set_bytes_in_last_block(a, 1);
  if (r != ARCHIVE_OK) {
    std::string why = la.archive_error_string(a) ? la.archive_error_string(a) : "unknown error";
    la.archive_write_free(a);
    return Internal("libarchive: cannot set up the archive format: " + why);
  }
  auto w = std::unique_ptr<ArchiveWriter>(new ArchiveWriter(la, a, out));
  auto* client = new Client{out, Ok()};
  la.archive_write_set_bytes_per_block(a, 10240);
  if (la.archive_write_open2(a, client, nullptr, WriteCallback, nullptr,
                             [](archive*, void* data) -> int {
                               delete static_cast<Client*>(data);
                               return ARCHIVE_OK;
                             }) != ARCHIVE_OK)
    return w->Error("cannot start the archive");
  return w;
}

ArchiveWriter::~ArchiveWriter() {
  if (a_) la_.archive_write_free(a_);
}

Status ArchiveWriter::Error(const std::string& what) const {
  const char* why = la_.archive_error_string(a_);
  return IoError("libarchive: " + what + (why ? std::string(": ") + why : std::string()));
}

Status ArchiveWriter::Add(const std::string& name, uint64_t size, TempFileSink& content) {
  archive_entry* e = la_.archive_entry_new();
  la_.archive_entry_set_pathname(e, name.c_str());
  la_.archive_entry_set_size(e, static_cast<la_int64_t>(size));
  la_.archive_entry_set_filetype(e, AE_IFREG);
  la_.archive_entry_set_perm(e, 0644);
  la_.archive_entry_set_mtime(e, std::time(nullptr), 0);
  int r = la_.archive_write_header(a_, e);
  la_.archive_entry_free(e);
  if (r != ARCHIVE_OK) return Error("cannot write the header of a member");
  uint64_t written = 0;
  TH_RETURN_IF_ERROR(content.ReadBack([&](std::string_view piece) -> Status {
    la_ssize_t n = la_.archive_write_data(a_, piece.data(), piece.size());
    if (n < 0 || static_cast<size_t>(n) != piece.size()) return Error("cannot write a member");
    written += piece.size();
    return Ok();
  }));
  if (written != size) return Internal("archive member changed size while it was added");
  if (la_.archive_write_finish_entry(a_) != ARCHIVE_OK) return Error("cannot finish a member");
  return Ok();
}

Status ArchiveWriter::Close() {
  if (closed_) return Ok();
  closed_ = true;
  if (la_.archive_write_close(a_) != ARCHIVE_OK) return Error("cannot finish the archive");
  return Ok();
}

}  // namespace th::redact
