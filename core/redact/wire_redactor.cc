#include "core/redact/wire_redactor.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <unordered_map>

#include "core/graph/utf8.h"
#include "core/import/xspace/wire_reader.h"

namespace th::redact {

namespace {

using xspace::kLengthDelimited;
using xspace::WireField;
using xspace::WireReader;

enum class Msg : uint8_t {
  kXSpace,
  kPlane,
  kLine,
  kEvent,
  kStat,
  kEventMetaEntry,
  kEventMeta,
  kStatMetaEntry,
  kStatMeta,
  kHloProto,
  kHloModule,
  kHloComputation,
  kHloInstruction,
  kOpMetadata,
  kStackFrameIndex,
};

const char* MsgName(Msg m) {
  switch (m) {
    case Msg::kXSpace:
      return "XSpace";
    case Msg::kPlane:
      return "XPlane";
    case Msg::kLine:
      return "XLine";
    case Msg::kEvent:
      return "XEvent";
    case Msg::kStat:
      return "XStat";
    case Msg::kEventMetaEntry:
    case Msg::kEventMeta:
      return "XEventMetadata";
    case Msg::kStatMetaEntry:
    case Msg::kStatMeta:
      return "XStatMetadata";
    case Msg::kHloProto:
      return "HloProto";
    case Msg::kHloModule:
      return "HloModuleProto";
    case Msg::kHloComputation:
      return "HloComputationProto";
    case Msg::kHloInstruction:
      return "HloInstructionProto";
    case Msg::kOpMetadata:
      return "OpMetadata";
    case Msg::kStackFrameIndex:
      return "StackFrameIndexProto";
  }
  return "?";
}

enum class Act : uint8_t {
  kCopy,
  kString,        // rules, no key
  kStatValue,     // XStat.str_value: rules with the stat's name as key
  kStatMetaName,  // XStatMetadata.name: rules, the field rule of a ref_value naming it
  kStatBytes,     // XStat.bytes_value: an HloProto under "Hlo Proto"
  kText,          // bytes that are rewritten when they are UTF-8 text
  kMessage,
};

struct FieldAct {
  Act act = Act::kCopy;
  Msg sub = Msg::kXSpace;
};

FieldAct Action(Msg m, uint64_t field) {
  auto msg = [](Msg s) { return FieldAct{Act::kMessage, s}; };
  constexpr FieldAct kStr{Act::kString, Msg::kXSpace};
  switch (m) {
    case Msg::kXSpace:
      if (field == 1) return msg(Msg::kPlane);
      if (field >= 2 && field <= 4) return kStr;
      break;
    case Msg::kPlane:
      if (field == 2) return kStr;
      if (field == 3) return msg(Msg::kLine);
      if (field == 4) return msg(Msg::kEventMetaEntry);
      if (field == 5) return msg(Msg::kStatMetaEntry);
      if (field == 6) return msg(Msg::kStat);
      break;
    case Msg::kLine:
      if (field == 2 || field == 11) return kStr;
      if (field == 4) return msg(Msg::kEvent);
      break;
    case Msg::kEvent:
      if (field == 4) return msg(Msg::kStat);
      break;
    case Msg::kStat:
      if (field == 5) return {Act::kStatValue, Msg::kXSpace};
      if (field == 6) return {Act::kStatBytes, Msg::kHloProto};
      break;
    case Msg::kEventMetaEntry:
      if (field == 2) return msg(Msg::kEventMeta);
      break;
    case Msg::kEventMeta:
      if (field == 2 || field == 4) return kStr;
      if (field == 5) return msg(Msg::kStat);
      break;
    case Msg::kStatMetaEntry:
      if (field == 2) return msg(Msg::kStatMeta);
      break;
    case Msg::kStatMeta:
      if (field == 2) return {Act::kStatMetaName, Msg::kXSpace};
      if (field == 3) return kStr;
      break;
    case Msg::kHloProto:
      if (field == 1) return msg(Msg::kHloModule);
      break;
    case Msg::kHloModule:
      if (field == 1 || field == 2) return kStr;
      if (field == 3) return msg(Msg::kHloComputation);
      if (field == 17) return msg(Msg::kStackFrameIndex);
      break;
    case Msg::kHloComputation:
      if (field == 1) return kStr;
      if (field == 2) return msg(Msg::kHloInstruction);
      break;
    case Msg::kHloInstruction:
      if (field == 1) return kStr;
      if (field == 7) return msg(Msg::kOpMetadata);
      if (field == 43) return {Act::kText, Msg::kXSpace};
      break;
    case Msg::kOpMetadata:
      if (field == 1 || field == 2 || field == 3 || field == 12) return kStr;
      break;
    case Msg::kStackFrameIndex:
      if (field == 1 || field == 2) return kStr;
      break;
  }
  return {};
}

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

class WireRewriter {
 public:
  WireRewriter(std::string_view whole, const std::string& name, StringRedactor* redactor,
               ByteSink* out)
      : whole_(whole), name_(name), redactor_(redactor), rules_(redactor->rules()), out_(out) {}

  Status RedactSpace(bool mapped);
  Status RedactHlo();

 private:
  Status Error(const WireReader& r, Msg m) const {
    return InvalidInput(name_ + ": " + r.error().what + " at byte offset " +
                        std::to_string(r.error().offset) + " (in " + MsgName(m) + ")");
  }
  // Small pieces gather in obuf_; a big one (an unchanged line of a changed
  // plane) goes straight to the sink, never through a growing buffer.
  Status Put(std::string_view bytes) {
    constexpr size_t kBuffer = size_t{1} << 20;
    if (bytes.size() >= kBuffer) {
      TH_RETURN_IF_ERROR(FlushOut());
      return out_->Write(bytes);
    }
    obuf_.append(bytes);
    if (obuf_.size() >= kBuffer) return FlushOut();
    return Ok();
  }
  Status FlushOut() {
    Status s = out_->Write(obuf_);
    obuf_.clear();
    return s;
  }
  // One message: measures (write=false: *size and *changed, sizes_ filled
  // for changed sub-messages) or writes it.
  Status Process(Msg m, std::string_view msg, bool write, uint64_t* size, bool* changed);
  // A string field: the rewritten text when some rule changed it.
  bool RewriteString(Act act, std::string_view text, bool write);
  // Plane context: stat names by metadata id, and field rules reaching stat
  // metadata names through ref_value.
  Status EnterPlane(std::string_view plane);
  Status ScanStats(Msg m, std::string_view msg);

  std::string_view whole_;
  const std::string& name_;
  StringRedactor* redactor_;
  const RuleSet& rules_;
  ByteSink* out_;
  std::string obuf_, replaced_;

  std::unordered_map<const char*, uint64_t> sizes_;  // new sizes of changed sub-messages
  const char* plane_ = nullptr;
  std::unordered_map<int64_t, std::string_view> stat_names_;
  std::unordered_map<int64_t, int> stat_field_;  // stat metadata id -> field rule (by its name)
  std::unordered_map<int64_t, int> ref_field_;   // stat metadata id -> field rule of a ref to it
  // Per message being processed: the XStat's name / the XStatMetadata's id.
  int64_t current_stat_id_ = -1;
};

bool WireRewriter::RewriteString(Act act, std::string_view text, bool write) {
  int field = -1;
  if (act == Act::kStatValue) {
    auto it = stat_field_.find(current_stat_id_);
    if (it != stat_field_.end()) field = it->second;
  } else if (act == Act::kStatMetaName) {
    auto it = ref_field_.find(current_stat_id_);
    if (it != ref_field_.end()) field = it->second;
  } else if (act == Act::kText) {
    size_t bad;
    if (!ValidUtf8(text, &bad)) return false;
  }
  return redactor_->Apply(text, field, &replaced_, write);
}

Status WireRewriter::ScanStats(Msg m, std::string_view msg) {
  WireReader r(whole_, msg);
  WireField f;
  int64_t id = -1;
  int64_t ref = -1;
  while (r.Next(&f)) {
    if (m == Msg::kStat) {
      if (f.number == 1 && f.wire_type == xspace::kVarint) id = static_cast<int64_t>(f.value);
      if (f.number == 7 && f.wire_type == xspace::kVarint) ref = static_cast<int64_t>(f.value);
      continue;
    }
    if (f.wire_type != kLengthDelimited) continue;
    FieldAct a = Action(m, f.number);
    if (a.act != Act::kMessage) continue;
    if (a.sub == Msg::kStat || a.sub == Msg::kLine || a.sub == Msg::kEvent ||
        a.sub == Msg::kEventMetaEntry || a.sub == Msg::kEventMeta)
      TH_RETURN_IF_ERROR(ScanStats(a.sub, f.bytes));
  }
  if (r.failed()) return Error(r, m);
  if (m == Msg::kStat && ref >= 0) {
    auto it = stat_field_.find(id);
    if (it != stat_field_.end()) ref_field_[ref] = it->second;
  }
  return Ok();
}

Status WireRewriter::EnterPlane(std::string_view plane) {
  if (plane_ == plane.data()) return Ok();
  plane_ = plane.data();
  stat_names_.clear();
  stat_field_.clear();
  ref_field_.clear();
  WireReader r(whole_, plane);
  WireField f;
  while (r.Next(&f)) {
    if (f.number != 5 || f.wire_type != kLengthDelimited) continue;
    WireReader entry(whole_, f.bytes);
    WireField e;
    while (entry.Next(&e)) {
      if (e.number != 2 || e.wire_type != kLengthDelimited) continue;
      WireReader meta(whole_, e.bytes);
      WireField m;
      int64_t id = 0;
      std::string_view name;
      while (meta.Next(&m)) {
        if (m.number == 1 && m.wire_type == xspace::kVarint) id = static_cast<int64_t>(m.value);
        if (m.number == 2 && m.wire_type == kLengthDelimited) name = m.bytes;
      }
      if (meta.failed()) return Error(meta, Msg::kStatMeta);
      stat_names_[id] = name;
      int rule = rules_.FieldRuleFor(name);
      if (rule >= 0) stat_field_[id] = rule;
    }
    if (entry.failed()) return Error(entry, Msg::kStatMetaEntry);
  }
  if (r.failed()) return Error(r, Msg::kPlane);
  if (!stat_field_.empty()) TH_RETURN_IF_ERROR(ScanStats(Msg::kPlane, plane));
  return Ok();
}

Status WireRewriter::Process(Msg m, std::string_view msg, bool write, uint64_t* size,
                             bool* changed) {
  if (m == Msg::kPlane) TH_RETURN_IF_ERROR(EnterPlane(msg));
  // The stat's metadata id decides how its value is read (field 1 comes
  // first in practice, but the wire format does not promise it).
  int64_t saved_stat = current_stat_id_;
  if (m == Msg::kStat || m == Msg::kStatMeta) {
    current_stat_id_ = -1;
    WireReader pre(whole_, msg);
    WireField f;
    while (pre.Next(&f))
      if (f.number == 1 && f.wire_type == xspace::kVarint)
        current_stat_id_ = static_cast<int64_t>(f.value);
    if (pre.failed()) return Error(pre, m);
  }
  uint64_t total = 0;
  bool any = false;
  WireReader r(whole_, msg);
  WireField f;
  std::string head;
  while (r.Next(&f)) {
    std::string_view raw = whole_.substr(f.tag_offset, r.offset() - f.tag_offset);
    FieldAct a = f.wire_type == kLengthDelimited ? Action(m, f.number) : FieldAct{};
    if (a.act == Act::kStatBytes) {
      auto it = stat_names_.find(current_stat_id_);
      if (it != stat_names_.end() && it->second == "Hlo Proto") {
        a = {Act::kMessage, Msg::kHloProto};
      } else {
        a = {};
      }
    }
    const uint64_t tag = (f.number << 3) | kLengthDelimited;
    switch (a.act) {
      case Act::kCopy:
      case Act::kStatBytes:  // not "Hlo Proto": replaced by kCopy above
        total += raw.size();
        if (write) TH_RETURN_IF_ERROR(Put(raw));
        break;
      case Act::kString:
      case Act::kStatValue:
      case Act::kStatMetaName:
      case Act::kText: {
        if (!RewriteString(a.act, f.bytes, write)) {
          total += raw.size();
          if (write) TH_RETURN_IF_ERROR(Put(raw));
          break;
        }
        any = true;
        total += VarintSize(tag) + VarintSize(replaced_.size()) + replaced_.size();
        if (write) {
          head.clear();
          AppendVarint(tag, &head);
          AppendVarint(replaced_.size(), &head);
          TH_RETURN_IF_ERROR(Put(head));
          TH_RETURN_IF_ERROR(Put(replaced_));
        }
        break;
      }
      case Act::kMessage: {
        if (!write) {
          uint64_t sub_size = 0;
          bool sub_changed = false;
          TH_RETURN_IF_ERROR(Process(a.sub, f.bytes, false, &sub_size, &sub_changed));
          if (sub_changed) {
            sizes_[f.bytes.data()] = sub_size;
            any = true;
            total += VarintSize(tag) + VarintSize(sub_size) + sub_size;
          } else {
            total += raw.size();
          }
          break;
        }
        auto it = sizes_.find(f.bytes.data());
        if (it == sizes_.end()) {
          TH_RETURN_IF_ERROR(Put(raw));
          break;
        }
        head.clear();
        AppendVarint(tag, &head);
        AppendVarint(it->second, &head);
        TH_RETURN_IF_ERROR(Put(head));
        uint64_t ignored_size;
        bool ignored_changed;
        TH_RETURN_IF_ERROR(Process(a.sub, f.bytes, true, &ignored_size, &ignored_changed));
        break;
      }
    }
  }
  if (r.failed()) return Error(r, m);
  current_stat_id_ = saved_stat;
  *size = total;
  *changed = any;
  return Ok();
}

Status WireRewriter::RedactSpace(bool mapped) {
  // Gives back the pages of [whole_, upto) that are read no more.
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  uintptr_t released = reinterpret_cast<uintptr_t>(whole_.data());
  auto release = [&](const char* upto) {
    if (!mapped) return;
    uintptr_t from = (released + page - 1) & ~(page - 1);
    uintptr_t to = reinterpret_cast<uintptr_t>(upto) & ~(page - 1);
    if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    released = std::max(released, to);
  };
  WireReader r(whole_, whole_);
  WireField f;
  std::string head;
  uint64_t size;
  bool changed;
  while (r.Next(&f)) {
    std::string_view raw = whole_.substr(f.tag_offset, r.offset() - f.tag_offset);
    FieldAct a = f.wire_type == kLengthDelimited ? Action(Msg::kXSpace, f.number) : FieldAct{};
    if (a.act == Act::kMessage) {
      // One plane at a time: measure, write, forget.
      sizes_.clear();
      TH_RETURN_IF_ERROR(Process(Msg::kPlane, f.bytes, false, &size, &changed));
      if (!changed) {
        TH_RETURN_IF_ERROR(Put(raw));
        release(raw.data() + raw.size());
        continue;
      }
      head.clear();
      AppendVarint((f.number << 3) | kLengthDelimited, &head);
      AppendVarint(size, &head);
      TH_RETURN_IF_ERROR(Put(head));
      TH_RETURN_IF_ERROR(Process(Msg::kPlane, f.bytes, true, &size, &changed));
      release(f.bytes.data() + f.bytes.size());
      continue;
    }
    if (a.act == Act::kString && RewriteString(a.act, f.bytes, true)) {
      head.clear();
      AppendVarint((f.number << 3) | kLengthDelimited, &head);
      AppendVarint(replaced_.size(), &head);
      TH_RETURN_IF_ERROR(Put(head));
      TH_RETURN_IF_ERROR(Put(replaced_));
      continue;
    }
    TH_RETURN_IF_ERROR(Put(raw));
  }
  if (r.failed()) return Error(r, Msg::kXSpace);
  sizes_.clear();
  return FlushOut();
}

Status WireRewriter::RedactHlo() {
  uint64_t size;
  bool changed;
  TH_RETURN_IF_ERROR(Process(Msg::kHloProto, whole_, false, &size, &changed));
  if (!changed) {
    TH_RETURN_IF_ERROR(Put(whole_));
  } else {
    TH_RETURN_IF_ERROR(Process(Msg::kHloProto, whole_, true, &size, &changed));
  }
  sizes_.clear();
  return FlushOut();
}

}  // namespace

Status RedactXSpace(std::string_view in, const std::string& name, StringRedactor& redactor,
                    ByteSink& out, bool mapped) {
  if (in.empty()) return Unsupported(name + ": empty file (0 bytes): not an XSpace capture");
  WireRewriter w(in, name, &redactor, &out);
  return w.RedactSpace(mapped);
}

Status RedactHloProto(std::string_view in, const std::string& name, StringRedactor& redactor,
                      ByteSink& out) {
  if (in.empty()) return Unsupported(name + ": empty file (0 bytes): not an HloProto");
  WireRewriter w(in, name, &redactor, &out);
  return w.RedactHlo();
}

Status CollectXSpaceHosts(std::string_view in, const std::string& name,
                          std::vector<std::string>* hosts) {
  WireReader r(in, in);
  WireField f;
  while (r.Next(&f)) {
    if (f.number == 4 && f.wire_type == kLengthDelimited && !f.bytes.empty())
      hosts->emplace_back(f.bytes);
  }
  if (r.failed())
    return InvalidInput(name + ": " + r.error().what + " at byte offset " +
                        std::to_string(r.error().offset) + " (in XSpace)");
  return Ok();
}

}  // namespace th::redact
