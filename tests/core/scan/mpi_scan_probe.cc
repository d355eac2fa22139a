// A stand-in for `tracehound scan` that exercises the real dispatch paths
// (ScanPartition: local, --shard, Open MPI) without the pipeline: each run i
// it is handed becomes the rows of SyntheticRun(i), written by several threads
// sharing one dispatcher, as the scanner's workers do.
//
//   mpi_scan_probe RUNS DB_URL [--shard S] [--count-skew] [--serve-only]
// Prints "took <rank label>: i j k ..." and exits 0, or prints the error and
// exits 2. --count-skew: MPI ranks > 0 claim one run more than rank 0 (to
// check that rank 0 refuses a different run list).
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/scan/database.h"
#include "core/scan/results_schema.h"
#include "core/scan/scan_partition.h"
#include "tests/core/scan/results_fixture.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: mpi_scan_probe RUNS DB_URL [--shard S] [--count-skew] [--serve-only]\n";
    return 2;
  }
  size_t runs = std::strtoul(argv[1], nullptr, 10);
  th::scan::PartitionOptions options;
  options.db_url = argv[2];
  bool skew = false;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--shard") && i + 1 < argc) options.shard = argv[++i];
    if (!std::strcmp(argv[i], "--count-skew")) skew = true;
    if (!std::strcmp(argv[i], "--serve-only")) options.mpi_rank0_serves_only = true;
  }
  const char* rank_env = std::getenv("OMPI_COMM_WORLD_RANK");
  if (skew && rank_env && std::strcmp(rank_env, "0") != 0) ++runs;

  auto partition = th::scan::MakeRunDispatcher(options, runs);
  if (!partition.ok()) {
    std::cerr << "error: " << partition.status().message() << "\n";
    return 2;
  }
  auto& part = **partition;
  std::vector<size_t> took;
  {
    auto db = th::scan::OpenDatabase(part.db_url());
    if (!db.ok() || !th::scan::MigrateResultsSchema(**db).ok()) {
      std::cerr << "error: cannot open " << part.db_url() << "\n";
      part.Fail(2);
      return 2;
    }
    std::mutex mutex;  // one Database, one thread at a time
    std::string error;
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&] {
        while (std::optional<size_t> i = part.dispatcher().Next()) {
          th::testing::FixtureRun run = th::testing::SyntheticRun(*i);
          run.worker = part.label();
          std::this_thread::sleep_for(std::chrono::milliseconds(2));  // "scanning"
          std::lock_guard<std::mutex> lock(mutex);
          th::Status s = th::testing::WriteFixtureRun(**db, run);
          if (!s.ok() && error.empty()) error = s.message();
          took.push_back(*i);
          part.dispatcher().Done(*i, false);
        }
      });
    for (auto& t : threads) t.join();
    if (!error.empty()) {
      std::cerr << "error: " << error << "\n";
      part.Fail(2);
      return 2;
    }
  }
  std::string summary;
  th::Status finished = part.Finish(&summary);
  std::cout << "took " << (part.label().empty() ? "local" : part.label()) << ":";
  for (size_t i : took) std::cout << " " << i;
  std::cout << "\n";
  if (!summary.empty()) std::cout << summary << "\n";
  if (!finished.ok()) {
    std::cerr << "error: " << finished.message() << "\n";
    return 2;
  }
  return 0;
}
