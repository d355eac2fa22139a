// Kernel -> HLO instruction attribution (seed 004), filling
// Trace::xla.kernel_instruction / kernel_match for every GPU event.
//
// 1. Module: the event's program_id (= HloModuleProto.id) when it names a
//    joined module, else its hlo_module name (among same-name modules, the one
//    holding the hlo_op). Labels come from the event, else from the host call
//    that launched it.
// 2. exact: the event's own hlo_op is an instruction of that module.
// 3. The rest are placed in windows. Per device, events in time order are
//    walked against each module's kernel schedule: the entry computation in
//    HloScheduleProto order (instruction order when unscheduled), calls
//    inlined, while loops expanded by their known trip count, instructions
//    that launch nothing (parameter, bitcast, tuple, get-tuple-element,
//    constant, *-done, ...) left out. Exact events anchor positions; a window
//    is the schedule strictly between two adjacent anchors of one execution
//    (across two executions: the first one's tail and the next one's head).
// 4. name: the kernel's name (".kd" dropped, '.' and '-' read as '_') equals
//    exactly one instruction of the window or of its two anchors.
// 5. order: the remaining kernels take the window's remaining instructions in
//    schedule order; inside one execution, kernels left over go to the next
//    anchor's instruction (library calls launch helper kernels), else the
//    previous one's.
// 6. none: no candidate left, or no module; also an unlabelled event whose
//    launch is an unlabelled memcpy/memset call (a runtime transfer: XLA's own
//    copies carry their hlo_op).
// Kernels are never matched by name alone outside a window: XLA reuses one
// compiled kernel for identical fusions.
#pragma once

#include "core/graph/trace.h"

namespace th::hlo {

// Without HLO modules every GPU event is none. Builds the index if needed.
void AttributeKernels(Trace* trace);

}  // namespace th::hlo
