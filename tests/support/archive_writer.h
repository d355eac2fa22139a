// Archives that tests write with libarchive: a .tar.gz or a deflated .zip of
// regular members and symbolic links, in the order given.
#pragma once

#include <string>
#include <vector>

namespace th::testing {

// A regular member holding `body`, or, when `link_target` is set, a symbolic
// link to it (its body is then ignored).
struct ArchiveMember {
  std::string name;
  std::string body;
  std::string link_target;
};

enum class ArchiveKind { kTarGz, kZip };

// Writes `members` to `path`; a libarchive refusal is a test failure
// (ADD_FAILURE) naming the path and member.
void WriteArchive(const std::string& path, const std::vector<ArchiveMember>& members,
                  ArchiveKind kind);

}  // namespace th::testing
