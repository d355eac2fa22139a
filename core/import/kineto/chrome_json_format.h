// The Kineto / Chrome-trace JSON format (and XProf's trace.json.gz, which the
// same importer recognises from its top-level keys: xprof_json.h) behind the
// Importer interface.
//
// Sniff: the content's first byte after whitespace is '{' (a JSON object; the
// importer then says whether it holds traceEvents) or '[' followed by '{' or
// ']' (an event array), or the head is all whitespace and more follows.
#pragma once

#include <memory>

#include "core/import/importer.h"

namespace th::kineto {

std::unique_ptr<Importer> MakeChromeJsonImporter();

}  // namespace th::kineto
