#include "core/scan/scan_partition.h"

#include <cstdio>

#include "core/scan/database_merge.h"
#include "core/scan/mpi_dispatcher.h"

namespace th::scan {

namespace {

bool IsPostgres(const std::string& url) {
  return url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
}

std::string SqlitePath(std::string url) {
  if (url.rfind("sqlite:", 0) == 0) url = url.substr(7);
  if (url.rfind("//", 0) == 0) url = url.substr(2);
  return url;
}

class LocalPartition final : public ScanPartition {
 public:
  LocalPartition(size_t run_count, std::string db_url)
      : dispatcher_(run_count), db_url_(std::move(db_url)), planned_(run_count) {}
  RunDispatcher& dispatcher() override { return dispatcher_; }
  const std::string& db_url() const override { return db_url_; }
  const std::string& label() const override { return label_; }
  bool primary() const override { return true; }
  std::optional<size_t> planned_runs() const override { return planned_; }
  Status Finish(std::string*) override { return Ok(); }
  void Fail(int) override {}

 private:
  LocalRunDispatcher dispatcher_;
  std::string db_url_, label_;
  size_t planned_;
};

class ShardPartition final : public ScanPartition {
 public:
  ShardPartition(size_t run_count, const ShardSpec& spec, std::string db_url)
      : dispatcher_(run_count, spec),
        db_url_(std::move(db_url)),
        label_("shard " + std::to_string(spec.index) + "/" + std::to_string(spec.count) + " (" +
               spec.source + ")") {}
  RunDispatcher& dispatcher() override { return dispatcher_; }
  const std::string& db_url() const override { return db_url_; }
  const std::string& label() const override { return label_; }
  bool primary() const override { return true; }
  std::optional<size_t> planned_runs() const override { return dispatcher_.size(); }
  Status Finish(std::string*) override { return Ok(); }
  void Fail(int) override {}

 private:
  ShardRunDispatcher dispatcher_;
  std::string db_url_, label_;
};

class MpiPartition final : public ScanPartition {
 public:
  MpiPartition(std::unique_ptr<MpiWorld> world, size_t run_count, const PartitionOptions& options)
      : world_(std::move(world)),
        dispatcher_(world_->MakeDispatcher(run_count, !options.mpi_rank0_serves_only)),
        main_url_(options.db_url),
        db_url_(world_->rank() == 0 ? options.db_url
                                    : RankDatabaseUrl(options.db_url, world_->rank())),
        label_("MPI rank " + std::to_string(world_->rank()) + " of " +
               std::to_string(world_->size())) {}
  ~MpiPartition() override {
    // Destroyed without Finish (an error return): take the job down rather
    // than leave the other ranks waiting for this one.
    if (!finished_ && world_->size() > 1) world_->Abort(1);
  }
  RunDispatcher& dispatcher() override { return *dispatcher_; }
  const std::string& db_url() const override { return db_url_; }
  std::string skip_db_url() const override { return db_url_ == main_url_ ? "" : main_url_; }
  const std::string& label() const override { return label_; }
  bool primary() const override { return world_->rank() == 0; }
  std::optional<size_t> planned_runs() const override { return std::nullopt; }
  void Fail(int code) override {
    if (world_->size() > 1) world_->Abort(code);
  }

  Status Finish(std::string* summary) override {
    Status s = dispatcher_->Finish();
    finished_ = true;
    if (!s.ok()) {
      finished_ = false;  // abort on destruction: the others may be waiting
      return s;
    }
    if (world_->rank() != 0 || IsPostgres(main_url_) || world_->size() == 1) return Ok();
    // Rank 0: every rank has passed the barrier, so the rank files are complete.
    auto out = OpenDatabase(main_url_);
    if (!out.ok()) return out.status();
    size_t copied = 0, merged = 0;
    for (int r = 1; r < world_->size(); ++r) {
      const std::string url = RankDatabaseUrl(main_url_, r);
      auto in = OpenExistingDatabase(url);
      if (!in.ok() && in.status().code() == StatusCode::kNotFound) continue;  // it wrote nothing
      if (!in.ok()) return in.status();
      auto stats = MergeResults(**in, **out);
      in->reset();
      if (!stats.ok())
        return Status(stats.status().code(),
                      stats.status().message() +
                          "; the rank databases are kept: run tracehound merge " + main_url_ + " " +
                          url + " ...");
      copied += stats->runs_copied;
      ++merged;
      const std::string path = SqlitePath(url);
      std::remove(path.c_str());
      for (const char* suffix : {"-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
    }
    if (summary)
      *summary = "merged " + std::to_string(merged) + " rank database" + (merged == 1 ? "" : "s") +
                 " (" + std::to_string(copied) + " runs) into " + RedactDatabaseUrl(main_url_);
    return Ok();
  }

 private:
  std::unique_ptr<MpiWorld> world_;
  std::unique_ptr<MpiRunDispatcher> dispatcher_;
  std::string main_url_, db_url_, label_;
  bool finished_ = false;
};

}  // namespace

std::string RankDatabaseUrl(const std::string& url, int rank) {
  if (IsPostgres(url)) return url;
  const std::string tag = ".rank" + std::to_string(rank);
  size_t slash = url.find_last_of("/:");
  size_t dot = url.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return url + tag;
  return url.substr(0, dot) + tag + url.substr(dot);
}

StatusOr<std::unique_ptr<ScanPartition>> MakeRunDispatcher(const PartitionOptions& options,
                                                           size_t run_count, const EnvLookup& env) {
  const bool mpirun = LaunchedByMpirun(env);
  if (!options.shard.empty()) {
    if (mpirun && MpiWorldSizeFromEnv(env) > 1)
      return InvalidInput("--shard and mpirun both split the scan: use one of them");
    auto spec = ParseShardSpec(options.shard, env);
    if (!spec.ok()) return spec.status();
    std::string url = options.db_url;
    for (size_t at; (at = url.find("{shard}")) != std::string::npos;)
      url.replace(at, 7, std::to_string(spec->index));
    return std::unique_ptr<ScanPartition>(new ShardPartition(run_count, *spec, url));
  }
  if (mpirun) {
    if (!MpiBuilt()) {
      if (MpiWorldSizeFromEnv(env) > 1)
        return Unsupported("launched by mpirun with " + std::to_string(MpiWorldSizeFromEnv(env)) +
                           " ranks, but this tracehound was built without MPI (Debian: apt-get "
                           "install libopenmpi-dev, then rebuild); use --shard i/N instead");
    } else {
      auto world = MpiWorld::Init();
      if (!world.ok()) return world.status();
      return std::unique_ptr<ScanPartition>(
          new MpiPartition(std::move(*world), run_count, options));
    }
  }
  return std::unique_ptr<ScanPartition>(new LocalPartition(run_count, options.db_url));
}

}  // namespace th::scan
