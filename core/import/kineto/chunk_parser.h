// ChunkParser: turns one TextChunk into a ParsedChunk with simdjson On-Demand.
// One parser per thread; chunks are independent, so they parse in parallel.
#pragma once

#include <simdjson.h>

#include <string>

#include "core/import/kineto/parsed_chunk.h"

namespace th::kineto {

class ChunkParser {
 public:
  // Parses `chunk` into `out`. On malformed JSON, out->error names the event
  // index and the decompressed text offset; `source_name` prefixes messages.
  void Parse(const TextChunk& chunk, const std::string& source_name, ParsedChunk* out);

 private:
  simdjson::ondemand::parser parser_;
};

}  // namespace th::kineto
