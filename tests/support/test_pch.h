// Precompiled into every test built by th_add_test (tests/CMakeLists.txt):
// the headers nearly every test parses (gtest, the standard library's common
// containers and streams, the test file helpers, the trace loader). A test
// still includes what it uses; this file only spares each translation unit
// the seconds of parsing them again. Keep it small: a header here that a test
// does not use costs that test its pending template instantiations (simdjson
// or the SDK's test kit here made the small tests slower, not faster).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/import/trace_loader.h"
#include "tests/support/test_files.h"
