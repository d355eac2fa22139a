// XLA view of one XProf trace for reports: GPU time by attribution class, by
// HLO module, by Python line and by framework op. All times are measured
// device time (ns) summed over GPU events (kernels, memcpy, memset); `events`
// counts those events, `kernels` the kernels among them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/trace.h"

namespace th {

struct XlaClassTotal {
  int64_t events = 0;   // GPU events: kernels, memcpy, memset
  int64_t kernels = 0;  // kernels among them
  int64_t gpu_ns = 0;
};

struct XlaModuleRow {
  std::string name;
  int64_t id = 0;
  std::string origin;  // "metadata plane" or a side file path
  int64_t instructions = 0;
  int64_t events = 0;   // GPU events attributed to the module (any class but none)
  int64_t kernels = 0;  // kernels among them
  int64_t gpu_ns = 0;
};

// A Python line or a framework op, with the GPU time of the events attributed to it.
struct XlaAttributedRow {
  std::string key;      // "file:line" or op_name
  int64_t events = 0;   // GPU events
  int64_t kernels = 0;  // kernels among them
  int64_t gpu_ns = 0;
  int64_t instructions = 0;  // distinct HLO instructions behind it
};

struct XlaSummary {
  bool present = false;                                  // the trace went through XLA attribution
  std::array<XlaClassTotal, kHloMatchCount> by_class{};  // indexed by HloMatch
  int64_t gpu_ns = 0;                                    // all GPU events
  int64_t gpu_events = 0;
  std::vector<XlaModuleRow> modules;    // by GPU time, then name
  std::vector<XlaAttributedRow> lines;  // by GPU time; events without a line left out
  std::vector<XlaAttributedRow> ops;    // by GPU time; events without an op_name left out
  int64_t unattributed_line_ns = 0;     // attributed events whose instruction has no line
};

XlaSummary SummarizeXla(const Trace& trace);

}  // namespace th
