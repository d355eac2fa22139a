#include "core/import/hlo/hlo_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include "core/import/common/regular_file.h"
#include "core/import/xspace/wire_reader.h"

namespace th::hlo {
namespace {

using xspace::kLengthDelimited;
using xspace::kVarint;
using xspace::MessageDecoder;
using xspace::ValidUtf8;
using xspace::WireError;
using xspace::WireField;
using xspace::WireReader;

int64_t S64(uint64_t v) { return static_cast<int64_t>(v); }

// StackFrameIndexProto, just what resolves a frame id to file:line.
struct StackFrames {
  std::vector<std::string> file_names;
  std::vector<std::pair<int64_t, int64_t>> locations;  // file_name_id, line
  std::vector<int64_t> frame_locations;                // file_location_id per frame
};

// Recursive descent over the HLO messages the oracle decodes. Each Parse*
// returns false on the first error; callers prepend their path component while
// unwinding, so the path is only built on failure. A field whose wire type is
// not the expected one is skipped, as the oracle does.
// Fills source_file/source_line of instructions that carry only a stack
// frame id (1-based ids throughout, 0 = unset). The stack frame index comes
// after the computations in the proto, so this runs once per index.
void ResolveStackFrames(const StackFrames& frames, HloModule* m) {
  for (HloComputation& c : m->computations) {
    for (HloInstruction& ins : c.instructions) {
      HloMetadata& md = ins.metadata;
      if (!md.source_file.empty() || md.stack_frame_id <= 0) continue;
      auto frame = static_cast<size_t>(md.stack_frame_id);
      if (frame > frames.frame_locations.size()) continue;
      auto loc = static_cast<size_t>(frames.frame_locations[frame - 1]);
      if (loc == 0 || loc > frames.locations.size()) continue;
      auto [file_id, line] = frames.locations[loc - 1];
      if (file_id <= 0 || static_cast<size_t>(file_id) > frames.file_names.size()) continue;
      md.source_file = frames.file_names[static_cast<size_t>(file_id) - 1];
      md.source_line = static_cast<int32_t>(line);
    }
  }
}

class Decoder : public MessageDecoder {
 public:
  explicit Decoder(std::string_view whole) : MessageDecoder(whole) {}

  bool ParseModule(std::string_view msg, HloModule* m);

 private:
  bool ParseComputation(std::string_view msg, HloComputation* c);
  bool ParseInstruction(std::string_view msg, HloInstruction* ins);
  // Tuple shapes nest; real modules stay a few levels deep. Deeper input is
  // refused (recursion and HloShape's destructor are bounded by it).
  static constexpr int kMaxShapeDepth = 256;
  bool ParseShape(std::string_view msg, HloShape* sh, int depth = 0);
  bool ParseLayout(std::string_view msg, HloShape* sh);
  // Not decoded by the oracle: a malformed payload must not fail the read.
  bool ParseMetadataLenient(std::string_view msg, HloMetadata* md);
  // HloScheduleProto and StackFrameIndexProto, also outside the oracle: a
  // fault leaves what decoded and returns false.
  bool ParseScheduleLenient(std::string_view msg, HloModule* m);
  bool ParseStackFramesLenient(std::string_view msg, StackFrames* frames);
  // DotDimensionNumbers, Window and ConvolutionDimensionNumbers, outside the
  // oracle too: a fault keeps what decoded and returns false.
  bool ParseDotDimsLenient(std::string_view msg, HloDotDims* d);
  bool ParseWindowLenient(std::string_view msg, std::vector<HloWindowDim>* w);
  bool ParseConvDimsLenient(std::string_view msg, HloConvDims* c);
  // Repeated int64 of a lenient message: no error is recorded on a fault.
  static bool LenientInts(WireReader* r, const WireField& f, std::vector<int64_t>* out) {
    if (f.wire_type == kVarint) out->push_back(S64(f.value));
    if (f.wire_type != kLengthDelimited) return true;
    return r->ForEachPackedVarint(f.bytes, [out](uint64_t v) { out->push_back(S64(v)); });
  }

  // Repeated int64: packed (LEN) or a single varint. Other wire types are
  // ignored.
  bool Ints(WireReader* r, const WireField& f, std::vector<int64_t>* out) {
    if (f.wire_type == kVarint) {
      out->push_back(S64(f.value));
      return true;
    }
    if (f.wire_type == kLengthDelimited) {
      if (!r->ForEachPackedVarint(f.bytes, [out](uint64_t v) { out->push_back(S64(v)); })) {
        return FromReader(*r);
      }
    }
    return true;
  }
};

bool Decoder::ParseLayout(std::string_view msg, HloShape* sh) {
  sh->has_layout = true;
  sh->minor_to_major.clear();
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.number == 1 && !Ints(&r, f, &sh->minor_to_major)) return false;
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseShape(std::string_view msg, HloShape* sh, int depth) {
  if (depth > kMaxShapeDepth) {
    error_.what = "shape nested deeper than " + std::to_string(kMaxShapeDepth) + " tuple levels";
    error_.offset = static_cast<uint64_t>(msg.data() - whole_.data());
    return false;
  }
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    switch (f.number) {
      case 2:
        if (f.wire_type == kVarint) sh->element_type = S64(f.value);
        break;
      case 3:
        if (!Ints(&r, f, &sh->dimensions)) return false;
        break;
      case 4:
        if (f.wire_type == kLengthDelimited) {
          sh->tuple_shapes.emplace_back();
          if (!ParseShape(f.bytes, &sh->tuple_shapes.back(), depth + 1)) {
            return Prepend("tuple_shapes", sh->tuple_shapes.size() - 1);
          }
        }
        break;
      case 5:
        if (f.wire_type == kLengthDelimited && !ParseLayout(f.bytes, sh)) {
          return Prepend("layout");
        }
        break;
      default:
        break;
    }
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseMetadataLenient(std::string_view msg, HloMetadata* md) {
  WireReader r = Reader(msg);
  WireField f;
  size_t bad;
  while (r.Next(&f)) {
    if (f.wire_type == kLengthDelimited) {
      std::string* dst = f.number == 1   ? &md->op_type
                         : f.number == 2 ? &md->op_name
                         : f.number == 3 ? &md->source_file
                                         : nullptr;
      if (dst != nullptr) {
        if (!ValidUtf8(f.bytes, &bad)) return false;
        dst->assign(f.bytes.data(), f.bytes.size());
      }
    } else if (f.wire_type == kVarint) {
      if (f.number == 4) md->source_line = static_cast<int32_t>(f.value);
      if (f.number == 15) md->stack_frame_id = static_cast<int32_t>(f.value);
    }
  }
  return !r.failed();
}

bool Decoder::ParseScheduleLenient(std::string_view msg, HloModule* m) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.number != 1 || f.wire_type != kLengthDelimited) continue;  // sequences map entry
    WireReader entry = Reader(f.bytes);
    WireField e;
    int64_t key = 0;
    std::vector<int64_t> ids;
    while (entry.Next(&e)) {
      if (e.number == 1 && e.wire_type == kVarint) key = S64(e.value);
      if (e.number == 2 && e.wire_type == kLengthDelimited) {  // InstructionSequence
        WireReader seq = Reader(e.bytes);
        WireField q;
        while (seq.Next(&q)) {
          if (q.number == 1 && !Ints(&seq, q, &ids)) return false;
        }
        if (seq.failed()) return false;
      }
    }
    if (entry.failed()) return false;
    m->schedule[key] = std::move(ids);
  }
  return !r.failed();
}

bool Decoder::ParseStackFramesLenient(std::string_view msg, StackFrames* frames) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.wire_type != kLengthDelimited) continue;
    if (f.number == 1) {
      if (size_t bad; !ValidUtf8(f.bytes, &bad)) return false;
      frames->file_names.emplace_back(f.bytes);
    } else if (f.number == 3 || f.number == 4) {
      WireReader sub = Reader(f.bytes);
      WireField g;
      int64_t a = 0, line = 0;
      while (sub.Next(&g)) {
        if (g.wire_type != kVarint) continue;
        if (g.number == 1) a = S64(g.value);
        if (f.number == 3 && g.number == 3) line = S64(g.value);
      }
      if (sub.failed()) return false;
      if (f.number == 3) frames->locations.emplace_back(a, line);
      if (f.number == 4) frames->frame_locations.push_back(a);
    }
  }
  return !r.failed();
}

bool Decoder::ParseDotDimsLenient(std::string_view msg, HloDotDims* d) {
  WireReader r = Reader(msg);
  WireField f;
  std::vector<int64_t>* lists[] = {&d->lhs_contracting, &d->rhs_contracting, &d->lhs_batch,
                                   &d->rhs_batch};
  while (r.Next(&f)) {
    if (f.number >= 1 && f.number <= 4 && !LenientInts(&r, f, lists[f.number - 1])) return false;
  }
  return !r.failed();
}

bool Decoder::ParseWindowLenient(std::string_view msg, std::vector<HloWindowDim>* w) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.number != 1 || f.wire_type != kLengthDelimited) continue;
    HloWindowDim& d = w->emplace_back();
    int64_t* fields[] = {&d.size,         &d.stride,          &d.padding_low,
                         &d.padding_high, &d.window_dilation, &d.base_dilation};
    WireReader sub = Reader(f.bytes);
    WireField g;
    while (sub.Next(&g)) {
      if (g.wire_type != kVarint) continue;
      if (g.number >= 1 && g.number <= 6) *fields[g.number - 1] = S64(g.value);
      if (g.number == 7) d.window_reversal = g.value != 0;
    }
    if (sub.failed()) return false;
  }
  return !r.failed();
}

bool Decoder::ParseConvDimsLenient(std::string_view msg, HloConvDims* c) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    std::vector<int64_t>* list = f.number == 11   ? &c->input_spatial
                                 : f.number == 6  ? &c->kernel_spatial
                                 : f.number == 12 ? &c->output_spatial
                                                  : nullptr;
    if (list != nullptr) {
      if (!LenientInts(&r, f, list)) return false;
      continue;
    }
    if (f.wire_type != kVarint) continue;
    const int64_t v = S64(f.value);
    switch (f.number) {
      case 7:
        c->input_batch = v;
        break;
      case 8:
        c->input_feature = v;
        break;
      case 3:
        c->kernel_input_feature = v;
        break;
      case 4:
        c->kernel_output_feature = v;
        break;
      case 9:
        c->output_batch = v;
        break;
      case 10:
        c->output_feature = v;
        break;
      default:
        break;
    }
  }
  return !r.failed();
}

bool Decoder::ParseInstruction(std::string_view msg, HloInstruction* ins) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.wire_type == kLengthDelimited) {
      switch (f.number) {
        case 1:
          if (!String(f.bytes, &ins->name)) return false;
          continue;
        case 2:
          if (!String(f.bytes, &ins->opcode)) return false;
          continue;
        case 3:
          // The oracle keeps the last shape rather than merging.
          ins->shape = HloShape();
          ins->has_shape = true;
          if (!ParseShape(f.bytes, &ins->shape)) return Prepend("shape");
          continue;
        case 7:
          if (!ParseMetadataLenient(f.bytes, &ins->metadata)) ins->lenient_decode_failed = true;
          continue;
        case 11:
          if (!String(f.bytes, &ins->fusion_kind)) return false;
          continue;
        case 28:  // custom_call_target: not decoded by the oracle, kept leniently
          if (size_t bad; ValidUtf8(f.bytes, &bad)) {
            ins->custom_call_target.assign(f.bytes.data(), f.bytes.size());
          } else {
            ins->lenient_decode_failed = true;
          }
          continue;
        case 15:  // window
          if (!ParseWindowLenient(f.bytes, &ins->window)) ins->lenient_decode_failed = true;
          continue;
        case 16:  // convolution_dimension_numbers
          ins->has_conv_dims = true;
          if (!ParseConvDimsLenient(f.bytes, &ins->conv_dims)) ins->lenient_decode_failed = true;
          continue;
        case 30:  // dot_dimension_numbers
          ins->has_dot_dims = true;
          if (!ParseDotDimsLenient(f.bytes, &ins->dot_dims)) ins->lenient_decode_failed = true;
          continue;
        case 43:  // backend_config (bytes)
          ins->backend_config.assign(f.bytes.data(), f.bytes.size());
          continue;
        default:
          break;
      }
    }
    if (f.number == 9 && f.wire_type == kVarint) {
      ins->parameter_number = S64(f.value);
    } else if (f.number == 13 && f.wire_type == kVarint) {
      ins->tuple_index = S64(f.value);
    } else if (f.number == 14) {
      // Not decoded by the oracle: a malformed payload does not fail the read.
      if (f.wire_type == kVarint) {
        ins->dimensions.push_back(S64(f.value));
      } else if (f.wire_type == kLengthDelimited) {
        WireReader sub = Reader(f.bytes);
        if (!sub.ForEachPackedVarint(f.bytes,
                                     [ins](uint64_t v) { ins->dimensions.push_back(S64(v)); }))
          ins->lenient_decode_failed = true;
      }
    } else if ((f.number == 50 || f.number == 58) && f.wire_type == kVarint) {
      // proto3 leaves 0 (unset) out; XLA reads an unset count as 1.
      (f.number == 50 ? ins->feature_group_count : ins->batch_group_count) =
          f.value == 0 ? 1 : S64(f.value);
    } else if (f.number == 35 && f.wire_type == kVarint) {
      ins->id = S64(f.value);
      ins->has_id = true;
    } else if (f.number == 36) {
      if (!Ints(&r, f, &ins->operand_ids)) return false;
    } else if (f.number == 38) {
      if (f.wire_type == kVarint) {
        ins->called_computation_ids.push_back(S64(f.value));
      } else if (f.wire_type == kLengthDelimited) {
        // A separate reader: a fault here must not fail `r`.
        WireReader sub = Reader(f.bytes);
        if (!sub.ForEachPackedVarint(
                f.bytes, [ins](uint64_t v) { ins->called_computation_ids.push_back(S64(v)); })) {
          ins->lenient_decode_failed = true;
        }
      }
    }
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseComputation(std::string_view msg, HloComputation* c) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.number == 1 && f.wire_type == kLengthDelimited) {
      if (!String(f.bytes, &c->name)) return false;
    } else if (f.number == 2 && f.wire_type == kLengthDelimited) {
      c->instructions.emplace_back();
      HloInstruction& ins = c->instructions.back();
      if (!ParseInstruction(f.bytes, &ins)) {
        return Prepend("instructions", c->instructions.size() - 1);
      }
      // proto3 leaves a zero out of the wire: parameter 0, tuple index 0.
      if (ins.opcode == "parameter" && ins.parameter_number < 0) ins.parameter_number = 0;
      if (ins.opcode == "get-tuple-element" && ins.tuple_index < 0) ins.tuple_index = 0;
    } else if (f.number == 5 && f.wire_type == kVarint) {
      c->id = S64(f.value);
      c->has_id = true;
    } else if (f.number == 6 && f.wire_type == kVarint) {
      c->root_id = S64(f.value);
    } else if (f.number == 7 && f.wire_type == kVarint) {
      c->is_fusion_computation = f.value != 0;
    }
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseModule(std::string_view msg, HloModule* m) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.number == 1 && f.wire_type == kLengthDelimited) {
      if (!String(f.bytes, &m->name)) return false;
    } else if (f.number == 2 && f.wire_type == kLengthDelimited) {
      if (!String(f.bytes, &m->entry_computation_name)) return false;
    } else if (f.number == 3 && f.wire_type == kLengthDelimited) {
      m->computations.emplace_back();
      if (!ParseComputation(f.bytes, &m->computations.back())) {
        return Prepend("computations", m->computations.size() - 1);
      }
    } else if (f.number == 5 && f.wire_type == kVarint) {
      m->id = S64(f.value);
    } else if (f.number == 6 && f.wire_type == kVarint) {
      m->entry_computation_id = S64(f.value);
      m->has_entry_computation_id = true;
    } else if (f.number == 7 && f.wire_type == kLengthDelimited) {
      if (!ParseScheduleLenient(f.bytes, m)) m->schedule.clear();
    } else if (f.number == 17 && f.wire_type == kLengthDelimited) {
      StackFrames frames;
      if (ParseStackFramesLenient(f.bytes, &frames)) ResolveStackFrames(frames, m);
    }
  }
  return r.failed() ? FromReader(r) : true;
}

// oracle.py _looks_like_hloproto: a shallow look at the top level and at the
// single field 1; any decoding fault means "not an HloProto".
bool LooksLikeHloProto(std::string_view whole) {
  WireReader top(whole, whole);
  WireField f;
  bool any = false;
  int f1_count = 0;
  std::string_view f1;
  while (top.Next(&f)) {
    any = true;
    if (f.number != 1 && f.number != 3) return false;
    if (f.number == 1 && f.wire_type == kLengthDelimited) {
      ++f1_count;
      f1 = f.bytes;
    }
  }
  if (top.failed() || !any || f1_count != 1) return false;
  WireReader inner(whole, f1);
  bool has_module_field = false;
  while (inner.Next(&f)) {
    if ((f.number == 3 || f.number == 2) && f.wire_type == kLengthDelimited) {
      has_module_field = true;
    }
  }
  return !inner.failed() && has_module_field;
}

}  // namespace

th::StatusOr<std::vector<HloModule>> ReadHloProto(std::string_view bytes, const std::string& name) {
  Decoder d(bytes);
  HloModule module;
  auto fail = [&]() -> th::Status {
    return th::InvalidInput(name + ": " + d.error().what + " at byte offset " +
                            std::to_string(d.error().offset) + " (in " + d.path() + ")");
  };
  if (LooksLikeHloProto(bytes)) {
    module.container = "HloProto";
    bool found = false;
    WireReader r = d.Reader(bytes);
    WireField f;
    while (r.Next(&f)) {
      if (f.number == 1 && f.wire_type == kLengthDelimited) {
        HloModule m;
        m.container = module.container;
        m.has_buffer_assignment = module.has_buffer_assignment;
        if (!d.ParseModule(f.bytes, &m)) {
          d.Prepend("hlo_module");
          return fail();
        }
        module = std::move(m);
        found = true;
      } else if (f.number == 3 && f.wire_type == kLengthDelimited) {
        module.has_buffer_assignment = true;
      }
    }
    if (r.failed()) {
      d.FromReader(r);
      d.Prepend("HloProto");
      return fail();
    }
    if (!found) return th::InvalidInput(name + ": HloProto without hlo_module");
  } else {
    module.container = "HloModuleProto";
    if (!d.ParseModule(bytes, &module)) {
      d.Prepend("HloModuleProto");
      return fail();
    }
  }
  std::vector<HloModule> out;
  out.push_back(std::move(module));
  return out;
}

th::StatusOr<std::vector<HloModule>> ReadHloProtoFile(const std::string& path) {
  // A FIFO or device would block or never end the read (a missing file is
  // reported by the open below, as an I/O error).
  if (th::Status s = th::CheckRegularFile(path); !s.ok() && s.code() != th::StatusCode::kNotFound)
    return s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return th::IoError(path + ": cannot open: " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return th::IoError(path + ": read failed");
  return ReadHloProto(bytes, path);
}

}  // namespace th::hlo
