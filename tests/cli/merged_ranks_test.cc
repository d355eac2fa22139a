// Several ranks in one file (issue 15, item 2): a trace merged the way
// TraceLens merges the ranks of a job is split back into its ranks, and every
// figure tracehound gives on it equals the figures on the rank files, rank
// for rank: `info --json` and every plugin's metrics and findings.
#include "core/import/kineto/merged_ranks.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/synth/kineto_generator.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"
#include "tests/support/tracelens_merge.h"

namespace th {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::Tracehound;

// The JSON `info --json` writes, with what must differ between a merged file
// and its rank files removed: where each trace came from (path, bytes, time,
// rank source), the trust entry that says the file was split, and the
// process metadata events (the merge drops each rank's process_name,
// process_labels and process_sort_index, as TraceFuse does, and writes its
// own), so events are compared without phase M.
std::string Normalized(simdjson::dom::element e, const std::string& key = "") {
  static const std::vector<std::string> kDropped = {"path",           "file_bytes",
                                                    "text_bytes",     "json_bytes",
                                                    "import_seconds", "rank_source",
                                                    "memory_bytes",   "import_profile_seconds",
                                                    "stored_mb",      "read_seconds",
                                                    "parse_seconds",  "merge_seconds",
                                                    "finish_seconds", "M",
                                                    "metadata",       "<none>"};
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      std::string out = "{";
      simdjson::dom::object obj = e.get_object().value();
      int64_t metadata = 0;
      if (!obj["events_by_phase"]["M"].get_int64().get(metadata)) {
      }
      for (auto [k, v] : obj) {
        std::string name(k);
        if (std::find(kDropped.begin(), kDropped.end(), name) != kDropped.end()) continue;
        if (name == "events" && v.is_int64()) {
          out += "\"events (not M)\":" + std::to_string(v.get_int64().value() - metadata) + ",";
          continue;
        }
        out += "\"" + name + "\":" + Normalized(v, name) + ",";
      }
      return out + "}";
    }
    case simdjson::dom::element_type::ARRAY: {
      std::string out = "[";
      simdjson::dom::array arr = e.get_array().value();
      for (simdjson::dom::element v : arr) {
        std::string item = Normalized(v, key);
        // The split's own trust entry is not in the rank files.
        if (key == "trust" && item.find("\"id\":\"merged_ranks_split\"") != std::string::npos)
          continue;
        out += item + ",";
      }
      return out + "]";
    }
    default:
      return simdjson::minify(e);
  }
}

std::string Info(const std::string& input) {
  CommandResult r = Tracehound("info --json " + input);
  EXPECT_EQ(r.status, 0) << r.out;
  return r.out;
}

// info --json of the rank files and of their merge, trace by trace.
void ExpectSameInfo(const std::string& rank_dir, const std::string& merged) {
  std::string a = Info(rank_dir), b = Info(merged);
  simdjson::dom::parser pa, pb;
  simdjson::dom::element da = pa.parse(a).value(), db = pb.parse(b).value();
  simdjson::dom::array ta = da["traces"].get_array().value(), tb = db["traces"].get_array().value();
  ASSERT_EQ(ta.size(), tb.size()) << "one trace per rank";
  for (size_t r = 0; r < ta.size(); ++r) {
    EXPECT_EQ(tb.at(r)["rank_source"].get_string().value(), kineto::kMergedRanksRule);
    EXPECT_EQ(Normalized(ta.at(r)), Normalized(tb.at(r))) << "rank " << r;
  }
  // The set's figures too (kernels, streams, steps... summed over ranks).
  for (const char* key : {"kernels", "memcpy", "memset", "gpu_streams", "steps", "memory_events",
                          "peak_total_allocated", "events_by_kind"})
    EXPECT_EQ(Normalized(da[key]), Normalized(db[key])) << key;
}

// Metrics and findings of every built-in plugin on both inputs.
void ExpectSameAnalysis(const std::string& rank_dir, const std::string& merged) {
  std::string out_a = testing::TempDir() + "/analysis-ranks",
              out_b = testing::TempDir() + "/analysis-merged";
  fs::create_directories(out_a);
  fs::create_directories(out_b);
  CommandResult ra = Tracehound("analyze " + rank_dir, "TRACEHOUND_REPORT_DIR=" + out_a);
  CommandResult rb = Tracehound("analyze " + merged, "TRACEHOUND_REPORT_DIR=" + out_b);
  ASSERT_EQ(ra.status, rb.status) << ra.out << "\n---\n" << rb.out;
  simdjson::dom::parser pa, pb;
  simdjson::dom::element da = pa.load(out_a + "/tracehound-findings.json").value();
  simdjson::dom::element db = pb.load(out_b + "/tracehound-findings.json").value();
  for (const char* key : {"verdict", "findings", "checks", "metrics", "tables", "reconciliation",
                          "changes", "open_questions"}) {
    if (da[key].error()) continue;
    EXPECT_EQ(Normalized(da[key]), Normalized(db[key])) << key;
  }
}

// Writes rank files to `dir` and their TraceLens merge to `merged`.
void WriteRanksAndMerge(const std::vector<std::string>& ranks, const std::string& dir,
                        const std::string& merged) {
  fs::create_directories(dir);
  for (size_t r = 0; r < ranks.size(); ++r) {
    std::ofstream out(dir + "/rank" + std::to_string(r) + ".json", std::ios::binary);
    out << ranks[r];
  }
  std::ofstream out(merged, std::ios::binary);
  out << testing::MergeLikeTraceLens(ranks);
}

TEST(MergedRanks, RankOfProcessNameIsTheTraceLensLabelOnly) {
  EXPECT_EQ(kineto::RankOfProcessName("RANK 0 - GPU"), 0);
  EXPECT_EQ(kineto::RankOfProcessName("RANK 17 - CPU"), 17);
  EXPECT_FALSE(kineto::RankOfProcessName("RANK 3 - TPU"));
  EXPECT_FALSE(kineto::RankOfProcessName("RANK x - GPU"));
  EXPECT_FALSE(kineto::RankOfProcessName("python3"));
  EXPECT_FALSE(kineto::RankOfProcessName("RANK 3 - GPU 0"));
}

TEST(MergedRanks, GeneratedRanksSplitBackExactly) {
  synth::Scenario s;
  s.ranks = 3;
  s.steps = 3;
  s.kernels_per_step = 30;
  s.straggler_rank = 1;
  std::vector<std::string> ranks;
  for (int r = 0; r < s.ranks; ++r) {
    std::ostringstream text;
    ASSERT_TRUE(synth::WriteKinetoTrace(s, r, text, nullptr).ok());
    ranks.push_back(text.str());
  }
  std::string dir = testing::TempDir() + "/generated-ranks";
  std::string merged = testing::TempDir() + "/generated-merged.json";
  WriteRanksAndMerge(ranks, dir, merged);
  ExpectSameInfo(dir, merged);
  ExpectSameAnalysis(dir, merged);
}

// The known answer: the 8 DLRM ranks of ../shared/data.
TEST(MergedRanks, RealDlrmRanksMergedLikeTraceLensSplitBackRankForRank) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: the DLRM merge test is skipped";
  std::string tar = data + "/param/et_replay/tests/data/dlrm_kineto.tar.gz";
  std::string dir = testing::TempDir() + "/dlrm";
  fs::create_directories(dir);
  CommandResult x = testing::Shell("tar -C " + dir + " -xzf " + tar);
  ASSERT_EQ(x.status, 0) << x.out;
  std::vector<std::pair<int, std::string>> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.rfind("worker", 0) == 0 && e.path().extension() == ".json")
      files.emplace_back(std::stoi(name.substr(6)), e.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 8u);
  std::vector<std::string> ranks;
  for (const auto& [rank, path] : files) ranks.push_back(testing::ReadFile(path));
  std::string rank_dir = fs::path(files[0].second).parent_path().string();
  std::string merged = testing::TempDir() + "/dlrm-merged.json";
  std::ofstream(merged, std::ios::binary) << testing::MergeLikeTraceLens(ranks);
  ExpectSameInfo(rank_dir, merged);
  ExpectSameAnalysis(rank_dir, merged);
}

}  // namespace
}  // namespace th
