// Content-Encoding gzip for the server's large answers: a viewport of every
// row of a dense capture is megabytes of map bytes, small counts and busy
// levels, which deflate shrinks ten-fold and more. A 200 answer to a GET of
// binary content (application/octet-stream: THVP) of at least kMinGzipBytes,
// without an ETag (tiles are small and cached by their ETag), is compressed
// with isa-l at level 1 when the request's Accept-Encoding allows gzip; such
// answers also say "Vary: Accept-Encoding". The bytes a client decodes are
// those it would have received without it. (Text and JSON answers are
// compressed by cpp-httplib itself, built with zlib and brotli.)
#pragma once

#include <cstddef>
#include <string_view>

#include "core/serve/http_module.h"

namespace th::serve {

inline constexpr size_t kMinGzipBytes = 64 * 1024;

// Whether an Accept-Encoding value allows gzip ("gzip", "x-gzip" or "*",
// without q=0).
bool AcceptsGzip(std::string_view accept_encoding);

// Compresses `r` in place when the rules above allow it.
void GzipIfWorthIt(const HttpRequest& request, HttpResponse* r);

}  // namespace th::serve
