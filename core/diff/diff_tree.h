// The structural level (step trees and their alignment): the SDK's
// <tracehound/diff/diff_tree.h>, shared with the trace-diff plugin.
#pragma once

#include <tracehound/diff/diff_tree.h>

#include "core/diff/diff_result.h"
