// Two pieces of work at once: one on a thread of its own, one on the calling
// thread. The index splits its passes this way over the machine's two cores.
#pragma once

#include <exception>
#include <thread>
#include <utility>

namespace th::critical_path {

// Runs `side` on a new thread while `here` runs on this one; returns once
// both are done, then rethrows the first exception (this thread's first).
template <typename Side, typename Here>
void RunBeside(Side&& side, Here&& here) {
  std::exception_ptr side_error;
  std::thread thread([&] {
    try {
      side();
    } catch (...) {
      side_error = std::current_exception();
    }
  });
  try {
    here();
  } catch (...) {
    thread.join();
    throw;
  }
  thread.join();
  if (side_error) std::rethrow_exception(side_error);
}

}  // namespace th::critical_path
