// Redaction of JSON traces (Kineto, Chrome trace, XProf trace.json.gz) as a
// stream: one pass over the decompressed text in a bounded window, every
// byte copied as it was except the strings some rule changes, which are
// re-encoded with the one JSON escaper (AppendJsonString). Numbers, literals,
// whitespace, key order and every untouched string stay byte-identical.
//
// The text is checked as it goes (structure, numbers, literals, escapes,
// surrogate pairs); the non-finite literals tracehound accepts (NaN,
// Infinity, nan, inf, ...) pass through, as does a top-level array left
// unterminated (the Trace Event Format allows it). A UTF-8 byte order mark
// is dropped. Bad input fails with the file's name and the text offset.
//
// Which strings: object keys and string values get the pattern rules; the
// value of a key with a field rule gets that rule (with every string inside
// it when it is an object or array); the values of keep_keys are copied.
// A field rule that drops writes "" in place of the value (whatever its
// type), so the key stays and the JSON stays well-formed.
#pragma once

#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/import/common/byte_source.h"
#include "core/redact/output_sink.h"
#include "core/redact/string_redactor.h"

namespace th::redact {

// Rewrites the JSON document read from `in` into `out` (not finished: the
// caller finishes the sink). parallel: the elements of traceEvents (or of a
// top-level array) are cut into chunks of whole elements, rewritten on all
// cores (oneTBB, a StringRedactor per thread, counts merged into
// `redactor`'s) and written in order; the output is the same either way.
Status RedactJson(ByteSource& in, StringRedactor& redactor, ByteSink& out, bool parallel = true);

// The pre-pass: the string values of learn_hosts field rules found in the
// top-level keys written before "traceEvents" (all of them when there is
// none), appended to *hosts. Reads no further than "traceEvents".
Status CollectJsonHosts(ByteSource& in, const RuleSet& rules, std::vector<std::string>* hosts);

// Decodes the text of a JSON string (between its quotes). False, with the
// index of the bad escape in *bad, when an escape is malformed or a surrogate
// is unpaired.
bool JsonUnescape(std::string_view raw, std::string* out, size_t* bad);

}  // namespace th::redact
