// ChunkParser: turns one TextChunk into a ParsedChunk with simdjson On-Demand.
// One parser per thread (it holds the thread's string and track caches);
// chunks are independent, so they parse in parallel.
#pragma once

#include <simdjson.h>

#include <string>

#include "core/import/kineto/json_arg_text.h"
#include "core/import/kineto/parsed_chunk.h"
#include "core/import/kineto/shared_tables.h"

namespace th::kineto {

class ChunkParser {
 public:
  explicit ChunkParser(SharedTables* shared) : tables_(shared), arg_text_(&tables_) {}

  // Parses `chunk` into `out`. On malformed JSON, out->error names the event
  // index and the decompressed text offset; `source_name` prefixes messages.
  void Parse(const TextChunk& chunk, const std::string& source_name, ParsedChunk* out);

 private:
  simdjson::ondemand::parser parser_;
  ThreadTables tables_;
  JsonArgText arg_text_;           // record_shapes args (uses tables_)
  std::vector<uint8_t> cat_kind_;  // by category string id: EventKind, 0xff = not yet known
};

}  // namespace th::kineto
