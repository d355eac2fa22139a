// Streaming gzip decompression with isa-l's igzip (measured faster than
// zlib; libdeflate has no streaming API, see benchmarks/RESULTS.md).
// Multi-member files are read through; a stream that ends before its gzip
// trailer is an error naming the compressed offset.
#pragma once

#include <memory>

#include "core/import/common/byte_source.h"

namespace th {

// keep_truncated: input that ends before the end of the compressed data ends
// the output there and is reported by truncation() instead of failing.
std::unique_ptr<ByteSource> MakeGzipSource(std::unique_ptr<ByteSource> compressed,
                                           bool keep_truncated = false);

}  // namespace th
