// Writes the diff test pair (tests/support/diff_fixture.h) into a folder:
// a.json (4 steps) and b.json (its gemm kernel twice as long, aten::mul with
// mul_kernel inserted in Decoder_0), for the diff view's browser test. B's
// clock is moved by kShiftUs and it starts with an aten::empty before its
// first step (in no step: no aggregate row), so its steps lie 500 µs later
// on its relative clock than A's: aligning them is the view's work.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>

#include "tests/support/diff_fixture.h"

namespace {

constexpr int64_t kShiftUs = 700;
constexpr const char* kPreamble =
    R"({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 200, )"
    R"("dur": 5},)";

// Every "ts": N of the fixture moved by kShiftUs, the preamble event first.
std::string Shifted(const std::string& text) {
  static const std::regex kTs(R"("ts": (\d+))");
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), kTs), end; it != end; ++it) {
    out.append(last, (*it)[0].first);
    out += "\"ts\": " + std::to_string(std::stoll((*it)[1].str()) + kShiftUs);
    last = (*it)[0].second;
  }
  out.append(last, text.cend());
  const std::string events = "\"traceEvents\": [";
  const size_t at = out.find(events);
  if (at != std::string::npos) out.insert(at + events.size(), kPreamble);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_diff_pair DIR\n";
    return 2;
  }
  std::filesystem::create_directories(argv[1]);
  for (bool b : {false, true}) {
    th::testing::DiffFixture f;
    f.double_gemm = b;
    f.insert_mul = b;
    const auto path = std::filesystem::path(argv[1]) / (b ? "b.json" : "a.json");
    std::ofstream out(path);
    const std::string text = th::testing::DiffFixtureTrace(f);
    out << (b ? Shifted(text) : text);
    if (!out.good()) {
      std::cerr << path.string() << ": cannot write\n";
      return 1;
    }
  }
  return 0;
}
