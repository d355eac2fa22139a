// The host's copy of a plugin's text column (th_column of TH_TYPE_STRING:
// NUL-terminated pointers, NULL read as ""). Rows that point at the same text
// share one value of the TextColumn: the plugin's memory cannot change during
// the copy, so one address holds one text. A plugin that names its rows
// through the trace's interned strings (a few thousand names for millions of
// rows) costs 4 bytes a row; one whose every row is a text of its own costs
// what a copy of each does, the lookup given up once it finds no sharing.
#pragma once

#include <cstdint>

#include "core/graph/text_column.h"

namespace th {

TextColumn CopyTextColumn(const char* const* values, uint64_t n);

}  // namespace th
