// A failed Status as the Python exception its code calls for: bad input
// (and a file that is no trace) ValueError, a missing file
// FileNotFoundError, an unreadable one OSError, an unsupported request
// NotImplementedError, anything else RuntimeError. Only the binding layer
// throws; the core it calls returns Status.
#pragma once

#include <utility>

#include "core/graph/status.h"

namespace th::python {

[[noreturn]] void ThrowStatus(const Status& status);

template <typename T>
T ValueOrThrow(StatusOr<T> result) {
  if (!result.ok()) ThrowStatus(result.status());
  return std::move(*result);
}

}  // namespace th::python
