#include "core/diff/diff_result.h"

namespace th::diff {

const char* EventClassName(EventClass c) {
  switch (c) {
    case EventClass::kCpuOp:
      return "cpu_op";
    case EventClass::kGpuKernel:
      return "gpu_kernel";
    case EventClass::kHloOp:
      return "hlo_op";
    case EventClass::kRuntime:
      return "runtime";
    case EventClass::kAnnotation:
      return "annotation";
    case EventClass::kPython:
      return "python_function";
    case EventClass::kOther:
    case EventClass::kCount:
      break;
  }
  return "other";
}

const char* RowStatusName(RowStatus s) {
  switch (s) {
    case RowStatus::kUnchanged:
      return "unchanged";
    case RowStatus::kChanged:
      return "changed";
    case RowStatus::kAdded:
      return "added";
    case RowStatus::kRemoved:
      return "removed";
    case RowStatus::kUnknown:
      return "unknown";
  }
  return "unknown";
}

}  // namespace th::diff
