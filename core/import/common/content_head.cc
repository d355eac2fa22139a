#include "core/import/common/content_head.h"

#include "core/graph/text_escape.h"

namespace th {

namespace {

// Yields the error a read of `source` met, again, for every read.
class FailedSource final : public ByteSource {
 public:
  FailedSource(std::unique_ptr<ByteSource> source, Status error)
      : source_(std::move(source)), error_(std::move(error)) {}
  StatusOr<size_t> Read(char*, size_t) override { return error_; }
  const std::string& name() const override { return source_->name(); }
  uint64_t stored_bytes_read() const override { return source_->stored_bytes_read(); }
  uint64_t stored_size() const override { return source_->stored_size(); }

 private:
  std::unique_ptr<ByteSource> source_;
  Status error_;
};

// Reads up to kContentHeadBytes from `source` into *out. A read error ends
// the head where it happened (damaged; *error receives it when given).
void ReadHead(ByteSource& source, std::string* out, bool* complete, bool* damaged,
              Status* error = nullptr) {
  out->resize(kContentHeadBytes);
  size_t have = 0;
  *complete = false;
  while (have < out->size()) {
    auto got = source.Read(out->data() + have, out->size() - have);
    if (!got.ok()) {
      *damaged = true;
      if (error) *error = got.status();
      break;
    }
    if (*got == 0) {
      *complete = true;
      break;
    }
    have += *got;
  }
  out->resize(have);
}

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

}  // namespace

StatusOr<ContentHead> ReadContentHead(const std::string& path) {
  ContentHead head;
  {
    auto raw = OpenFileSource(path);
    if (!raw.ok()) return raw.status();
    bool complete = false, damaged = false;
    ReadHead(**raw, &head.stored, &complete, &damaged);
    if (damaged) return IoError(path + ": cannot read");
    head.gzip = IsGzip(head.stored);
    if (!head.gzip) {
      head.decoded = head.stored;
      head.complete = complete;
      return head;
    }
  }
  auto raw = OpenFileSource(path);
  if (!raw.ok()) return raw.status();
  auto decoded = OpenDecoded(std::move(*raw), nullptr, /*keep_truncated=*/true);
  if (!decoded.ok()) {
    head.damaged = true;
    return head;
  }
  ReadHead(**decoded, &head.decoded, &head.complete, &head.damaged);
  return head;
}

StatusOr<PeekedSource> PeekHead(std::unique_ptr<ByteSource> decoded) {
  PeekedSource peeked;
  Status error;
  ReadHead(*decoded, &peeked.head.decoded, &peeked.head.complete, &peeked.head.damaged, &error);
  peeked.head.stored = peeked.head.decoded;
  // A read error is met again by whoever reads the source, after the head.
  if (peeked.head.damaged) decoded = std::make_unique<FailedSource>(std::move(decoded), error);
  peeked.source = MakePrefixedSource(peeked.head.decoded, std::move(decoded));
  return peeked;
}

std::string DescribeHead(const ContentHead& head) {
  const std::string& bytes = head.decoded;
  if (bytes.empty()) return head.gzip ? "gzip data that decodes to nothing" : "empty";
  std::string shown = AsciiBytes(std::string_view(bytes).substr(0, 16));
  std::string what = head.gzip ? "gzip data whose content starts with '" : "starts with '";
  return what + shown + "'" + (bytes.size() > 16 ? "..." : "");
}

bool HasArchiveMagic(const ContentHead& head) {
  std::string_view stored = head.stored;
  if (stored.size() >= 4 && stored.substr(0, 2) == "PK" &&
      (stored.substr(2, 2) == "\x03\x04" || stored.substr(2, 2) == "\x05\x06"))
    return true;
  std::string_view decoded = head.decoded;
  return decoded.size() >= 262 && decoded.substr(257, 5) == "ustar";
}

}  // namespace th
