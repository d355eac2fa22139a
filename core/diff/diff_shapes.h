// Parity of input shapes (ShapeWarnings): the SDK's
// <tracehound/diff/diff_shapes.h>, shared with the trace-diff plugin.
#pragma once

#include <tracehound/diff/diff_shapes.h>

#include "core/diff/diff_profile.h"
