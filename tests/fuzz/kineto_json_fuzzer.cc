// Kineto / Chrome-trace JSON import, from text (plain or gzip) to the event
// graph: the top-level reader, the chunk cutter, the chunk parser with its
// value checks, the graph builder; then a summary over the graph.
//
// Invariants besides "no crash, no sanitizer report": an error names the
// input; a document simdjson's DOM parser accepts is never refused as
// malformed JSON (the checks must not reject valid JSON), and its events are
// all read.
#include <simdjson.h>

#include <string>

#include "core/import/common/byte_source.h"
#include "core/import/kineto/kineto_importer.h"
#include "core/report/trace_summary.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  th::fuzz::SingleThreaded();
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto raw = th::MakeMemorySource("fuzz.json", bytes);
  auto text = th::OpenDecoded(std::move(raw), nullptr, /*keep_truncated=*/size % 2 == 1);
  if (!text.ok()) return 0;
  th::kineto::ImportOptions options;
  options.chunk_bytes = 4096;  // many chunks, so chunk boundaries are exercised
  options.keep_truncated = size % 2 == 1;
  auto trace = th::kineto::ImportKinetoJson(**text, options);
  if (!trace.ok()) {
    const std::string& m = trace.status().message();
    th::fuzz::Require(m.rfind("fuzz.json", 0) == 0, "error does not name the input: " + m);
    // Valid JSON (plain text only: gzip is decoded above) is never "malformed".
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    bool gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    if (!gzip && m.find("malformed JSON") != std::string::npos &&
        parser.parse(bytes).get(doc) == simdjson::SUCCESS)
      th::fuzz::Require(false, "valid JSON refused: " + m);
    return 0;
  }
  th::TraceSummary summary = th::Summarize(**trace);
  th::fuzz::Require(summary.events >= 0, "negative event count");
  return 0;
}
