#include "core/import/xspace/xspace_format.h"

#include <algorithm>
#include <filesystem>

#include "core/import/remote/object_url.h"
#include "core/import/xla_join.h"

namespace th::xspace {

namespace {

constexpr std::string_view kSuffix = ".xplane.pb";

// Reads a varint at *p; false when it does not end before `end`.
bool Varint(const unsigned char** p, const unsigned char* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    unsigned char b = *(*p)++;
    v |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

bool Printable(std::string_view s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return false;
  return true;
}

// The start of an XPlane's bytes (`plane`, possibly cut at the head's end).
bool LooksLikePlane(std::string_view plane) {
  if (plane.empty()) return true;  // an empty plane
  const auto* p = reinterpret_cast<const unsigned char*>(plane.data());
  const auto* end = p + plane.size();
  uint64_t tag = 0, value = 0;
  if (!Varint(&p, end, &tag)) return false;
  const uint64_t field = tag >> 3, wire = tag & 7;
  if (field == 1) {  // id, then usually the name
    if (wire != 0 || !Varint(&p, end, &value)) return false;
    if (p == end) return true;
    if (!Varint(&p, end, &tag)) return false;
    if (tag >> 3 < 2 || tag >> 3 > 6 || (tag & 7) != 2) return false;
    if (tag >> 3 != 2) return true;
  } else if (field < 2 || field > 6 || wire != 2) {
    return false;
  } else if (field != 2) {
    return true;
  }
  // The plane's name ("/device:GPU:0", "/host:CPU", ...).
  if (!Varint(&p, end, &value)) return false;
  std::string_view name(reinterpret_cast<const char*>(p),
                        std::min<uint64_t>(value, static_cast<uint64_t>(end - p)));
  return Printable(name);
}

class XSpaceImporter final : public Importer {
 public:
  std::string_view name() const override { return "xspace"; }
  std::vector<std::string_view> name_hints() const override { return {kSuffix}; }
  bool Sniff(const ContentHead& head) const override {
    return LooksLikeXSpace(head.decoded, head.complete);
  }

  StatusOr<TraceList> ImportFile(const std::string& path,
                                 const kineto::ImportOptions& options) const override {
    (void)options;
    std::vector<EmbeddedHloProto> hlo_protos;
    StatusOr<std::unique_ptr<Trace>> trace = Internal(path + ": not read");
    auto head = ReadContentHead(path);
    if (head.ok() && head->gzip) {  // decoded in memory; a plain file is mapped
      auto raw = OpenFileSource(path);
      if (!raw.ok()) return raw.status();
      uint64_t stored = (*raw)->stored_size();
      auto decoded = OpenDecoded(std::move(*raw));
      if (!decoded.ok()) return decoded.status();
      auto bytes = ReadAll(**decoded);
      if (!bytes.ok()) return bytes.status();
      trace = ImportXSpaceBytes(*bytes, path, stored, &hlo_protos);
    } else {
      trace = ImportXSpaceFile(path, &hlo_protos);
    }
    if (!trace.ok()) return trace.status();
    JoinXla(trace->get(), hlo_protos, /*with_side_files=*/true);
    TraceList traces;
    traces.push_back(std::move(*trace));
    return traces;
  }

  StatusOr<TraceList> ImportStream(std::unique_ptr<ByteSource> decoded,
                                   const kineto::ImportOptions& options) const override {
    (void)options;
    auto bytes = ReadAll(*decoded);
    if (!bytes.ok()) return bytes.status();
    std::vector<EmbeddedHloProto> hlo_protos;
    auto trace =
        ImportXSpaceBytes(*bytes, decoded->name(), decoded->stored_bytes_read(), &hlo_protos);
    if (!trace.ok()) return trace.status();
    // An archive member has no folder of side files; a remote object has its prefix.
    JoinXla(trace->get(), hlo_protos, remote::IsRemoteObjectName(decoded->name()));
    TraceList traces;
    traces.push_back(std::move(*trace));
    return traces;
  }

  // Stored bytes per event in the captures of benchmarks/RESULTS.md.
  uint64_t EstimatedEvents(uint64_t content_bytes) const override { return content_bytes / 30; }

  bool DirectoryIsOneCapture() const override { return true; }

  // JAX's JSON copies of the capture: `<host>.trace.json[.gz]` and, on
  // request, perfetto_trace.json[.gz] in the same directory.
  std::vector<std::string> SameCaptureCopies(const std::string& path) const override {
    std::string_view p = path;
    if (p.size() < kSuffix.size() || p.substr(p.size() - kSuffix.size()) != kSuffix) return {};
    std::string stem(p.substr(0, p.size() - kSuffix.size()));
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    return {stem + ".trace.json.gz", stem + ".trace.json",
            (dir / "perfetto_trace.json.gz").string(), (dir / "perfetto_trace.json").string()};
  }
};

}  // namespace

bool LooksLikeXSpace(std::string_view head, bool complete) {
  const auto* p = reinterpret_cast<const unsigned char*>(head.data());
  const auto* end = p + head.size();
  if (p == end) return false;  // empty: no capture
  bool plane_seen = false;
  while (p < end) {
    uint64_t tag = 0, length = 0;
    if (!Varint(&p, end, &tag)) return !complete && plane_seen;
    const uint64_t field = tag >> 3;
    if (field < 1 || field > 4 || (tag & 7) != 2) return false;
    if (!Varint(&p, end, &length)) return !complete && plane_seen;
    const uint64_t left = static_cast<uint64_t>(end - p);
    if (complete && length > left) return false;
    std::string_view body(reinterpret_cast<const char*>(p), std::min(length, left));
    if (field == 1) {
      if (!LooksLikePlane(body)) return false;
      plane_seen = true;
    } else if (!Printable(body)) {
      return false;  // errors, warnings, hostnames are text
    }
    if (length >= left) return true;  // the head ends inside this field
    p += length;
  }
  return true;
}

std::unique_ptr<Importer> MakeXSpaceImporter() { return std::make_unique<XSpaceImporter>(); }

}  // namespace th::xspace
