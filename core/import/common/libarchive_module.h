// The archive module: the libarchive functions tracehound calls (reading rank
// archives here, writing redacted ones in core/redact), handed over as one
// table so that only a process that opens an archive maps libarchive (and its
// xml2, ICU, lzma, zstd, lz4 and bzip2 libraries).
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <string>

#define TH_LIBARCHIVE_FUNCTIONS(X)           \
  X(archive_error_string)                    \
  X(archive_read_new)                        \
  X(archive_read_free)                       \
  X(archive_read_support_filter_gzip)        \
  X(archive_read_support_filter_xz)          \
  X(archive_read_support_filter_zstd)        \
  X(archive_read_support_format_tar)         \
  X(archive_read_support_format_gnutar)      \
  X(archive_read_support_format_zip)         \
  X(archive_read_open_filename)              \
  X(archive_read_open)                       \
  X(archive_read_set_seek_callback)          \
  X(archive_read_next_header)                \
  X(archive_read_data)                       \
  X(archive_entry_pathname)                  \
  X(archive_entry_hardlink)                  \
  X(archive_entry_symlink)                   \
  X(archive_entry_filetype)                  \
  X(archive_entry_size)                      \
  X(archive_entry_new)                       \
  X(archive_entry_free)                      \
  X(archive_entry_set_pathname)              \
  X(archive_entry_set_size)                  \
  X(archive_entry_set_filetype)              \
  X(archive_entry_set_perm)                  \
  X(archive_entry_set_mtime)                 \
  X(archive_write_new)                       \
  X(archive_write_free)                      \
  X(archive_write_set_format_pax_restricted) \
  X(archive_write_set_format_zip)            \
  X(archive_write_add_filter_gzip)           \
  X(archive_write_set_bytes_in_last_block)   \
  X(archive_write_set_bytes_per_block)       \
  X(archive_write_open2)                     \
  X(archive_write_header)                    \
  X(archive_write_data)                      \
  X(archive_write_finish_entry)              \
  X(archive_write_close)

namespace th {

// One member per function of TH_LIBARCHIVE_FUNCTIONS, named as in libarchive.
struct LibArchiveApi {
#define TH_LIBARCHIVE_MEMBER(name) decltype(&::name) name;
  TH_LIBARCHIVE_FUNCTIONS(TH_LIBARCHIVE_MEMBER)
#undef TH_LIBARCHIVE_MEMBER
};

// Loads the module on first use; nullptr with *error naming the module and
// the library that could not be loaded.
const LibArchiveApi* LoadLibArchive(std::string* error);

}  // namespace th

#define TH_LIBARCHIVE_MODULE_ENTRY "th_libarchive_module"
