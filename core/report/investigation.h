// The investigation sections of a report (seed 004): the cause behind the
// verdict, reconciliation checks the host runs on every trace set, the
// changes ranked by their inferred saving with the step time they would give,
// and the open questions with the capture that would answer each.
#pragma once

#include <string>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/trace.h"

namespace th {

// A reconciliation the host checks itself (plugins add their own checks).
struct Reconciliation {
  std::string name;
  bool passed = false;
  bool applicable = true;  // false: the trace set cannot say (detail tells why)
  std::string detail;
};

// A finding's inferred saving turned into a step-time estimate.
struct Change {
  const Finding* finding = nullptr;
  double saving_ns = 0;      // the finding's inferred saving over the whole capture
  double step_ns = 0;        // median step time (0 when the trace has no steps)
  double step_after_ns = 0;  // inferred: step_ns − saving per step
  int64_t steps = 0;
};

struct OpenQuestion {
  std::string question;
  std::string capture;  // what new capture would answer it
};

std::vector<Reconciliation> Reconcile(const TraceSet& set);
// Findings with an inferred evidence named saving*, largest saving first.
std::vector<Change> RankChanges(const TraceSet& set, const PluginResults& results);
std::vector<OpenQuestion> OpenQuestions(const TraceSet& set);

}  // namespace th
