#include "tests/support/archive_writer.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

namespace th::testing {

void WriteArchive(const std::string& path, const std::vector<ArchiveMember>& members,
                  ArchiveKind kind) {
  archive* a = archive_write_new();
  if (kind == ArchiveKind::kZip) {
    archive_write_set_format_zip(a);
  } else {
    archive_write_add_filter_gzip(a);
    archive_write_set_format_pax_restricted(a);
  }
  if (archive_write_open_filename(a, path.c_str()) != ARCHIVE_OK) {
    ADD_FAILURE() << path << ": " << archive_error_string(a);
    archive_write_free(a);
    return;
  }
  for (const ArchiveMember& m : members) {
    const bool link = !m.link_target.empty();
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.name.c_str());
    archive_entry_set_perm(e, 0644);
    archive_entry_set_filetype(e, link ? AE_IFLNK : AE_IFREG);
    if (link) archive_entry_set_symlink(e, m.link_target.c_str());
    archive_entry_set_size(e, link ? 0 : static_cast<la_int64_t>(m.body.size()));
    if (archive_write_header(a, e) != ARCHIVE_OK)
      ADD_FAILURE() << path << ": " << m.name << ": " << archive_error_string(a);
    else if (!link && !m.body.empty() &&
             archive_write_data(a, m.body.data(), m.body.size()) !=
                 static_cast<la_ssize_t>(m.body.size()))
      ADD_FAILURE() << path << ": " << m.name << ": " << archive_error_string(a);
    archive_entry_free(e);
  }
  if (archive_write_close(a) != ARCHIVE_OK)
    ADD_FAILURE() << path << ": " << archive_error_string(a);
  archive_write_free(a);
}

}  // namespace th::testing
