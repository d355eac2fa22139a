// RunLoader: imports the runs of `tracehound serve` on one thread of its own,
// those asked for (Open: a user opened them) before those queued by OpenAll.
// A run is loaded at most once; one that fails is marked failed
// (ServeRun::Fail) with the error, and `done` is told either way.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/serve/serve_run.h"

namespace th::serve {

class RunLoader {
 public:
  using Done = std::function<void(size_t run, const Status& status, const std::string& note,
                                  const ServeLoadTimes& times)>;
  // `runs` must outlive the loader and not be resized.
  RunLoader(const std::vector<std::unique_ptr<ServeRun>>* runs, ServeLoadOptions options,
            Done done);
  ~RunLoader();  // Stop()
  RunLoader(const RunLoader&) = delete;
  RunLoader& operator=(const RunLoader&) = delete;

  // Queues `run` first (once; any thread).
  void Open(size_t run);
  // Queues every run not queued yet, in order, behind those already queued.
  void OpenAll();
  // Loads nothing more: returns after the run being loaded now, if any.
  void Stop();

 private:
  void Loop();

  const std::vector<std::unique_ptr<ServeRun>>* runs_;
  ServeLoadOptions options_;
  Done done_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<size_t> queue_;
  std::vector<bool> queued_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace th::serve
