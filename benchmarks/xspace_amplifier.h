// XSpace amplifier: makes a big `.xplane.pb` out of a real one, for ingest
// benchmarks. Header-only so that the reader tests can check it against the
// strict reader without another library.
//
// The source is walked in its own wire format and written back by a small
// hand-written encoder (no libprotobuf). Everything is copied byte for byte —
// the XSpace's hostnames/errors/warnings, every plane's id, name, event and
// stat metadata and plane stats, every line's ids, names and timestamp — except
// the lines' events, which are written K times: copy j has offset_ps shifted by
// j * period, where period = the span of all timed events of the whole space
// (earliest begin to latest end, across lines, from each line's
// timestamp_ns) + a gap, rounded up to whole ns. So copy j of every line starts
// after copy j-1 of every line has ended, and host/device order across lines
// is kept. Events with num_occurrences (aggregates, no offset) are repeated
// unchanged. An event with neither offset_ps nor num_occurrences (offset 0)
// gets an explicit offset_ps in copies j > 0. A line's duration_ps, when
// present, grows by (K-1) * period. Event stats keep their metadata ids and
// values, except `correlation_id` stats (int/uint values > 0), which are offset
// by j * (largest correlation id + 1) so launch/kernel links stay unique per
// copy, as th_amplify does for Kineto. The output re-reads with
// th::xspace::ReadXSpace and holds exactly K times the source's events.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/graph/status.h"
#include "core/import/xspace/wire_reader.h"
#include "core/import/xspace/xspace_reader.h"

namespace th::bench {

struct XSpaceAmplifyOptions {
  int64_t target_bytes = 0;           // repeat until the output is about this big (>= 1 copy)
  int64_t repetitions = 0;            // > 0: exactly this many copies; target_bytes is ignored
  int64_t gap_ps = 1'000'000'000;     // idle time between copies (1 ms)
  bool shift_correlation_ids = true;  // offset correlation_id stats per copy
};

struct XSpaceAmplifyStats {
  int64_t source_bytes = 0;
  int64_t source_events = 0;
  int64_t source_event_bytes = 0;  // bytes of the lines' event fields (tag + length + payload)
  int64_t repetitions = 0;
  int64_t events_written = 0;
  int64_t bytes_written = 0;
  int64_t period_ps = 0;           // offset shift between consecutive copies
  int64_t correlation_stride = 0;  // correlation_id shift between copies (0: none shifted)
};

namespace xspace_wire {

inline size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}
inline void PutVarint(std::string* out, uint64_t v) {
  char buf[10];
  size_t n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  out->append(buf, n);
}
inline void PutTag(std::string* out, uint64_t field, uint8_t wire_type) {
  PutVarint(out, (field << 3) | wire_type);
}
inline void PutLen(std::string* out, uint64_t field, std::string_view payload) {
  PutTag(out, field, xspace::kLengthDelimited);
  PutVarint(out, payload.size());
  out->append(payload);
}
inline size_t LenFieldSize(uint64_t field, uint64_t payload) {
  return VarintSize(field << 3) + VarintSize(payload) + payload;
}

}  // namespace xspace_wire

namespace xspace_amplify_detail {

using xspace::WireField;
using xspace::WireReader;
using namespace xspace_wire;

struct PlaneInfo {
  std::unordered_set<int64_t> correlation_ids;  // stat-metadata ids named correlation_id
};

class Amplifier {
 public:
  Amplifier(std::string_view src, int64_t k, int64_t period_ps, int64_t corr_stride,
            std::vector<PlaneInfo> planes)
      : src_(src),
        k_(k),
        period_(period_ps),
        corr_stride_(corr_stride),
        planes_(std::move(planes)) {}

  // Writes the whole output through sink(std::string_view); returns bytes written.
  template <typename Sink>
  int64_t Write(Sink&& sink) {
    std::string buf;
    int64_t total = 0;
    auto flush = [&](bool force) {
      if (buf.size() >= (8u << 20) || (force && !buf.empty())) {
        sink(std::string_view(buf));
        total += static_cast<int64_t>(buf.size());
        buf.clear();
      }
    };
    WireReader r(src_, src_);
    WireField f;
    size_t plane = 0;
    while (r.Next(&f)) {
      if (f.number == 1 && f.wire_type == xspace::kLengthDelimited) {
        const PlaneInfo& pi = planes_[plane++];
        PutTag(&buf, 1, xspace::kLengthDelimited);
        line_sizes_.clear();
        PutVarint(&buf, PlaneSize(f.bytes, pi));
        WritePlane(f.bytes, pi, &buf, flush);
      } else {
        buf.append(Raw(f, r));
      }
      flush(false);
    }
    flush(true);
    return total;
  }

  // Bytes of the events of one copy (j) over the whole space.
  uint64_t CopyBytes(int64_t j) {
    uint64_t n = 0;
    ForEachLine([&](std::string_view line, const PlaneInfo& pi) {
      WireReader r(src_, line);
      WireField f;
      while (r.Next(&f)) {
        if (f.number == 4 && f.wire_type == xspace::kLengthDelimited) {
          scratch_.clear();
          EncodeEvent(f.bytes, pi, j, &scratch_);
          n += LenFieldSize(4, scratch_.size());
        }
      }
    });
    return n;
  }

 private:
  std::string_view Raw(const WireField& f, const WireReader& r) const {
    return src_.substr(f.tag_offset, r.offset() - f.tag_offset);
  }

  template <typename Fn>
  void ForEachLine(Fn&& fn) {
    WireReader r(src_, src_);
    WireField f;
    size_t plane = 0;
    while (r.Next(&f)) {
      if (f.number != 1 || f.wire_type != xspace::kLengthDelimited) continue;
      const PlaneInfo& pi = planes_[plane++];
      WireReader pr(src_, f.bytes);
      WireField pf;
      while (pr.Next(&pf))
        if (pf.number == 3 && pf.wire_type == xspace::kLengthDelimited) fn(pf.bytes, pi);
    }
  }

  // Appends copy j of one event's payload to *out.
  void EncodeEvent(std::string_view ev, const PlaneInfo& pi, int64_t j, std::string* out) {
    // Which of offset_ps (2) / num_occurrences (5) was set last decides.
    bool aggregated = false;
    {
      WireReader r(src_, ev);
      WireField f;
      while (r.Next(&f)) {
        if (f.wire_type != xspace::kVarint) continue;
        if (f.number == 2) aggregated = false;
        if (f.number == 5) aggregated = true;
      }
    }
    const int64_t shift = aggregated ? 0 : j * period_;
    const int64_t corr_add = j * corr_stride_;
    bool has_offset = false;
    WireReader r(src_, ev);
    WireField f;
    while (r.Next(&f)) {
      if (f.number == 2 && f.wire_type == xspace::kVarint && !aggregated) {
        has_offset = true;
        PutTag(out, 2, xspace::kVarint);
        PutVarint(out, static_cast<uint64_t>(static_cast<int64_t>(f.value) + shift));
      } else if (f.number == 4 && f.wire_type == xspace::kLengthDelimited && corr_add != 0 &&
                 !pi.correlation_ids.empty()) {
        stat_.clear();
        if (ShiftStat(f.bytes, pi, corr_add, &stat_)) {
          PutLen(out, 4, stat_);
        } else {
          out->append(Raw(f, r));
        }
      } else {
        out->append(Raw(f, r));
      }
    }
    if (!aggregated && !has_offset && shift != 0) {
      PutTag(out, 2, xspace::kVarint);
      PutVarint(out, static_cast<uint64_t>(shift));
    }
  }

  // Re-encodes a correlation_id stat with its value + add into *out; false
  // when the stat is something else (then it is copied as is).
  bool ShiftStat(std::string_view st, const PlaneInfo& pi, int64_t add, std::string* out) {
    bool corr = false;
    {
      WireReader r(src_, st);
      WireField f;
      while (r.Next(&f))
        if (f.number == 1 && f.wire_type == xspace::kVarint)
          corr = pi.correlation_ids.count(static_cast<int64_t>(f.value)) != 0;
    }
    if (!corr) return false;
    WireReader r(src_, st);
    WireField f;
    while (r.Next(&f)) {
      if ((f.number == 3 || f.number == 4) && f.wire_type == xspace::kVarint &&
          static_cast<int64_t>(f.value) > 0) {
        PutTag(out, f.number, xspace::kVarint);
        PutVarint(out, static_cast<uint64_t>(static_cast<int64_t>(f.value) + add));
      } else {
        out->append(Raw(f, r));
      }
    }
    return true;
  }

  uint64_t LineSize(std::string_view line, const PlaneInfo& pi) {
    uint64_t n = 0;
    WireReader r(src_, line);
    WireField f;
    while (r.Next(&f)) {
      if (f.number == 4 && f.wire_type == xspace::kLengthDelimited) {
        for (int64_t j = 0; j < k_; ++j) {
          scratch_.clear();
          EncodeEvent(f.bytes, pi, j, &scratch_);
          n += LenFieldSize(4, scratch_.size());
        }
      } else if (f.number == 9 && f.wire_type == xspace::kVarint) {
        n += 1 + VarintSize(LineDuration(f.value));
      } else {
        n += r.offset() - f.tag_offset;
      }
    }
    return n;
  }

  uint64_t LineDuration(uint64_t d) const {
    return static_cast<uint64_t>(static_cast<int64_t>(d) + (k_ - 1) * period_);
  }

  uint64_t PlaneSize(std::string_view plane, const PlaneInfo& pi) {
    uint64_t n = 0;
    WireReader r(src_, plane);
    WireField f;
    while (r.Next(&f)) {
      if (f.number == 3 && f.wire_type == xspace::kLengthDelimited) {
        line_sizes_.push_back(LineSize(f.bytes, pi));  // WritePlane uses them in order
        n += LenFieldSize(3, line_sizes_.back());
      } else {
        n += r.offset() - f.tag_offset;
      }
    }
    return n;
  }

  template <typename Flush>
  void WritePlane(std::string_view plane, const PlaneInfo& pi, std::string* buf, Flush& flush) {
    size_t line = 0;
    WireReader r(src_, plane);
    WireField f;
    while (r.Next(&f)) {
      if (f.number != 3 || f.wire_type != xspace::kLengthDelimited) {
        buf->append(Raw(f, r));
        continue;
      }
      PutTag(buf, 3, xspace::kLengthDelimited);
      PutVarint(buf, line_sizes_[line++]);
      // Non-event fields first in their order, events copy-major after each
      // run: fields are written where they stand; all K copies of the events
      // go where the line's first event stood.
      WireReader lr(src_, f.bytes);
      WireField lf;
      bool events_done = false;
      while (lr.Next(&lf)) {
        if (lf.number == 4 && lf.wire_type == xspace::kLengthDelimited) {
          if (events_done) continue;
          events_done = true;
          for (int64_t j = 0; j < k_; ++j) {
            WireReader er(src_, f.bytes);
            WireField ef;
            while (er.Next(&ef)) {
              if (ef.number != 4 || ef.wire_type != xspace::kLengthDelimited) continue;
              scratch_.clear();
              EncodeEvent(ef.bytes, pi, j, &scratch_);
              PutLen(buf, 4, scratch_);
              flush(false);
            }
          }
        } else if (lf.number == 9 && lf.wire_type == xspace::kVarint) {
          PutTag(buf, 9, xspace::kVarint);
          PutVarint(buf, LineDuration(lf.value));
        } else {
          buf->append(Raw(lf, lr));
        }
      }
      flush(false);
    }
  }

  std::string_view src_;
  int64_t k_, period_, corr_stride_;
  std::vector<PlaneInfo> planes_;
  std::string scratch_, stat_;
  std::vector<uint64_t> line_sizes_;  // of the plane being written
};

}  // namespace xspace_amplify_detail

// Amplifies the XSpace `src` (the bytes of a whole .xplane.pb) and hands the
// output to sink(std::string_view) in pieces of about 8 MiB. The source is
// first decoded with the strict reader; a source it refuses is refused here.
template <typename Sink>
th::StatusOr<XSpaceAmplifyStats> AmplifyXSpace(std::string_view src,
                                               const XSpaceAmplifyOptions& options, Sink&& sink) {
  using namespace xspace_amplify_detail;
  auto data = xspace::ReadXSpace(src, "source");
  if (!data.ok()) return data.status();
  if (options.gap_ps < 0) return th::InvalidInput("gap must be >= 0");
  XSpaceAmplifyStats stats;
  stats.source_bytes = static_cast<int64_t>(src.size());
  stats.source_events = static_cast<int64_t>(data->EventsTotal());

  // Span of all timed events, in ps relative to the earliest line timestamp.
  int64_t min_ts = INT64_MAX;
  for (const xspace::Plane& p : data->planes)
    for (const xspace::Line& l : p.lines)
      if (!l.events.empty()) min_ts = std::min(min_ts, l.timestamp_ns);
  __int128 lo = 0, hi = 0;
  bool any = false;
  int64_t max_corr = 0;
  std::vector<PlaneInfo> planes(data->planes.size());
  for (size_t pi = 0; pi < data->planes.size(); ++pi) {
    const xspace::Plane& p = data->planes[pi];
    if (options.shift_correlation_ids)
      for (const xspace::StatMetadata& m : p.stat_metadata)
        if (m.name == "correlation_id") planes[pi].correlation_ids.insert(m.key);
    for (const xspace::Line& l : p.lines) {
      for (const xspace::Event& e : l.events) {
        for (const xspace::Stat& s : p.StatsOf(e))
          if (planes[pi].correlation_ids.count(s.metadata_id) &&
              (s.kind == xspace::StatKind::kInt64 || s.kind == xspace::StatKind::kUint64))
            max_corr = std::max(max_corr, s.int64_value());
        if (e.has_num_occurrences) continue;
        __int128 b = static_cast<__int128>(l.timestamp_ns - min_ts) * 1000 + e.offset_ps;
        __int128 en = b + e.duration_ps;
        if (!any) lo = b, hi = en, any = true;
        lo = std::min(lo, b);
        hi = std::max({hi, en, b});
      }
    }
  }
  __int128 period = (hi - lo) + options.gap_ps;
  period = std::max<__int128>(1000, (period + 999) / 1000 * 1000);
  if (period > INT64_MAX / 4) return th::InvalidInput("source time span too large to repeat");
  stats.period_ps = static_cast<int64_t>(period);
  stats.correlation_stride = max_corr > 0 ? max_corr + 1 : 0;

  Amplifier probe(src, 1, stats.period_ps, stats.correlation_stride, planes);
  stats.source_event_bytes = static_cast<int64_t>(probe.CopyBytes(0));
  int64_t k = options.repetitions;
  if (k <= 0) {
    const int64_t fixed = stats.source_bytes - stats.source_event_bytes;
    const double want = static_cast<double>(std::max<int64_t>(0, options.target_bytes - fixed));
    double per = static_cast<double>(std::max<int64_t>(1, stats.source_event_bytes));
    k = std::max<int64_t>(1, static_cast<int64_t>(want / per));
    per = static_cast<double>(std::max<uint64_t>(1, probe.CopyBytes(k / 2)));  // shifted varints
    k = std::max<int64_t>(1, std::llround(want / per));
  }
  if (static_cast<__int128>(k) * period > INT64_MAX / 2 ||
      (stats.correlation_stride > 0 &&
       static_cast<__int128>(k) * stats.correlation_stride > INT64_MAX / 2))
    return th::InvalidInput("too many repetitions: shifted values would overflow int64");
  stats.repetitions = k;
  stats.events_written = k * stats.source_events;
  Amplifier amp(src, k, stats.period_ps, stats.correlation_stride, std::move(planes));
  stats.bytes_written = amp.Write(sink);
  return stats;
}

// The same into a file; then re-reads the output with the strict reader and
// checks it holds exactly K times the source's events, line by line.
inline th::StatusOr<XSpaceAmplifyStats> AmplifyXSpaceFile(const std::string& input,
                                                          const std::string& output,
                                                          const XSpaceAmplifyOptions& options,
                                                          bool verify = true) {
  std::string src;
  {
    std::FILE* f = std::fopen(input.c_str(), "rb");
    if (!f) return th::IoError("cannot open " + input);
    char chunk[1 << 16];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) src.append(chunk, n);
    std::fclose(f);
  }
  std::FILE* out = std::fopen(output.c_str(), "wb");
  if (!out) return th::IoError("cannot create " + output);
  bool write_failed = false;
  auto stats = AmplifyXSpace(src, options, [&](std::string_view piece) {
    if (std::fwrite(piece.data(), 1, piece.size(), out) != piece.size()) write_failed = true;
  });
  if (std::fclose(out) != 0) write_failed = true;
  if (!stats.ok()) return stats.status();
  if (write_failed) return th::IoError("cannot write " + output);
  if (!verify) return stats;
  auto a = xspace::ReadXSpace(src, input);
  auto b = xspace::ReadXSpaceFile(output);
  if (!b.ok()) return th::Internal("amplified output does not re-read: " + b.status().message());
  const int64_t k = stats->repetitions;
  if (static_cast<int64_t>(b->EventsTotal()) != k * static_cast<int64_t>(a->EventsTotal()) ||
      b->planes.size() != a->planes.size())
    return th::Internal("amplified output does not hold K times the source's events");
  for (size_t p = 0; p < a->planes.size(); ++p) {
    if (a->planes[p].lines.size() != b->planes[p].lines.size())
      return th::Internal("amplified output changed the lines of a plane");
    for (size_t l = 0; l < a->planes[p].lines.size(); ++l)
      if (b->planes[p].lines[l].events.size() != k * a->planes[p].lines[l].events.size())
        return th::Internal("amplified output: a line does not hold K times its events");
  }
  return stats;
}

}  // namespace th::bench
