// The aggregate level (AggregateRows, ClassTotals, DivRound): the SDK's
// (<tracehound/diff/diff_aggregate.h>), shared with the trace-diff plugin.
#pragma once

#include <tracehound/diff/diff_aggregate.h>

#include "core/diff/diff_profile.h"
#include "core/diff/diff_result.h"
