// Archives read from a stream (ForEachArchiveMember over an ArchiveStream,
// served by ArchiveStreamClient) against the same archives read from their
// files: same members, same bytes, same skipped members; a zip read through
// its central directory without reopening the stream per member; damage
// named with the archive and the byte offset.
#include "core/import/common/archive_stream_client.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/import/common/archive_reader.h"
#include "tests/support/archive_writer.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

// Text that deflates to about half its size, so that a member spans
// several 1 MiB blocks of the archive.
std::string MemberText(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, ' ');
  for (auto& c : s) c = "0123456789abcdef{}\":, \n"[rng() % 23];
  return s;
}

using testing::ArchiveKind;
using testing::ArchiveMember;

// Five ranks of 1.5 MiB, a symbolic link and a note.
std::vector<ArchiveMember> Members() {
  std::vector<ArchiveMember> out;
  for (unsigned r = 0; r < 5; ++r)
    out.push_back({"job/rank" + std::to_string(r) + ".json", MemberText(3 << 19, r + 1), ""});
  out.insert(out.begin() + 1, ArchiveMember{"job/latest.json", "", "rank0.json"});
  out.push_back({"job/notes.txt", "notes", ""});
  return out;
}

// Writes `members` under the temp dir as a .tar.gz (`zip` false) or a deflated .zip.
std::string WriteArchive(const std::string& name, const std::vector<ArchiveMember>& members,
                         bool zip) {
  std::string path = testing::TempDir() + "/" + name;
  testing::WriteArchive(path, members, zip ? ArchiveKind::kZip : ArchiveKind::kTarGz);
  return path;
}

// An archive's bytes as a stream; counts the (re)openings and the bytes
// handed out.
struct CountingStream {
  std::string bytes;
  int opens = 0;
  uint64_t served = 0;
  ArchiveStream Stream(const std::string& name) {
    return ArchiveStream{name, bytes.size(), [this, name](uint64_t offset) {
                           ++opens;
                           served += bytes.size() - offset;
                           return StatusOr<std::unique_ptr<ByteSource>>(
                               MakeMemorySource(name, bytes.substr(offset)));
                         }};
  }
};

struct Read {
  std::vector<std::pair<std::string, std::string>> members;  // source name, bytes
  std::vector<std::string> skipped;
  Status status;
};

template <typename Input>
Read ReadArchive(const Input& input) {
  Read out;
  out.status = ForEachArchiveMember(
      input,
      [&](const std::string&, std::unique_ptr<ByteSource> src) -> Status {
        auto bytes = ReadAll(*src);
        if (!bytes.ok()) return bytes.status();
        out.members.emplace_back(src->name(), std::move(*bytes));
        return Ok();
      },
      [&](const SkippedMember& m) { out.skipped.push_back(m.member + " (" + m.why + ")"); });
  return out;
}

void ExpectSameAsFile(bool zip) {
  const std::vector<ArchiveMember> members = Members();
  const std::string path = WriteArchive(zip ? "ranks.zip" : "ranks.tar.gz", members, zip);
  Read local = ReadArchive(path);
  ASSERT_TRUE(local.status.ok()) << local.status.message();
  CountingStream stream{testing::ReadFile(path)};
  Read streamed = ReadArchive(stream.Stream(path));
  ASSERT_TRUE(streamed.status.ok()) << streamed.status.message();
  EXPECT_EQ(streamed.members, local.members);
  EXPECT_EQ(streamed.skipped, local.skipped);
  ASSERT_EQ(local.members.size(), 6u);
  for (size_t k = 0, m = 0; k < members.size(); ++k) {
    if (!members[k].link_target.empty()) continue;
    EXPECT_EQ(local.members[m].first, path + ":" + members[k].name);
    EXPECT_EQ(local.members[m].second, members[k].body);
    ++m;
  }
  EXPECT_EQ(local.skipped,
            std::vector<std::string>{"job/latest.json (symbolic link to rank0.json)"});
  // A tar is read front to back, in one opening; a zip reads its central
  // directory at the end and comes back, not once per member.
  if (zip) {
    EXPECT_GE(stream.opens, 2) << "the central directory was not read";
    EXPECT_LE(stream.opens, 3);
    EXPECT_LE(stream.served, 2 * stream.bytes.size());
  } else {
    EXPECT_EQ(stream.opens, 1);
    EXPECT_EQ(stream.served, stream.bytes.size());
  }
}

TEST(ArchiveStream, TarGzReadsAsItsFile) { ExpectSameAsFile(false); }

TEST(ArchiveStream, ZipReadsAsItsFileThroughItsCentralDirectory) { ExpectSameAsFile(true); }

TEST(ArchiveStream, TruncatedArchiveNamesTheArchiveAndOffset) {
  for (bool zip : {false, true}) {
    SCOPED_TRACE(zip ? "zip" : "tar.gz");
    const std::string path = WriteArchive(zip ? "cut.zip" : "cut.tar.gz", Members(), zip);
    const std::string whole = testing::ReadFile(path);
    CountingStream stream{whole.substr(0, whole.size() * 2 / 3)};
    Read streamed = ReadArchive(stream.Stream("s3://b/cut"));
    ASSERT_FALSE(streamed.status.ok());
    const std::string& message = streamed.status.message();
    EXPECT_EQ(message.rfind("s3://b/cut", 0), 0u) << message;
    EXPECT_NE(message.find("at byte offset "), std::string::npos) << message;
  }
}

// Bytes, then a read error naming the offset, as a remote read that ran
// out of retries fails.
class FailingSource final : public ByteSource {
 public:
  FailingSource(std::string name, std::string bytes, uint64_t offset)
      : name_(std::move(name)), bytes_(std::move(bytes)), offset_(offset) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    if (at_ == bytes_.size())
      return IoError(name_ + ": read failed at byte offset " + std::to_string(offset_ + at_));
    size_t k = std::min(n, bytes_.size() - at_);
    std::copy_n(bytes_.data() + at_, k, buf);
    at_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }
  uint64_t stored_bytes_read() const override { return offset_ + at_; }

 private:
  std::string name_, bytes_;
  uint64_t offset_;
  size_t at_ = 0;
};

TEST(ArchiveStream, AFailedReadIsTheStreamsError) {
  const std::string path = WriteArchive("failing.tar.gz", Members(), false);
  const std::string whole = testing::ReadFile(path);
  const std::string name = "s3://b/failing.tar.gz";
  const uint64_t good = 1 << 20;  // the stream fails past its first MiB
  ArchiveStream stream{
      name, whole.size(), [&](uint64_t offset) {
        return StatusOr<std::unique_ptr<ByteSource>>(
            std::make_unique<FailingSource>(name, whole.substr(offset, good - offset), offset));
      }};
  Read streamed = ReadArchive(stream);
  ASSERT_FALSE(streamed.status.ok());
  EXPECT_EQ(streamed.status.code(), StatusCode::kIoError);
  const std::string& message = streamed.status.message();
  EXPECT_EQ(message.rfind(name + ":job/rank", 0), 0u) << message;
  EXPECT_TRUE(
      message.ends_with(": " + name + ": read failed at byte offset " + std::to_string(good)))
      << message;
  // What came before the failure came whole.
  ASSERT_LT(streamed.members.size(), 5u);
  for (size_t k = 0; k < streamed.members.size(); ++k)
    EXPECT_EQ(streamed.members[k].second.size(), size_t{3} << 19);
}

}  // namespace
}  // namespace th
