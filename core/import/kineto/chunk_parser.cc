#include "core/import/kineto/chunk_parser.h"

#include <charconv>
#include <cstring>
#include <unordered_map>

#include "core/graph/text_escape.h"
#include "core/graph/utf8.h"
#include "core/import/kineto/decimal_time.h"
#include "core/import/kineto/json_arg_text.h"
#include "core/import/kineto/json_value_check.h"
#include "core/import/kineto/object_fields.h"
#include "core/import/kineto/xprof_json.h"

namespace th::kineto {

namespace ondemand = simdjson::ondemand;

namespace {

// Integer argument: a JSON integer, a float with no fraction, or a string of
// digits (Kineto writes some collective fields quoted). False if none.
bool GetInt(ondemand::value v, int64_t* out) {
  if (!v.get_int64().get(*out)) return true;  // the common case; a failed getter consumes nothing
  ondemand::json_type t;
  if (v.type().get(t)) return false;
  if (t == ondemand::json_type::number) {
    ondemand::number_type nt;
    if (v.get_number_type().get(nt)) return false;
    if (nt == ondemand::number_type::signed_integer) return !v.get_int64().get(*out);
    if (nt == ondemand::number_type::unsigned_integer) {
      uint64_t u;
      if (v.get_uint64().get(u)) return false;
      *out = static_cast<int64_t>(u);
      return true;
    }
    double d;
    if (v.get_double().get(d)) return false;
    return DoubleToInt64(d, out);  // 1e90 is no id (found by fuzzing: the cast was UB)
  }
  if (t == ondemand::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s) || s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && p == s.data() + s.size();
  }
  return false;
}

// Reads the values an event's fields hold, checking what it cannot use: a
// value no getter reads, or one a getter refuses, is checked whole
// (json_value_check.h). The first malformed value is kept in `err`; the field
// loops return it after each field.
struct CheckedReader {
  ValueCheck* check;
  simdjson::error_code err = simdjson::SUCCESS;

  // A value that is not read: checked whole.
  [[gnu::always_inline]] void Skip(ondemand::value v) {
    if (!err) err = SkipValue(v, check);
  }
  // A field no key of the reader's matched: its key's escapes and its value.
  [[gnu::always_inline]] void SkipField(const char* key, ondemand::value v) {
    if (!err) err = CheckKeyEscapes(key, check);
    Skip(v);
  }
  [[gnu::always_inline]] bool Int(ondemand::value v, int64_t* out) {
    if (GetInt(v, out)) return true;
    Skip(v);
    return false;
  }
  [[gnu::always_inline]] bool String(ondemand::value v, std::string_view* out) {
    if (!v.get_string().get(*out)) return true;
    Skip(v);
    return false;
  }
  [[gnu::always_inline]] bool Double(ondemand::value v, double* out) {
    if (!v.get_double().get(*out)) return true;
    Skip(v);
    return false;
  }
};

// Arguments picked from `args`; the rest of `args` is not kept (yet).
struct Args {
  int64_t correlation = kNoValue;
  int64_t external_id = kNoValue;
  int64_t device = kNoValue;
  int64_t stream = kNoValue;
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int64_t registers = 0;
  int64_t shared_mem = 0;
  double occupancy = -1;
  int64_t bytes = kNoValue;
  std::string_view collective, dtype, group;
  bool has_collective = false;
  int64_t in_nelems = 0, out_nelems = 0, group_size = 0;
  int64_t mem_bytes = 0, total_allocated = kNoValue, total_reserved = kNoValue, addr = 0;
  int64_t device_type = -1, device_id = -1;
  int64_t rank = kNoValue;     // args.rank: written by trace mergers (merged_ranks.h)
  std::string_view meta_name;  // M events: args.name / args.labels
  bool has_meta_name = false;
  // record_shapes: "Input Dims" / "Input type" / "Concrete Inputs" as
  // compact JSON text.
  JsonArgText* arg_text = nullptr;
  StringId input_dims = kEmptyString, input_types = kEmptyString, concrete_inputs = kEmptyString;
  bool has_input_dims = false, has_input_types = false, has_concrete_inputs = false;
  // C events (when ph came before args, as every producer writes it): every
  // numeric arg is a series value.
  std::vector<std::pair<std::string_view, double>>* series = nullptr;
};

[[gnu::always_inline]] inline void GetDim3(ondemand::value v, int32_t out[3], CheckedReader* r) {
  ondemand::array arr;
  if (v.get_array().get(arr)) return r->Skip(v);
  int i = 0;
  for (auto element : arr) {
    ondemand::value e;
    if (auto err = element.get(e)) {
      r->err = err;
      return;
    }
    int64_t x;
    if (i < 3 && !e.get_int64().get(x))
      out[i] = static_cast<int32_t>(x);
    else
      r->Skip(e);
    if (r->err) return;
    ++i;
  }
}

// Handlers of one argument that store what they read in a field of the
// arguments struct (object_fields.h calls them with the key first).
template <auto Member>
constexpr auto kIntArg = [](std::string_view, ondemand::value v, auto* a, CheckedReader* r,
                            auto*...) { r->Int(v, &(a->*Member)); };
template <auto Member>
constexpr auto kStringArg = [](std::string_view, ondemand::value v, auto* a, CheckedReader* r,
                               auto*...) { r->String(v, &(a->*Member)); };
// A string argument whose presence is kept too.
template <auto Member, auto Present>
constexpr auto kPresentStringArg = [](std::string_view, ondemand::value v, auto* a,
                                      CheckedReader* r,
                                      auto*...) { a->*Present = r->String(v, &(a->*Member)); };
// An argument kept as the string id of its compact JSON text. An array's
// text comes from simdjson's structural index (up to the next token), and is
// checked only when this thread has not seen it before (json_arg_text.h).
template <auto Member, auto Present>
constexpr auto kJsonTextArg = [](std::string_view, ondemand::value v, Args* a, CheckedReader* r) {
  const std::string_view token = v.raw_json_token();
  std::string_view raw = token;
  bool checked = false;
  ondemand::array arr;
  if (!token.empty() && token[0] == '[' && !v.get_array().get(arr)) {
    if (auto err = arr.raw_json().get(raw)) {
      // Where the text is wrong, when the check can say.
      CheckContainerEnd(token.data(), r->check->text_end, r->check);
      r->err = err;
      return;
    }
  } else if (!token.empty() && (token[0] == '[' || token[0] == '{')) {
    const char* end = CheckContainerEnd(token.data(), r->check->text_end, r->check);
    if (!end) {
      r->err = simdjson::TAPE_ERROR;
      return;
    }
    raw = std::string_view(token.data(), static_cast<size_t>(end - token.data()));
    checked = true;
  } else {
    r->Skip(v);
    if (r->err) return;
    checked = true;
  }
  if (!a->arg_text->Intern(raw, checked, r->check, &(a->*Member))) {
    r->err = simdjson::TAPE_ERROR;
    return;
  }
  a->*Present = true;
};
template <auto Member>
constexpr auto kDim3Arg = [](std::string_view, ondemand::value v, Args* a, CheckedReader* r) {
  GetDim3(v, a->*Member, r);
};

constexpr KeyHandlers kKinetoArgs{
    On<"correlation">(kIntArg<&Args::correlation>),
    On<"External id">(kIntArg<&Args::external_id>),
    On<"stream">(kIntArg<&Args::stream>),
    On<"shared memory">(kIntArg<&Args::shared_mem>),
    On<"device">(kIntArg<&Args::device>),
    On<"dtype">(kStringArg<&Args::dtype>),
    On<"grid">(kDim3Arg<&Args::grid>),
    On<"block">(kDim3Arg<&Args::block>),
    On<"bytes">(kIntArg<&Args::bytes>),
    On<"registers per thread">(kIntArg<&Args::registers>),
    On<"rank">(kIntArg<&Args::rank>),
    On<"est. achieved occupancy %">(
        [](std::string_view, ondemand::value v, Args* a, CheckedReader* r) {
          double d;
          if (r->Double(v, &d)) a->occupancy = d;
        }),
    On<"Collective name">(kPresentStringArg<&Args::collective, &Args::has_collective>),
    On<"In msg nelems">(kIntArg<&Args::in_nelems>),
    On<"Out msg nelems">(kIntArg<&Args::out_nelems>),
    On<"Group size">(kIntArg<&Args::group_size>),
    On<"Process Group Name">(kStringArg<&Args::group>),
    On<"Total Allocated">(kIntArg<&Args::total_allocated>),
    On<"Total Reserved">(kIntArg<&Args::total_reserved>),
    On<"Bytes">(kIntArg<&Args::mem_bytes>),
    On<"Addr">(kIntArg<&Args::addr>),
    On<"Device Type">(kIntArg<&Args::device_type>),
    On<"Device Id">(kIntArg<&Args::device_id>),
    On<"name">(kPresentStringArg<&Args::meta_name, &Args::has_meta_name>),
    On<"Input Dims">(kJsonTextArg<&Args::input_dims, &Args::has_input_dims>),
    On<"Input type">(kJsonTextArg<&Args::input_types, &Args::has_input_types>),
    On<"Concrete Inputs">(kJsonTextArg<&Args::concrete_inputs, &Args::has_concrete_inputs>),
    On<"labels">(kPresentStringArg<&Args::meta_name, &Args::has_meta_name>),
};

simdjson::error_code ParseArgs(ondemand::object obj, Args* a, ValueCheck* check) {
  CheckedReader r{check};
  return ForEachField(
      obj, r, [&](const char* key, ondemand::value v) __attribute__((always_inline)) {
        if (!a->series) return kKinetoArgs.Dispatch(key, v, a, &r);
        double d;
        const char* q = static_cast<const char*>(std::memchr(key, '"', 1024));
        if (r.Double(v, &d) && q) a->series->emplace_back(std::string_view(key, q - key), d);
        if (!r.err) r.err = CheckKeyEscapes(key, check);
        return true;
      });
}

// XProf JSON args (xprof_json.h): every value is a string; the labels and
// the correlation id are kept.
struct XprofArgs {
  int64_t correlation = kNoValue, program_id = kNoValue, group_id = kNoValue;
  std::string_view hlo_op, hlo_module, name, tf_op, source;
  bool has_name = false;
};

// An integer XProf argument: a string of digits (TSL writes every value as a
// string) or a JSON number; uint64 values keep their bits, as XSpace readers
// do. False (with the text in *bad) when it is not an integer; a malformed
// value also sets r->err.
bool GetIntegerArg(ondemand::value v, int64_t* out, std::string_view* bad, CheckedReader* r) {
  std::string_view token = v.raw_json_token();
  std::string_view s;
  if (!v.get_string().get(s)) {
    const char* end = s.data() + s.size();
    if (!s.empty()) {
      auto [p, ec] = std::from_chars(s.data(), end, *out);
      if (ec == std::errc() && p == end) return true;
      uint64_t u = 0;
      auto [pu, ecu] = std::from_chars(s.data(), end, u);
      if (ecu == std::errc() && pu == end) {
        *out = static_cast<int64_t>(u);
        return true;
      }
    }
    *bad = s;
    return false;
  }
  if (!v.get_int64().get(*out)) return true;
  uint64_t u = 0;
  if (!v.get_uint64().get(u)) {
    *out = static_cast<int64_t>(u);
    return true;
  }
  r->Skip(v);  // malformed: r->err; valid but not an integer: the caller counts it
  *bad = token;
  return false;
}

// An integer XProf argument; one that is no integer is counted, with the
// first one's key and text.
template <auto Member>
constexpr auto kXprofIntegerArg = [](std::string_view key, ondemand::value v, XprofArgs* a,
                                     CheckedReader* r, ChunkDefects* defects) {
  std::string_view bad;
  int64_t x = 0;
  if (GetIntegerArg(v, &x, &bad, r)) {
    a->*Member = x;
  } else if (!r->err) {
    ++defects->bad_integer_arg;
    if (defects->first_bad_integer_arg.empty()) {
      defects->first_bad_integer_arg =
          std::string(key) + "=\"" + PrintableBytes(bad.substr(0, 64)) + "\"";
    }
  }
};

constexpr KeyHandlers kXprofArgs{
    On<"correlation_id">(kXprofIntegerArg<&XprofArgs::correlation>),
    On<"program_id">(kXprofIntegerArg<&XprofArgs::program_id>),
    On<"group_id">(kXprofIntegerArg<&XprofArgs::group_id>),
    On<"hlo_op">(kStringArg<&XprofArgs::hlo_op>),
    On<"hlo_module">(kStringArg<&XprofArgs::hlo_module>),
    On<"name">(kPresentStringArg<&XprofArgs::name, &XprofArgs::has_name>),
    On<"tf_op">(kStringArg<&XprofArgs::tf_op>),
    On<"source">(kStringArg<&XprofArgs::source>),
};

simdjson::error_code ParseXprofArgs(ondemand::object obj, XprofArgs* a, ChunkDefects* defects,
                                    ValueCheck* check) {
  CheckedReader r{check};
  return ForEachField(
      obj, r, [&](const char* key, ondemand::value v) __attribute__((always_inline)) {
        return kXprofArgs.Dispatch(key, v, a, &r, defects);
      });
}

bool KnownPhase(char c) {
  switch (c) {
    case 'X':
    case 'B':
    case 'E':
    case 'i':
    case 'I':
    case 'C':
    case 'b':
    case 'n':
    case 'e':
    case 'S':
    case 'T':
    case 'p':
    case 'F':
    case 's':
    case 't':
    case 'f':
    case 'P':
    case 'N':
    case 'O':
    case 'D':
    case 'M':
    case 'V':
    case 'v':
    case 'R':
    case 'c':
      return true;
    default:
      return false;
  }
}

// One pid/tid value: number or string. A string holding a decimal integer is
// that integer: old Kineto wrote the same thread as 25738 on flow events and
// "25738" on slices, and they must land on one track.
void ReadId(ondemand::value v, ThreadTables& strings, int64_t* num, uint32_t* str,
            CheckedReader* r) {
  if (!v.get_int64().get(*num)) return;
  std::string_view token = v.raw_json_token();
  ondemand::json_type t;
  if (!v.type().get(t) && t == ondemand::json_type::string) {
    std::string_view s;
    if (!r->String(v, &s)) return;
    int64_t x = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (!s.empty() && ec == std::errc() && p == s.data() + s.size()) {
      *num = x;
    } else {
      *str = strings.Intern(s);
    }
    return;
  }
  if (GetInt(v, num)) return;
  r->Skip(v);
  if (!r->err) *str = strings.Intern(token);
}

// The fields both event formats share (Kineto and XProf JSON).
struct CommonFields {
  std::string_view ph_text, cat_text, name_text;
  bool has_ph = false, has_cat = false, has_name = false, has_ts = false, has_dur = false;
  bool ts_invalid = false, dur_invalid = false;
  int64_t ts = 0, dur = 0;
  TrackKey key;
};

// What reading the shared fields needs besides the fields themselves.
struct CommonContext {
  ThreadTables* tables;
  ChunkDefects* defects;  // counts the times rounded to whole ns
  NsRounding rounding;
};

// A time in µs to ns; a value that is no number is checked (malformed: r->err).
[[gnu::always_inline]] inline bool ReadTime(ondemand::value v, int64_t* ns, CheckedReader* r,
                                            const CommonContext* c) {
  DecimalNs d = MicrosToNs(v.raw_json_token(), c->rounding);
  if (!d.ok) {
    r->Skip(v);
    return false;
  }
  if (d.rounded) ++c->defects->rounded_time;
  *ns = d.ns;
  return true;
}

// The fields both event formats share, by key.
constexpr KeyHandlers kCommonFields{
    On<"ph">([](std::string_view, ondemand::value v, CommonFields* f, CheckedReader* r,
                const CommonContext*) {
      // A ph that is valid JSON but no string ("ph": 30) is an unknown
      // phase, counted with its text; malformed text is an error.
      f->has_ph = true;
      if (v.get_string().get(f->ph_text)) {
        std::string_view token = v.raw_json_token();
        r->Skip(v);
        while (!token.empty() && (token.back() == ' ' || token.back() == '\n' ||
                                  token.back() == '\r' || token.back() == '\t'))
          token.remove_suffix(1);
        f->ph_text = token.empty() ? std::string_view("?") : token.substr(0, 16);
      }
    }),
    On<"pid">(
        [](std::string_view, ondemand::value v, CommonFields* f, CheckedReader* r,
           const CommonContext* c) { ReadId(v, *c->tables, &f->key.pid, &f->key.pid_str, r); }),
    On<"cat">([](std::string_view, ondemand::value v, CommonFields* f, CheckedReader* r,
                 const CommonContext*) { f->has_cat = r->String(v, &f->cat_text); }),
    On<"name">([](std::string_view, ondemand::value v, CommonFields* f, CheckedReader* r,
                  const CommonContext*) { f->has_name = r->String(v, &f->name_text); }),
    On<"tid">(
        [](std::string_view, ondemand::value v, CommonFields* f, CheckedReader* r,
           const CommonContext* c) { ReadId(v, *c->tables, &f->key.tid, &f->key.tid_str, r); }),
    On<"ts">([](std::string_view, ondemand::value v, CommonFields* f, CheckedReader* r,
                const CommonContext* c) {
      f->has_ts = true;
      f->ts_invalid = !ReadTime(v, &f->ts, r, c);
    }),
    On<"dur">([](std::string_view, ondemand::value v, CommonFields* f, CheckedReader* r,
                 const CommonContext* c) {
      f->has_dur = true;
      f->dur_invalid = !ReadTime(v, &f->dur, r, c);
    }),
};

class EventReader {
 public:
  EventReader(ParsedChunk* out, ThreadTables* tables, JsonArgText* arg_text,
              std::vector<uint8_t>* cat_kind)
      : out_(out), tables_(tables), arg_text_(arg_text), cat_kind_(*cat_kind) {}

  // What checking the values found (the malformed token, non-finite numbers).
  ValueCheck& check() { return check_; }

  simdjson::error_code Read(ondemand::object obj) {
    CommonFields f;
    bool bind_enclosing = false, id_is_string = false;
    int64_t id = kNoValue;
    Args args;
    args.arg_text = arg_text_;
    CheckedReader r{&check_};
    const CommonContext common{tables_, &out_->defects, NsRounding::kHalfEven};
    auto err = ForEachField(
        obj, r, [&](const char* k, ondemand::value v) __attribute__((always_inline)) {
          if (RawKeyIs<"id">(k)) {
            ondemand::json_type t;
            if (!v.type().get(t) && t == ondemand::json_type::string) {
              std::string_view s;
              if (r.String(v, &s)) {
                id = tables_->Intern(s);
                id_is_string = true;
              }
            } else {
              r.Int(v, &id);
            }
            return true;
          }
          if (RawKeyIs<"bp">(k)) {
            std::string_view s;
            bind_enclosing = r.String(v, &s) && s == "e";
            return true;
          }
          if (RawKeyIs<"args">(k)) {
            ondemand::object a;
            if (f.has_ph && f.ph_text == "C") {
              series_.clear();
              args.series = &series_;
            }
            if (!v.get_object().get(a))
              r.err = ParseArgs(a, &args, &check_);
            else
              r.Skip(v);
            return true;
          }
          return kCommonFields.Dispatch(k, v, &f, &r, &common);
        });
    if (err) return err;
    Commit(f.ph_text, f.has_ph, f.has_cat ? f.cat_text : std::string_view(), f.has_cat,
           f.has_name ? f.name_text : std::string_view(), f.has_ts && !f.ts_invalid ? f.ts : 0,
           !f.has_ts || f.ts_invalid, f.has_dur && !f.dur_invalid ? f.dur : -1, bind_enclosing, id,
           id_is_string, f.key, args);
    return simdjson::SUCCESS;
  }

 private:
  // Counts phase and time defects; returns the event's flags. dur -1 (absent)
  // becomes 0. *ph is the phase character ('\0' when missing).
  uint8_t CheckPhaseAndTimes(std::string_view ph_text, bool has_ph, bool ts_invalid, int64_t* dur,
                             char* ph_out) {
    ChunkDefects& d = out_->defects;
    char ph = has_ph && !ph_text.empty() ? ph_text[0] : '\0';
    *ph_out = ph;
    if (!has_ph) {
      ++d.missing_ph;
    } else if (ph_text.size() != 1 || !KnownPhase(ph)) {
      ++d.unknown_phase;
      if (d.first_unknown_phase.empty()) d.first_unknown_phase = std::string(ph_text);
    }
    uint8_t flags = 0;
    if (ts_invalid) {
      flags |= kFlagInvalidTs;
      // Metadata legitimately has no ts; an element without ph is counted as such.
      if (ph != 'M' && has_ph) ++d.invalid_ts;
    }
    if (*dur < 0) {
      if (*dur != -1 || ph == 'X') {
        if (ph == 'X' && *dur == -1) {
          flags |= kFlagNoDuration;
          ++d.x_without_dur;
        } else {
          ++d.negative_dur;
        }
      }
      if (*dur == -1) *dur = 0;
    }
    if (ph == 'E') flags |= kFlagEndMarker;
    return flags;
  }

  EventKind KindOfCategory(uint32_t cat_id, std::string_view cat) {
    if (cat_id >= cat_kind_.size()) cat_kind_.resize(cat_id + 1, 0xff);
    uint8_t& k = cat_kind_[cat_id];
    if (k == 0xff) k = static_cast<uint8_t>(ClassifyCategory(cat));
    return static_cast<EventKind>(k);
  }

  void Commit(std::string_view ph_text, bool has_ph, std::string_view cat, bool has_cat,
              std::string_view name, int64_t ts, bool ts_invalid, int64_t dur, bool bind_enclosing,
              int64_t id, bool id_is_string, const TrackKey& key, const Args& a) {
    char ph;
    uint8_t flags = CheckPhaseAndTimes(ph_text, has_ph, ts_invalid, &dur, &ph);
    if (bind_enclosing) flags |= kFlagFlowBindEnclosing;

    uint32_t cat_id = has_cat ? tables_->Intern(cat) : 0;
    uint32_t name_id = tables_->Intern(name);
    EventKind kind;
    switch (ph) {
      case 'M':
        kind = EventKind::kMetadata;
        break;
      case 's':
      case 't':
      case 'f':
        kind = EventKind::kFlow;
        break;
      case 'C':
        kind = EventKind::kCounter;
        break;
      default:
        if (name == "[memory]") {
          kind = EventKind::kMemory;
        } else if (name == "[OutOfMemory]") {
          kind = EventKind::kOutOfMemory;
        } else {
          kind = has_cat ? KindOfCategory(cat_id, cat) : EventKind::kOther;
          if (kind == EventKind::kOther && (ph == 'i' || ph == 'I')) kind = EventKind::kInstant;
        }
    }
    uint32_t track = tables_->Track(key);
    auto row = static_cast<EventId>(out_->events.size());
    int64_t correlation = a.correlation;
    if (kind == EventKind::kFlow) {
      correlation = id;
      if (id_is_string) flags |= kFlagStringId;
    }
    uint32_t args_row = kNoRow;
    if (IsGpuActivity(kind) || kind == EventKind::kGpuSync || kind == EventKind::kGpuEvent) {
      GpuArgsTable& g = out_->gpu_args;
      args_row = static_cast<uint32_t>(g.size());
      g.event.push_back(row);
      g.device.push_back(a.device == kNoValue ? -1 : static_cast<int32_t>(a.device));
      g.stream.push_back(a.stream == kNoValue ? -1 : a.stream);
      for (int i = 0; i < 3; ++i) {
        g.grid[i].push_back(a.grid[i]);
        g.block[i].push_back(a.block[i]);
      }
      g.registers.push_back(static_cast<int32_t>(a.registers));
      g.shared_mem.push_back(static_cast<int32_t>(a.shared_mem));
      g.occupancy.push_back(static_cast<float>(a.occupancy));
      g.bytes.push_back(a.bytes == kNoValue ? -1 : a.bytes);
      if (a.has_collective) {
        CollectiveArgsTable& c = out_->collective_args;
        c.event.push_back(row);
        c.collective.push_back(tables_->Intern(a.collective));
        c.dtype.push_back(tables_->Intern(a.dtype));
        c.group.push_back(tables_->Intern(a.group));
        c.in_nelems.push_back(a.in_nelems);
        c.out_nelems.push_back(a.out_nelems);
        c.group_size.push_back(static_cast<int32_t>(a.group_size));
      }
    } else if (kind == EventKind::kMemory || kind == EventKind::kOutOfMemory) {
      MemoryArgsTable& m = out_->memory_args;
      args_row = static_cast<uint32_t>(m.size());
      m.event.push_back(row);
      m.device_type.push_back(static_cast<int8_t>(a.device_type));
      m.device_id.push_back(static_cast<int16_t>(a.device_id));
      m.addr.push_back(a.addr);
      m.bytes.push_back(a.mem_bytes);
      m.total_allocated.push_back(a.total_allocated);
      m.total_reserved.push_back(a.total_reserved);
    } else if (kind == EventKind::kCounter && a.series) {
      CounterTable& c = out_->counters;
      for (const auto& [series, value] : *a.series) {
        c.event.push_back(row);
        c.series.push_back(tables_->Intern(series));
        c.value.push_back(value);
      }
    } else if (kind == EventKind::kMetadata && a.has_meta_name) {
      NameRecord::Kind nk;
      bool keep = true;
      if (name == "process_name")
        nk = NameRecord::kProcessName;
      else if (name == "thread_name")
        nk = NameRecord::kThreadName;
      else if (name == "process_labels")
        nk = NameRecord::kProcessLabels;
      else
        keep = false;
      if (keep) out_->names.push_back({nk, track, tables_->Intern(a.meta_name)});
    }

    if (a.has_input_dims || a.has_input_types || a.has_concrete_inputs)
      PushOpInputs(row, kind, a, &args_row);
    if (a.rank != kNoValue) out_->event_ranks.push_back({row, a.rank});
    PushEvent(ts, dur, name_id, cat_id, track, ph, kind, flags, correlation, a.external_id,
              args_row);
  }

  // The op_inputs row of event `row`; *args_row points at it when the
  // event's kind has no other argument table.
  void PushOpInputs(EventId row, EventKind kind, const Args& a, uint32_t* args_row) {
    OpInputsTable& o = out_->op_inputs;
    if (*args_row == kNoRow && ArgsTableOf(kind) == ArgsTable::kOpInputs)
      *args_row = static_cast<uint32_t>(o.size());
    o.event.push_back(row);
    o.input_dims.push_back(a.input_dims);
    o.input_types.push_back(a.input_types);
    o.concrete_inputs.push_back(a.concrete_inputs);
  }

  void PushEvent(int64_t ts, int64_t dur, StringId name, StringId cat, uint32_t track, char ph,
                 EventKind kind, uint8_t flags, int64_t correlation, int64_t external_id,
                 uint32_t args_row) {
    EventColumns& e = out_->events;
    e.ts.push_back(ts);
    e.dur.push_back(dur);
    e.name.push_back(name);
    e.cat.push_back(cat);
    e.track.push_back(track);
    e.parent.push_back(kNoRow);
    e.depth.push_back(0);
    e.ph.push_back(ph);
    e.kind.push_back(kind);
    e.flags.push_back(flags);
    e.correlation.push_back(correlation);
    e.external_id.push_back(external_id);
    e.args_row.push_back(args_row);
  }

 public:
  // An event of an XProf JSON trace (xprof_json.h). The empty object TSL
  // writes after the last event is skipped.
  simdjson::error_code ReadXprof(ondemand::object obj) {
    CommonFields f;
    bool any_field = false;
    XprofArgs args;
    CheckedReader r{&check_};
    const CommonContext common{tables_, &out_->defects, NsRounding::kHalfAwayFromZero};
    auto err = ForEachField(
        obj, r, [&](const char* k, ondemand::value v) __attribute__((always_inline)) {
          any_field = true;
          if (RawKeyIs<"args">(k)) {
            ondemand::object a;
            if (!v.get_object().get(a))
              r.err = ParseXprofArgs(a, &args, &out_->defects, &check_);
            else
              r.Skip(v);
            return true;
          }
          return kCommonFields.Dispatch(k, v, &f, &r, &common);
        });
    if (err) return err;
    if (!any_field) return simdjson::SUCCESS;
    CommitXprof(f.ph_text, f.has_ph, f.has_cat ? f.cat_text : std::string_view(), f.has_cat,
                f.has_name ? f.name_text : std::string_view(), f.has_ts && !f.ts_invalid ? f.ts : 0,
                !f.has_ts || f.ts_invalid, f.has_dur && !f.dur_invalid ? f.dur : -1, f.key, args);
    return simdjson::SUCCESS;
  }

 private:
  void CommitXprof(std::string_view ph_text, bool has_ph, std::string_view cat, bool has_cat,
                   std::string_view name, int64_t ts, bool ts_invalid, int64_t dur,
                   const TrackKey& key, const XprofArgs& a) {
    char ph;
    uint8_t flags = CheckPhaseAndTimes(ph_text, has_ph, ts_invalid, &dur, &ph);
    const uint32_t name_id = tables_->Intern(name);
    const uint32_t track = tables_->Track(key);
    const auto row = static_cast<EventId>(out_->events.size());
    EventKind kind = EventKind::kOther;
    StringId cat_id = has_cat ? tables_->Intern(cat) : kEmptyString;
    if (ph == 'M') {
      kind = EventKind::kMetadata;
      NameRecord::Kind nk = NameRecord::kProcessName;
      bool keep = a.has_name;
      if (name == "thread_name")
        nk = NameRecord::kThreadName;
      else if (name != "process_name")
        keep = false;
      if (keep) out_->names.push_back({nk, track, tables_->Intern(a.name)});
      PushEvent(ts, dur, name_id, cat_id, track, ph, kind, flags, kNoValue, kNoValue, kNoRow);
      return;
    }
    const bool numeric_pid = key.pid_str == 0;
    if (numeric_pid && key.pid >= kXprofHostPid) {
      // A host call that carries a correlation id launched device work.
      kind = a.correlation != kNoValue ? EventKind::kRuntime : EventKind::kCpuOp;
      if (!has_cat) cat_id = host_cat_ ? host_cat_ : (host_cat_ = tables_->Intern("host"));
    } else if (numeric_pid && key.pid >= 1) {
      // Device plane: MapXprofDeviceEvents decides once the thread names are known.
      if (!has_cat) cat_id = device_cat_ ? device_cat_ : (device_cat_ = tables_->Intern("device"));
    }
    PushEvent(ts, dur, name_id, cat_id, track, ph, kind, flags, a.correlation, kNoValue, kNoRow);

    // The framework op: args.name (JAX's op_name), else tf_op unless it only
    // marks the module.
    std::string_view op_name = !a.name.empty() ? a.name : a.tf_op == "XlaModule:" ? "" : a.tf_op;
    if (a.hlo_op.empty() && a.hlo_module.empty() && a.program_id == kNoValue && op_name.empty() &&
        a.source.empty() && a.group_id == kNoValue)
      return;
    auto id = [this](std::string_view s) { return s.empty() ? kEmptyString : tables_->Intern(s); };
    XlaLabelTable& x = out_->xla_labels;
    x.event.push_back(row);
    x.hlo_op.push_back(id(a.hlo_op));
    x.hlo_module.push_back(id(a.hlo_module));
    x.program_id.push_back(a.program_id);
    x.op_name.push_back(id(op_name));
    x.source.push_back(id(a.source));
    x.group_id.push_back(a.group_id);
  }

  ValueCheck check_;
  ParsedChunk* out_;
  StringId host_cat_ = kEmptyString, device_cat_ = kEmptyString;
  std::vector<std::pair<std::string_view, double>> series_;
  ThreadTables* tables_;
  JsonArgText* arg_text_;
  std::vector<uint8_t>& cat_kind_;
};

// Text offset of element `index` of the chunk: the element after the
// index-th comma outside strings at depth 0 (error path only).
uint64_t ElementOffset(const TextChunk& chunk, int64_t index) {
  const char* t = chunk.data;
  size_t end = chunk.length - 1, pos = 1;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (int64_t commas = 0; pos < end && commas < index; ++pos) {
    char c = t[pos];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 0) {
      ++commas;
    }
  }
  while (pos < end && (t[pos] == ' ' || t[pos] == '\n' || t[pos] == '\r' || t[pos] == '\t')) ++pos;
  return chunk.text_offset + (pos - 1);
}

// Where simdjson's error `err` in `chunk` is, or null when it cannot say.
// Structural-pass errors name no position: the first byte they can be is
// found by scanning (an unescaped control character in a string, invalid
// UTF-8); later errors are near the iterator's last token (*near set).
const char* LocateError(const TextChunk& chunk, simdjson::error_code err, ondemand::document* doc,
                        bool* near) {
  const char* t = chunk.data;
  if (err == simdjson::UTF8_ERROR) {
    size_t bad = 0;
    if (!ValidUtf8(std::string_view(t, chunk.length), &bad)) return t + bad;
    return nullptr;
  }
  if (err == simdjson::UNESCAPED_CHARS) {
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < chunk.length; ++i) {
      auto c = static_cast<unsigned char>(t[i]);
      if (in_string && c < 0x20) return t + i;
      if (escaped)
        escaped = false;
      else if (in_string && c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = !in_string;
    }
    return nullptr;
  }
  const char* at = nullptr;
  if (!doc || doc->current_location().get(at)) return nullptr;
  *near = true;
  return at;
}

// Whether the parser behind `doc` holds its string buffer. simdjson 3.0's
// ondemand::parser::allocate reports success when that buffer's allocation
// failed (it checks only the stage-1 buffers), and the first unescaped string
// is then written through a null pointer: under memory pressure analyze
// crashed about once in 150 runs. The document's iterator starts at the
// buffer; it is reached through this derived type (a protected member).
struct DocumentPeek : simdjson::ondemand::document {
  static bool HasStringBuffer(simdjson::ondemand::document& doc) {
    return (doc.*(&DocumentPeek::iter)).string_buf_loc() != nullptr;
  }
};
bool HasStringBuffer(simdjson::ondemand::document& doc) {
  return DocumentPeek::HasStringBuffer(doc);
}

}  // namespace

void ChunkParser::Parse(const TextChunk& chunk, const std::string& source_name, ParsedChunk* out) {
  out->sequence = chunk.sequence;
  EventReader reader(out, &tables_, &arg_text_, &cat_kind_);
  ValueCheck& check = reader.check();
  check.text_end = chunk.data + chunk.length;
  int64_t index = 0;
  ondemand::document doc;
  bool iterating = false;  // doc holds the chunk (its iterator can say where it stopped)
  auto fail = [&](simdjson::error_code err) {
    if (err == simdjson::MEMALLOC) {  // not the text's fault: say so, not "malformed"
      out->error = source_name + ": out of memory (the system refused an allocation) while " +
                   "parsing traceEvents element #" + std::to_string(chunk.first_event + index) +
                   " at text offset " + std::to_string(ElementOffset(chunk, index));
      return;
    }
    bool near = false;
    if (!check.bad_at) check.bad_at = LocateError(chunk, err, iterating ? &doc : nullptr, &near);
    if (check.bad_at && check.bad_what.empty()) check.bad_what = simdjson::error_message(err);
    std::string where = "malformed JSON in traceEvents element #" +
                        std::to_string(chunk.first_event + index) +
                        (near ? " near text offset " : " at text offset ");
    if (check.bad_at && check.bad_at > chunk.data && check.bad_at < chunk.data + chunk.length) {
      // data[0] is the '[' put before the chunk's first element (text_offset).
      where +=
          std::to_string(chunk.text_offset + static_cast<uint64_t>(check.bad_at - chunk.data) - 1) +
          ": " + check.bad_what;
    } else {
      where += std::to_string(ElementOffset(chunk, index)) + ": " + simdjson::error_message(err);
    }
    out->error = source_name + ": " + where;
  };
  if (auto err = parser_.iterate(chunk.data, chunk.length, chunk.capacity).get(doc)) {
    if (err == simdjson::MEMALLOC) parser_ = simdjson::ondemand::parser{};  // allocate anew next
    fail(err);
    return;
  }
  if (!HasStringBuffer(doc)) {  // out of memory, reported as success: see HasStringBuffer
    parser_ = simdjson::ondemand::parser{};
    fail(simdjson::MEMALLOC);
    return;
  }
  iterating = true;
  ondemand::array arr;
  if (auto err = doc.get_array().get(arr)) {
    fail(err);
    return;
  }
  for (auto element : arr) {
    ondemand::value v;
    if (auto err = element.get(v)) {
      fail(err);
      return;
    }
    ondemand::json_type type;
    if (v.type().get(type)) type = ondemand::json_type::number;  // checked below
    ++out->defects.elements;
    if (type != ondemand::json_type::object) {
      if (auto err = SkipValue(v, &check)) {
        fail(err);
        return;
      }
      ++out->defects.non_object;
      ++index;
      continue;
    }
    ondemand::object obj;
    if (auto err = v.get_object().get(obj)) {
      fail(err);
      return;
    }
    if (auto err = chunk.xprof ? reader.ReadXprof(obj) : reader.Read(obj)) {
      fail(err);
      return;
    }
    ++index;
  }
  // Every element was read: an error inside one that simdjson did not report
  // to a getter would have ended the loop early, never silently.
  const char* stopped_at = nullptr;
  if (doc.current_location().get(stopped_at) != simdjson::OUT_OF_BOUNDS) {
    if (stopped_at) check.Malformed(stopped_at, "the events end before the chunk does");
    fail(simdjson::TAPE_ERROR);
    return;
  }
  out->defects.non_finite += check.non_finite;
  if (out->defects.first_non_finite.empty()) out->defects.first_non_finite = check.first_non_finite;
}

}  // namespace th::kineto
