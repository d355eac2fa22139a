#include "benchmarks/trace_amplifier.h"

#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

namespace th::bench {
namespace {

constexpr size_t kMaxJsonBytes = size_t{2} << 30;
constexpr size_t kFlushBytes = 8 << 20;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// ---------------------------------------------------------------------------
// Loading: whole file, gunzipped when it carries the gzip magic; the buffer
// keeps simdjson::SIMDJSON_PADDING spare bytes after `size` for a zero-copy parse.

struct Json {
  std::string buf;
  size_t size = 0;
  const char* data() const { return buf.data(); }
};

StatusOr<std::string> ReadFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return IoError("cannot open " + path);
  std::string data;
  char chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) {
    data.append(chunk, n);
    if (data.size() > kMaxJsonBytes) {
      std::fclose(f);
      return InvalidInput(path + ": larger than 2 GiB");
    }
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return IoError("cannot read " + path);
  return data;
}

StatusOr<Json> LoadJson(const std::string& path) {
  auto raw = ReadFile(path);
  if (!raw.ok()) return raw.status();
  std::string& in = *raw;
  Json json;
  const bool gz = in.size() >= 2 && static_cast<unsigned char>(in[0]) == 0x1f &&
                  static_cast<unsigned char>(in[1]) == 0x8b;
  if (!gz) {
    json.size = in.size();
    json.buf = std::move(in);
    json.buf.resize(json.size + simdjson::SIMDJSON_PADDING, ' ');
    return json;
  }
  // Size hint: ISIZE of the last member (exact for single-member files < 4 GiB).
  size_t cap = in.size() * 4;
  if (in.size() >= 18) {
    const auto* t = reinterpret_cast<const unsigned char*>(in.data() + in.size() - 4);
    cap = std::max<size_t>(
        cap, (size_t{t[0]} | size_t{t[1]} << 8 | size_t{t[2]} << 16 | size_t{t[3]} << 24) + 1);
  }
  std::unique_ptr<libdeflate_decompressor, decltype(&libdeflate_free_decompressor)> d(
      libdeflate_alloc_decompressor(), &libdeflate_free_decompressor);
  if (!d) return Internal("libdeflate_alloc_decompressor failed");
  json.buf.resize(cap + simdjson::SIMDJSON_PADDING);
  size_t in_pos = 0, out_pos = 0;
  while (in_pos < in.size()) {  // one gzip member per iteration
    if (in.size() - in_pos < 18 || static_cast<unsigned char>(in[in_pos]) != 0x1f)
      break;  // trailing junk/zeros
    size_t used_in = 0, used_out = 0;
    const libdeflate_result r = libdeflate_gzip_decompress_ex(
        d.get(), in.data() + in_pos, in.size() - in_pos, json.buf.data() + out_pos, cap - out_pos,
        &used_in, &used_out);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
      if (cap >= kMaxJsonBytes) return InvalidInput(path + ": more than 2 GiB of JSON");
      cap = std::min(cap * 2, kMaxJsonBytes);
      json.buf.resize(cap + simdjson::SIMDJSON_PADDING);
      continue;
    }
    if (r != LIBDEFLATE_SUCCESS)
      return InvalidInput(path + ": corrupt gzip data at byte " + std::to_string(in_pos));
    in_pos += used_in;
    out_pos += used_out;
  }
  json.size = out_pos;
  json.buf.resize(out_pos + simdjson::SIMDJSON_PADDING);
  std::fill(json.buf.begin() + static_cast<std::ptrdiff_t>(out_pos), json.buf.end(), ' ');
  return json;
}

// ---------------------------------------------------------------------------
// Raw scan of the (already validated) JSON text: byte ranges of the events and
// of the numbers to rewrite in each.

enum class PatchKind : uint8_t { kTs, kId, kStep };

struct Patch {
  uint32_t offset;  // from the event's first byte
  uint32_t length;
  PatchKind kind;
};

struct EventInfo {
  size_t begin = 0, end = 0;
  uint32_t first_patch = 0, patch_count = 0;
  bool once = false;        // M metadata: first copy only
  bool window_end = false;  // "Record Window End": once, after the last copy
};

struct Layout {
  size_t events_begin = 0, events_end = 0;  // [first event '{', last event '}' + 1)
  std::vector<EventInfo> events;
  std::vector<Patch> patches;
  std::string separator = ",\n  ";
  int64_t min_ts = std::numeric_limits<int64_t>::max(),
          max_end = std::numeric_limits<int64_t>::min();
  int64_t max_id = -1;
  int64_t min_step = std::numeric_limits<int64_t>::max(), max_step = -1;  // ProfilerStep#N
};

bool IsDelimiter(char c) {
  return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t' ||
         c == ':';
}

class Scanner {
 public:
  Scanner(const char* p, size_t n) : p_(p), n_(n) {}

  size_t Ws(size_t i) const {
    while (i < n_ && (p_[i] == ' ' || p_[i] == '\n' || p_[i] == '\r' || p_[i] == '\t')) ++i;
    return i;
  }
  size_t String(size_t i) const {  // at '"' -> after the closing quote
    for (++i; i < n_; ++i) {
      if (p_[i] == '\\') {
        ++i;
      } else if (p_[i] == '"') {
        return i + 1;
      }
    }
    return n_;
  }
  size_t Value(size_t i) const {
    if (i >= n_) return n_;
    if (p_[i] == '"') return String(i);
    if (p_[i] == '{' || p_[i] == '[') {
      int depth = 0;
      while (i < n_) {
        const char c = p_[i];
        if (c == '"') {
          i = String(i);
          continue;
        }
        if (c == '{' || c == '[') ++depth;
        if ((c == '}' || c == ']') && --depth == 0) return i + 1;
        ++i;
      }
      return n_;
    }
    while (i < n_ && !IsDelimiter(p_[i])) ++i;
    return i;
  }
  std::string_view Text(size_t b, size_t e) const { return {p_ + b, e - b}; }
  char At(size_t i) const { return i < n_ ? p_[i] : '\0'; }

 private:
  const char* p_;
  size_t n_;
};

// Decimal µs text -> ns (sub-ns digits truncated). False on exponents/garbage.
bool UsToNs(std::string_view t, int64_t* ns) {
  bool neg = false;
  size_t i = 0;
  if (i < t.size() && t[i] == '-') neg = true, ++i;
  int64_t whole = 0, frac = 0;
  int frac_digits = 0;
  bool any = false;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, any = true)
    whole = whole * 10 + (t[i] - '0');
  if (i < t.size() && t[i] == '.') {
    for (++i; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, any = true) {
      if (frac_digits < 3) frac = frac * 10 + (t[i] - '0'), ++frac_digits;
    }
  }
  if (!any || i != t.size()) return false;
  while (frac_digits < 3) frac *= 10, ++frac_digits;
  *ns = (neg ? -1 : 1) * (whole * 1000 + frac);
  return true;
}

bool ParseInt(std::string_view t, int64_t* v) {
  auto r = std::from_chars(t.data(), t.data() + t.size(), *v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

bool IsIdArg(std::string_view key) {
  return key == "\"correlation\"" || key == "\"External id\"" ||
         key == "\"wait_on_cuda_event_record_corr_id\"" || key == "\"Python id\"" ||
         key == "\"Python parent id\"";
}

Status ScanEvent(const Scanner& sc, size_t begin, Layout* layout, EventInfo* ev) {
  ev->begin = begin;
  ev->first_patch = static_cast<uint32_t>(layout->patches.size());
  int64_t ts = 0, dur = 0;
  bool has_ts = false;
  auto add_patch = [&](size_t b, size_t e, PatchKind kind) {
    layout->patches.push_back(
        {static_cast<uint32_t>(b - begin), static_cast<uint32_t>(e - b), kind});
  };
  size_t i = begin + 1;
  while (true) {
    i = sc.Ws(i);
    if (sc.At(i) == '}') break;
    const size_t kb = i;
    i = sc.String(i);
    const std::string_view key = sc.Text(kb, i);
    i = sc.Ws(sc.Ws(i) + 1);  // ':'
    const size_t vb = i;
    if (key == "\"args\"" && sc.At(i) == '{') {
      size_t j = i + 1;
      while (true) {
        j = sc.Ws(j);
        if (sc.At(j) == '}') break;
        const size_t akb = j;
        j = sc.String(j);
        const std::string_view akey = sc.Text(akb, j);
        j = sc.Ws(sc.Ws(j) + 1);
        const size_t avb = j;
        j = sc.Value(j);
        int64_t id;
        if (IsIdArg(akey) && ParseInt(sc.Text(avb, j), &id)) {
          if (id > 0) add_patch(avb, j, PatchKind::kId);
          layout->max_id = std::max(layout->max_id, id);
        }
        j = sc.Ws(j);
        if (sc.At(j) == ',') ++j;
      }
      i = j + 1;
    } else {
      i = sc.Value(i);
      const std::string_view value = sc.Text(vb, i);
      if (key == "\"ph\"") {
        ev->once = value == "\"M\"";
      } else if (key == "\"name\"") {
        ev->window_end = value == "\"Record Window End\"";
        constexpr std::string_view kStep = "\"ProfilerStep#";
        int64_t step;
        if (value.size() > kStep.size() + 1 && value.substr(0, kStep.size()) == kStep &&
            ParseInt(value.substr(kStep.size(), value.size() - kStep.size() - 1), &step)) {
          add_patch(vb + kStep.size(), i - 1, PatchKind::kStep);
          layout->min_step = std::min(layout->min_step, step);
          layout->max_step = std::max(layout->max_step, step);
        }
      } else if (key == "\"ts\"") {
        if (!UsToNs(value, &ts)) return InvalidInput("unsupported ts value " + std::string(value));
        has_ts = true;
        add_patch(vb, i, PatchKind::kTs);
      } else if (key == "\"dur\"") {
        if (!UsToNs(value, &dur)) dur = 0;
      } else if (key == "\"id\"") {
        int64_t id;
        if (ParseInt(value, &id)) {
          if (id > 0) add_patch(vb, i, PatchKind::kId);
          layout->max_id = std::max(layout->max_id, id);
        }
      }
    }
    i = sc.Ws(i);
    if (sc.At(i) == ',') ++i;
  }
  ev->end = i + 1;
  ev->patch_count = static_cast<uint32_t>(layout->patches.size()) - ev->first_patch;
  if (ev->window_end) ev->once = false;
  if (has_ts && !ev->once && !ev->window_end) {
    layout->min_ts = std::min(layout->min_ts, ts);
    layout->max_end = std::max(layout->max_end, ts + std::max<int64_t>(dur, 0));
  }
  return Ok();
}

StatusOr<Layout> ScanLayout(const Json& json, const std::string& path) {
  const Scanner sc(json.data(), json.size);
  Layout layout;
  size_t i = sc.Ws(0);
  if (sc.At(i) != '{') return InvalidInput(path + ": top level is not an object");
  ++i;
  bool found = false;
  while (true) {
    i = sc.Ws(i);
    if (sc.At(i) == '}' || i >= json.size) break;
    const size_t kb = i;
    i = sc.String(i);
    const std::string_view key = sc.Text(kb, i);
    i = sc.Ws(sc.Ws(i) + 1);
    if (key == "\"traceEvents\"" && sc.At(i) == '[') {
      found = true;
      ++i;
      while (true) {
        i = sc.Ws(i);
        if (sc.At(i) == ']' || i >= json.size) break;
        if (sc.At(i) != '{') return InvalidInput(path + ": traceEvents element is not an object");
        EventInfo ev;
        TH_RETURN_IF_ERROR(ScanEvent(sc, i, &layout, &ev));
        if (layout.events.size() == 1)
          layout.separator = std::string(sc.Text(layout.events[0].end, ev.begin));
        layout.events.push_back(ev);
        i = sc.Ws(ev.end);
        if (sc.At(i) == ',') ++i;
      }
      ++i;
    } else {
      i = sc.Value(i);
    }
    i = sc.Ws(i);
    if (sc.At(i) == ',') ++i;
  }
  if (!found) return InvalidInput(path + ": no traceEvents array");
  if (layout.events.empty()) return InvalidInput(path + ": traceEvents is empty");
  layout.events_begin = layout.events.front().begin;
  layout.events_end = layout.events.back().end;
  if (layout.min_ts > layout.max_end) layout.min_ts = layout.max_end = 0;
  return layout;
}

// ---------------------------------------------------------------------------
// Output sinks.

class Sink {
 public:
  virtual ~Sink() = default;
  virtual Status Write(const char* data, size_t size) = 0;
  virtual Status Close() = 0;
  int64_t file_bytes = 0;
};

class FileSink : public Sink {
 public:
  static StatusOr<std::unique_ptr<Sink>> Open(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return IoError("cannot open " + path + " for writing");
    return std::unique_ptr<Sink>(new FileSink(f, path));
  }
  ~FileSink() override {
    if (f_ != nullptr) std::fclose(f_);
  }
  Status Write(const char* data, size_t size) override {
    if (std::fwrite(data, 1, size, f_) != size) return IoError("cannot write " + path_);
    file_bytes += static_cast<int64_t>(size);
    return Ok();
  }
  Status Close() override {
    const int rc = std::fclose(f_);
    f_ = nullptr;
    return rc == 0 ? Ok() : IoError("cannot write " + path_);
  }

 protected:
  FileSink(std::FILE* f, std::string path) : f_(f), path_(std::move(path)) {}
  std::FILE* f_;
  std::string path_;
};

// Streaming gzip (one member) through ISA-L's igzip.
class GzipSink : public Sink {
 public:
  static StatusOr<std::unique_ptr<Sink>> Open(const std::string& path, int level) {
    auto file = FileSink::Open(path);
    if (!file.ok()) return file.status();
    if (level < 0 || level > 3) return InvalidInput("gzip level must be 0..3");
    return std::unique_ptr<Sink>(new GzipSink(std::move(*file), level));
  }
  Status Write(const char* data, size_t size) override {
    stream_.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(data));
    stream_.avail_in = static_cast<uint32_t>(size);
    return Pump(false);
  }
  Status Close() override {
    stream_.next_in = nullptr;
    stream_.avail_in = 0;
    TH_RETURN_IF_ERROR(Pump(true));
    TH_RETURN_IF_ERROR(file_->Close());
    file_bytes = file_->file_bytes;
    return Ok();
  }

 private:
  GzipSink(std::unique_ptr<Sink> file, int level) : file_(std::move(file)), out_(1 << 20) {
    isal_deflate_init(&stream_);
    stream_.gzip_flag = IGZIP_GZIP;
    stream_.level = static_cast<uint32_t>(level);
    static constexpr uint32_t kLevelBuf[] = {0, ISAL_DEF_LVL1_DEFAULT, ISAL_DEF_LVL2_DEFAULT,
                                             ISAL_DEF_LVL3_DEFAULT};
    level_buf_.resize(kLevelBuf[level]);
    stream_.level_buf = level_buf_.empty() ? nullptr : level_buf_.data();
    stream_.level_buf_size = kLevelBuf[level];
  }
  Status Pump(bool finish) {
    stream_.end_of_stream = finish ? 1 : 0;
    stream_.flush = NO_FLUSH;
    do {
      stream_.next_out = out_.data();
      stream_.avail_out = static_cast<uint32_t>(out_.size());
      if (isal_deflate(&stream_) != COMP_OK) return Internal("isal_deflate failed");
      TH_RETURN_IF_ERROR(file_->Write(reinterpret_cast<const char*>(out_.data()),
                                      out_.size() - stream_.avail_out));
    } while (stream_.avail_out == 0 || stream_.avail_in > 0 ||
             (finish && stream_.internal_state.state != ZSTATE_END));
    return Ok();
  }

  std::unique_ptr<Sink> file_;
  isal_zstream stream_{};
  std::vector<uint8_t> level_buf_;
  std::vector<uint8_t> out_;
};

// ---------------------------------------------------------------------------
// Number rewriting.

using Int128 = __int128;

void AppendInt128(std::string& b, Int128 v, int min_digits) {
  char tmp[48];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v > 0 || n < min_digits);
  while (n > 0) b += tmp[--n];
}

// ts + shift_ns, keeping the source's decimal count when the shift allows.
void AppendShiftedTs(std::string& b, std::string_view t, int64_t shift_ns) {
  if (shift_ns == 0) {
    b.append(t);
    return;
  }
  bool neg = false;
  size_t i = 0;
  if (t[0] == '-') neg = true, ++i;
  Int128 units = 0;
  int digits = 0;
  for (; i < t.size() && t[i] != '.'; ++i) units = units * 10 + (t[i] - '0');
  if (i < t.size()) {
    for (++i; i < t.size(); ++i, ++digits) units = units * 10 + (t[i] - '0');
  }
  if (neg) units = -units;
  static constexpr int64_t kPow10[] = {1, 10, 100, 1000};
  if (digits < 3 && shift_ns % kPow10[3 - digits] != 0) {  // widen to ns
    units *= kPow10[3 - digits];
    digits = 3;
  }
  Int128 shift = shift_ns;
  if (digits <= 3) {
    shift /= kPow10[3 - digits];
  } else {
    for (int d = 3; d < digits; ++d) shift *= 10;
  }
  Int128 v = units + shift;
  if (v < 0) {
    b += '-';
    v = -v;
  }
  Int128 scale = 1;
  for (int d = 0; d < digits; ++d) scale *= 10;
  AppendInt128(b, v / scale, 1);
  if (digits > 0) {
    b += '.';
    AppendInt128(b, v % scale, digits);
  }
}

class Amplifier {
 public:
  Amplifier(const Json& json, const Layout& layout, Sink* sink)
      : json_(json), layout_(layout), sink_(sink) {
    buf_.reserve(kFlushBytes + (1 << 20));
  }

  Status Append(std::string_view s) {
    buf_.append(s);
    return buf_.size() >= kFlushBytes ? Flush() : Ok();
  }
  Status Flush() {
    written_ += static_cast<int64_t>(buf_.size());
    TH_RETURN_IF_ERROR(sink_->Write(buf_.data(), buf_.size()));
    buf_.clear();
    return Ok();
  }
  int64_t written() const { return written_ + static_cast<int64_t>(buf_.size()); }

  Status Event(const EventInfo& ev, int64_t shift_ns, int64_t id_offset, int64_t step_offset) {
    if (events_ > 0) buf_.append(layout_.separator);
    ++events_;
    const char* base = json_.data() + ev.begin;
    size_t pos = 0;
    for (uint32_t p = 0; p < ev.patch_count; ++p) {
      const Patch& patch = layout_.patches[ev.first_patch + p];
      buf_.append(base + pos, patch.offset - pos);
      const std::string_view token(base + patch.offset, patch.length);
      if (patch.kind == PatchKind::kTs) {
        AppendShiftedTs(buf_, token, shift_ns);
      } else {
        int64_t v = 0;
        ParseInt(token, &v);
        char tmp[24];
        auto r = std::to_chars(tmp, tmp + sizeof(tmp),
                               v + (patch.kind == PatchKind::kId ? id_offset : step_offset));
        buf_.append(tmp, r.ptr);
      }
      pos = patch.offset + patch.length;
    }
    buf_.append(base + pos, ev.end - ev.begin - pos);
    return buf_.size() >= kFlushBytes ? Flush() : Ok();
  }
  int64_t events() const { return events_; }

 private:
  const Json& json_;
  const Layout& layout_;
  Sink* sink_;
  std::string buf_;
  int64_t written_ = 0;
  int64_t events_ = 0;
};

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

StatusOr<AmplifyStats> AmplifyKinetoTrace(const std::string& input, const std::string& output,
                                          const AmplifyOptions& options) {
  if (options.repetitions < 0 || options.target_bytes < 0 || options.gap_ns < 0)
    return InvalidInput("amplify: negative repetitions, size or gap");
  AmplifyStats stats;
  const auto load_start = std::chrono::steady_clock::now();
  auto json = LoadJson(input);
  if (!json.ok()) return json.status();
  {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (auto err = parser.parse(json->data(), json->size, false).get(root); err)
      return InvalidInput(input + ": invalid JSON: " + simdjson::error_message(err));
    simdjson::dom::array events;
    if (root["traceEvents"].get(events) != simdjson::SUCCESS)
      return InvalidInput(input + ": not a Chrome trace object with a traceEvents array");
  }
  auto layout = ScanLayout(*json, input);
  if (!layout.ok()) return layout.status();
  stats.load_seconds = Seconds(load_start);

  const Layout& lay = *layout;
  stats.source_bytes = static_cast<int64_t>(json->size);
  stats.source_events = static_cast<int64_t>(lay.events.size());
  int64_t repeated_events = 0, repeated_bytes = 0, once_bytes = 0;
  for (const EventInfo& ev : lay.events) {
    const int64_t bytes = static_cast<int64_t>(ev.end - ev.begin + lay.separator.size());
    if (ev.once || ev.window_end) {
      ++stats.metadata_events;
      once_bytes += bytes;
    } else {
      ++repeated_events;
      repeated_bytes += bytes;
    }
  }
  if (repeated_events > 0)
    stats.source_repeated_bytes_per_event = static_cast<double>(repeated_bytes) / repeated_events;
  stats.source_bytes_per_event = static_cast<double>(lay.events_end - lay.events_begin) /
                                 static_cast<double>(lay.events.size());
  stats.period_ns = lay.max_end - lay.min_ts + options.gap_ns;
  stats.id_stride = lay.max_id + 1;
  stats.step_stride = lay.max_step >= 0 ? lay.max_step - lay.min_step + 1 : 0;

  const auto write_start = std::chrono::steady_clock::now();
  auto sink =
      EndsWith(output, ".gz") ? GzipSink::Open(output, options.gzip_level) : FileSink::Open(output);
  if (!sink.ok()) return sink.status();
  Amplifier amp(*json, lay, sink->get());
  const std::string_view prefix(json->data(), lay.events_begin);
  const std::string_view suffix(json->data() + lay.events_end, json->size - lay.events_end);
  int64_t tail_bytes = static_cast<int64_t>(suffix.size());
  for (const EventInfo& ev : lay.events)
    if (ev.window_end) tail_bytes += static_cast<int64_t>(ev.end - ev.begin + lay.separator.size());

  TH_RETURN_IF_ERROR(amp.Append(prefix));
  int64_t k = 0;
  for (;; ++k) {
    for (const EventInfo& ev : lay.events) {
      if (ev.window_end || (ev.once && k > 0)) continue;
      TH_RETURN_IF_ERROR(
          amp.Event(ev, k * stats.period_ns, k * stats.id_stride, k * stats.step_stride));
    }
    if (options.repetitions > 0
            ? k + 1 >= options.repetitions
            : amp.written() + tail_bytes >= options.target_bytes || repeated_events == 0)
      break;
  }
  stats.repetitions = k + 1;
  for (const EventInfo& ev : lay.events)
    if (ev.window_end)
      TH_RETURN_IF_ERROR(
          amp.Event(ev, k * stats.period_ns, k * stats.id_stride, k * stats.step_stride));
  TH_RETURN_IF_ERROR(amp.Append(suffix));
  TH_RETURN_IF_ERROR(amp.Flush());
  TH_RETURN_IF_ERROR((*sink)->Close());
  stats.events_written = amp.events();
  stats.bytes_written = amp.written();
  stats.file_bytes = (*sink)->file_bytes;
  stats.output_bytes_per_event =
      static_cast<double>(stats.bytes_written -
                          static_cast<int64_t>(prefix.size() + suffix.size())) /
      static_cast<double>(std::max<int64_t>(1, stats.events_written));
  if (repeated_events > 0) {
    const int64_t events_bytes =
        stats.bytes_written - static_cast<int64_t>(prefix.size() + suffix.size());
    stats.output_repeated_bytes_per_event =
        static_cast<double>(events_bytes + static_cast<int64_t>(lay.separator.size()) -
                            once_bytes) /
        static_cast<double>(repeated_events * stats.repetitions);
  }
  stats.write_seconds = Seconds(write_start);
  return stats;
}

StatusOr<AmplifyStats> AmplifyKinetoTrace(const std::string& input, const std::string& output,
                                          int64_t target_bytes) {
  AmplifyOptions options;
  options.target_bytes = target_bytes;
  return AmplifyKinetoTrace(input, output, options);
}

StatusOr<int64_t> ParseByteSize(std::string_view text) {
  const std::string original(text);
  int64_t value = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), value);
  if (r.ec != std::errc() || value < 0) return InvalidInput("bad size '" + original + "'");
  std::string_view unit(r.ptr, static_cast<size_t>(text.data() + text.size() - r.ptr));
  if (unit.size() >= 2 && unit.substr(unit.size() - 2) == "iB")
    unit.remove_suffix(2);
  else if (unit.size() >= 2 && (unit.back() == 'B' || unit.back() == 'b'))
    unit.remove_suffix(1);
  int shift = 0;
  if (unit.empty() || unit == "B" || unit == "b") {
    shift = 0;
  } else if (unit.size() == 1) {
    switch (unit[0]) {
      case 'k':
      case 'K':
        shift = 10;
        break;
      case 'm':
      case 'M':
        shift = 20;
        break;
      case 'g':
      case 'G':
        shift = 30;
        break;
      case 't':
      case 'T':
        shift = 40;
        break;
      default:
        return InvalidInput("bad size unit in '" + original + "'");
    }
  } else {
    return InvalidInput("bad size unit in '" + original + "'");
  }
  if (value > (std::numeric_limits<int64_t>::max() >> shift))
    return InvalidInput("size too large: " + original);
  return value << shift;
}

}  // namespace th::bench
