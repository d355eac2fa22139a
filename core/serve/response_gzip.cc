#include "core/serve/response_gzip.h"

#include <isa-l/igzip_lib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace th::serve {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
  return true;
}

// q=0 (or 0.0, 0.00, 0.000) among an entry's parameters.
bool RefusedByQuality(std::string_view params) {
  while (!params.empty()) {
    const size_t semi = params.find(';');
    std::string_view p = Trim(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view() : params.substr(semi + 1);
    if (p.size() >= 2 && (p[0] | 0x20) == 'q' && p[1] == '=') {
      std::string_view v = Trim(p.substr(2));
      if (v.empty() || v[0] != '0') return false;
      for (char c : v.substr(1))
        if (c != '.' && c != '0') return false;
      return true;
    }
  }
  return false;
}

// `body` gzipped with isa-l at level 1; false on an isa-l error.
bool Gzip(const std::string& body, std::string* out) {
  isal_zstream z;
  isal_deflate_init(&z);
  std::vector<uint8_t> level_buf(ISAL_DEF_LVL1_DEFAULT);
  z.gzip_flag = IGZIP_GZIP;
  z.level = 1;
  z.level_buf = level_buf.data();
  z.level_buf_size = static_cast<uint32_t>(level_buf.size());
  z.end_of_stream = 1;
  z.flush = NO_FLUSH;
  z.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(body.data()));
  z.avail_in = static_cast<uint32_t>(body.size());
  // Stored blocks at worst: the input, 5 bytes per 64 KiB and the gzip framing.
  out->resize(body.size() + body.size() / 16384 * 5 + 1024);
  z.next_out = reinterpret_cast<uint8_t*>(out->data());
  z.avail_out = static_cast<uint32_t>(out->size());
  if (isal_deflate(&z) != COMP_OK || z.internal_state.state != ZSTATE_END) return false;
  out->resize(out->size() - z.avail_out);
  return true;
}

bool HasHeader(const HttpResponse& r, std::string_view name) {
  for (const auto& [n, v] : r.headers)
    if (IEquals(n, name)) return true;
  return false;
}

}  // namespace

bool AcceptsGzip(std::string_view accept_encoding) {
  bool wildcard = false, gzip = false, gzip_refused = false;
  while (!accept_encoding.empty()) {
    const size_t comma = accept_encoding.find(',');
    std::string_view entry = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    const size_t semi = entry.find(';');
    const std::string_view coding = Trim(entry.substr(0, semi));
    const bool refused = semi != std::string_view::npos && RefusedByQuality(entry.substr(semi + 1));
    if (IEquals(coding, "gzip") || IEquals(coding, "x-gzip")) {
      gzip = !refused;
      gzip_refused = refused;
    } else if (coding == "*") {
      wildcard = !refused;
    }
  }
  return gzip || (wildcard && !gzip_refused);
}

void GzipIfWorthIt(const HttpRequest& request, HttpResponse* r) {
  if (r->status != 200 || r->body.size() < kMinGzipBytes || request.method != "GET") return;
  if (r->content_type != "application/octet-stream") return;  // httplib compresses text and JSON
  if (HasHeader(*r, "ETag") || HasHeader(*r, "Content-Encoding")) return;
  r->headers.push_back({"Vary", "Accept-Encoding"});
  if (!AcceptsGzip(request.accept_encoding) || r->body.size() > UINT32_MAX) return;
  std::string packed;
  if (!Gzip(r->body, &packed) || packed.size() >= r->body.size()) return;
  r->body = std::move(packed);
  r->headers.push_back({"Content-Encoding", "gzip"});
}

}  // namespace th::serve
