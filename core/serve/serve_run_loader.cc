#include "core/serve/serve_run_loader.h"

namespace th::serve {

RunLoader::RunLoader(const std::vector<std::unique_ptr<ServeRun>>* runs, ServeLoadOptions options,
                     Done done)
    : runs_(runs),
      options_(std::move(options)),
      done_(std::move(done)),
      queued_(runs->size(), false),
      thread_([this] { Loop(); }) {}

RunLoader::~RunLoader() { Stop(); }

void RunLoader::Open(size_t run) {
  std::lock_guard lock(mu_);
  if (run >= queued_.size() || queued_[run]) return;
  queued_[run] = true;
  queue_.push_front(run);
  wake_.notify_one();
}

void RunLoader::OpenAll() {
  std::lock_guard lock(mu_);
  for (size_t run = 0; run < queued_.size(); ++run) {
    if (queued_[run]) continue;
    queued_[run] = true;
    queue_.push_back(run);
  }
  wake_.notify_one();
}

void RunLoader::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

void RunLoader::Loop() {
  while (true) {
    size_t run = 0;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      run = queue_.front();
      queue_.pop_front();
    }
    ServeRun* r = (*runs_)[run].get();
    std::string note;
    ServeLoadTimes times;
    Status loaded = LoadServeRun(r, options_, &note, &times);
    if (!loaded.ok()) r->Fail(loaded.message());
    if (done_) done_(run, loaded, note, times);
  }
}

}  // namespace th::serve
