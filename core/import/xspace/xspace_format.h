// XProf's XSpace capture (`<host>.xplane.pb`) behind the Importer interface.
//
// Sniff: the head parses as XSpace wire bytes: top-level fields 1-4, each
// length-delimited, and a plane (field 1) whose first field is an XPlane
// field with its wire type (id varint, name, lines, metadata maps, stats),
// its name, when first met, printable. An HloProto (side file) fails: its
// module's first field, the name, is field 1 length-delimited.
#pragma once

#include <memory>

#include "core/import/importer.h"

namespace th::xspace {

std::unique_ptr<Importer> MakeXSpaceImporter();

// The sniffing rule alone (for tests of other formats' bytes).
bool LooksLikeXSpace(std::string_view head, bool complete);

}  // namespace th::xspace
