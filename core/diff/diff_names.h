// Name normalisation for diffs: the SDK's (<tracehound/diff/diff_names.h>),
// shared with the trace-diff plugin.
#pragma once

#include <tracehound/diff/diff_names.h>
