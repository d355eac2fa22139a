#include "core/import/importer_registry.h"

#include <cstdio>
#include <filesystem>

#include "core/graph/text_escape.h"
#include "core/import/common/archive_reader.h"

namespace th {

namespace {

bool HasHint(const Importer& importer, std::string_view name) {
  for (std::string_view hint : importer.name_hints())
    if (name.ends_with(hint)) return true;
  return false;
}

// The content size a gzip file declares in its trailer (ISIZE, mod 2^32),
// when it is at least the stored size and at most 64 x it; else 8 x.
uint64_t GzipContentBytes(const std::string& path, uint64_t stored) {
  uint64_t guess = stored * 8;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return guess;
  unsigned char tail[4];
  bool ok =
      stored >= 18 && std::fseek(file, -4, SEEK_END) == 0 && std::fread(tail, 1, 4, file) == 4;
  std::fclose(file);
  if (!ok) return guess;
  uint64_t isize = uint64_t{tail[0]} | uint64_t{tail[1]} << 8 | uint64_t{tail[2]} << 16 |
                   uint64_t{tail[3]} << 24;
  if (isize < stored || isize > stored * 64) return guess;
  return isize;
}

}  // namespace

Status ImporterRegistry::Register(std::unique_ptr<Importer> importer) {
  if (FindByFormat(importer->name()))
    return InvalidInput("trace format '" + std::string(importer->name()) + "' registered twice");
  importers_.push_back(std::move(importer));
  return Ok();
}

const Importer* ImporterRegistry::Sniffed(std::string_view name, const ContentHead& head) const {
  // Formats the name hints at are asked first: on content two formats could
  // both claim, the name breaks the tie.
  for (const auto& importer : importers_)
    if (HasHint(*importer, name) && importer->Sniff(head)) return importer.get();
  for (const auto& importer : importers_)
    if (!HasHint(*importer, name) && importer->Sniff(head)) return importer.get();
  return nullptr;
}

const Importer* ImporterRegistry::Find(std::string_view name, const ContentHead& head) const {
  const Importer* sniffed = Sniffed(name, head);
  return sniffed ? sniffed : FindByName(name);
}

const Importer* ImporterRegistry::FindByName(std::string_view name) const {
  for (const auto& importer : importers_)
    if (HasHint(*importer, name)) return importer.get();
  return nullptr;
}

const Importer* ImporterRegistry::FindByFormat(std::string_view format) const {
  for (const auto& importer : importers_)
    if (importer->name() == format) return importer.get();
  return nullptr;
}

Detection ImporterRegistry::Detect(const std::string& path) const {
  Detection d;
  auto head = ReadContentHead(path);
  if (head.ok()) {
    d.head = std::move(*head);
    if (HasArchiveMagic(d.head)) {
      d.kind = Detection::Kind::kArchive;
      return d;
    }
    if ((d.importer = Sniffed(path, d.head))) {
      d.kind = Detection::Kind::kFormat;
      return d;
    }
    if (IsArchive(path)) {
      d.kind = Detection::Kind::kArchive;
      return d;
    }
  } else {
    d.error = head.status();
  }
  // No content claimed: the name decides, and the format's importer (or the
  // archive reader) says what is wrong with the file.
  if ((d.importer = FindByName(path))) {
    d.kind = Detection::Kind::kFormat;
  } else if (NamedLikeArchive(path)) {
    d.kind = Detection::Kind::kArchive;
  }
  return d;
}

bool ImporterRegistry::NamedLikeArchive(std::string_view name) const {
  return HasArchiveName(name);
}

bool ImporterRegistry::NamedLikeTrace(std::string_view name) const {
  return FindByName(name) != nullptr || NamedLikeArchive(name);
}

bool ImporterRegistry::IsTraceCandidate(const std::string& path) const {
  if (NamedLikeTrace(path)) return true;
  return Detect(path).kind != Detection::Kind::kUnknown;
}

std::string ImporterRegistry::NameStem(std::string_view format, std::string_view file_name) const {
  const Importer* importer = FindByFormat(format);
  if (!importer) return "";
  for (std::string_view hint : importer->name_hints())
    if (file_name.size() > hint.size() && file_name.ends_with(hint))
      return std::string(file_name.substr(0, file_name.size() - hint.size()));
  return "";
}

uint64_t ImporterRegistry::EstimatedEvents(const std::string& path, uint64_t bytes) const {
  Detection d = Detect(path);
  if (d.kind == Detection::Kind::kFormat) {
    uint64_t content = d.head.gzip ? GzipContentBytes(path, bytes) : bytes;
    return d.importer->EstimatedEvents(content);
  }
  if (importers_.empty()) return 0;
  return importers_.front()->EstimatedEvents(bytes * 8);
}

Status ImporterRegistry::Unrecognised(const std::string& name, const ContentHead& head) {
  if (name.ends_with(".hlo_proto.pb"))  // the side files XSpace captures are read with
    return Unsupported(PrintableBytes(name) +
                       ": an HLO module proto (a compiled XLA program), not a trace; tracehound "
                       "reads it with the XSpace capture it was written beside: pass that "
                       ".xplane.pb or its folder");
  return Unsupported(PrintableBytes(name) +
                     ": not a trace format tracehound reads (Kineto/Chrome JSON, XProf "
                     "trace.json.gz, XSpace .xplane.pb, or a tar/zip of them); the content " +
                     DescribeHead(head));
}

ImporterRegistry& Registry() {
  static ImporterRegistry* registry = [] {
    auto* r = new ImporterRegistry();
    RegisterBuiltinFormats(r);
    return r;
  }();
  return *registry;
}

}  // namespace th
