// A finding as JSON, the one writer behind every output that serialises
// findings: the JSON report, the HTML report's data, the annotated trace's
// finding events and the results database's evidence column. The outputs
// differ in which members they write, in what order, and in how an empty
// suggestion reads; each states that as a FindingJsonLayout, and adds its own
// members (ids, place in the timeline) through FindingJsonOptions.
//
// Members, as they are written: plugin, severity ("P0".."P2", "info"), title,
// what, evidence [{name, value, unit, kind}], scope {rank, device, stream,
// step_first, step_last} (null where unset), rank (only when the scope has
// one), suggestion, confidence. Numbers are exact (json_number.h); a value
// that is not finite is null. Saving, time lost, group and range are not
// members: the outputs show them through their own sections.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/report/json_writer.h"

namespace th {

enum class FindingField : uint8_t {
  kPlugin,
  kSeverity,
  kTitle,
  kWhat,
  kEvidence,
  kScope,
  kRank,  // the scope's rank alone, left out when unset
  kSuggestion,
  kConfidence,
};

struct FindingJsonLayout {
  std::span<const FindingField> fields;   // written in this order
  bool empty_suggestion_is_null = false;  // else ""
};

// The JSON report (analysis_report.h): every member but rank; no suggestion is null.
inline constexpr FindingField kReportFindingFields[] = {
    FindingField::kPlugin,     FindingField::kSeverity,  FindingField::kTitle,
    FindingField::kWhat,       FindingField::kEvidence,  FindingField::kScope,
    FindingField::kSuggestion, FindingField::kConfidence};
inline constexpr FindingJsonLayout kReportFindingJson{kReportFindingFields, true};

// The HTML report's data (html_report.h): the report's members, suggestion
// and confidence before scope and evidence; no suggestion is "".
inline constexpr FindingField kHtmlFindingFields[] = {
    FindingField::kPlugin, FindingField::kSeverity,   FindingField::kTitle,
    FindingField::kWhat,   FindingField::kSuggestion, FindingField::kConfidence,
    FindingField::kScope,  FindingField::kEvidence};
inline constexpr FindingJsonLayout kHtmlFindingJson{kHtmlFindingFields, false};

// A finding event's args in the annotated trace (annotated_trace.h): the
// event is the title and the place, so neither title nor scope.
inline constexpr FindingField kTraceFindingFields[] = {
    FindingField::kSeverity, FindingField::kPlugin,     FindingField::kWhat,
    FindingField::kEvidence, FindingField::kSuggestion, FindingField::kConfidence,
    FindingField::kRank};
inline constexpr FindingJsonLayout kTraceFindingJson{kTraceFindingFields, false};

// Members an output writes beside the finding's own, as Key/value calls.
using JsonMembers = std::function<void(JsonWriter&)>;

struct FindingJsonOptions {
  FindingJsonLayout layout{};
  JsonMembers leading{};   // before the finding's members (ids)
  JsonMembers trailing{};  // after them (the place in the timeline)
};

// The finding as one JSON object.
void WriteFindingJson(JsonWriter& w, const Finding& f, const FindingJsonOptions& options);

// Evidence as a JSON array of {name, value, unit, kind}; the database stores
// a finding's evidence so (results_schema.h).
void WriteEvidenceJson(JsonWriter& w, const std::vector<Evidence>& evidence);

// {rank, device, stream, step_first, step_last}, null where unset (< 0).
void WriteScopeJson(JsonWriter& w, const ReportScope& scope);

}  // namespace th
