// Archives of rank files (.tar, .tar.gz, .zip): member iteration with
// libarchive, skipped members (links, FIFOs, devices), each member read to
// its end through the gzip decoder as the loader does.
#include <string>

#include "core/import/common/archive_reader.h"
#include "core/import/common/byte_source.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = th::fuzz::WriteScratch(
      "ranks.tar.gz", std::string_view(reinterpret_cast<const char*>(data), size));
  uint64_t total = 0;
  th::Status s = th::ForEachArchiveMember(
      path,
      [&](const std::string&, std::unique_ptr<th::ByteSource> src) -> th::Status {
        auto text = th::OpenDecoded(std::move(src), nullptr, /*keep_truncated=*/true);
        if (!text.ok()) return th::Ok();  // a member that is not readable text
        char buf[1 << 14];
        while (true) {
          auto got = (*text)->Read(buf, sizeof buf);
          if (!got.ok()) return got.status();
          if (*got == 0) break;
          total += *got;
          if (total > (uint64_t{64} << 20)) return th::Ok();  // a bomb: enough read
        }
        return th::Ok();
      },
      [](const th::SkippedMember& m) { th::fuzz::Require(!m.why.empty(), "skip without a reason"); });
  if (!s.ok())
    th::fuzz::Require(s.message().find("ranks.tar.gz") != std::string::npos,
                      "error does not name the archive: " + s.message());
  return 0;
}
