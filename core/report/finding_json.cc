#include "core/report/finding_json.h"

namespace th {

void WriteEvidenceJson(JsonWriter& w, const std::vector<Evidence>& evidence) {
  w.BeginArray();
  for (const Evidence& e : evidence) {
    w.BeginObject()
        .Field("name", e.name)
        .Field("value", e.value)
        .Field("unit", e.unit)
        .Field("kind", NumberKindName(e.kind))
        .EndObject();
  }
  w.EndArray();
}

void WriteScopeJson(JsonWriter& w, const ReportScope& s) {
  w.BeginObject();
  auto field = [&](const char* k, int64_t v) {
    w.Key(k);
    v >= 0 ? w.Int(v) : w.Null();
  };
  field("rank", s.rank);
  field("device", s.device);
  field("stream", s.stream);
  field("step_first", s.step_first);
  field("step_last", s.step_last);
  w.EndObject();
}

void WriteFindingJson(JsonWriter& w, const Finding& f, const FindingJsonOptions& options) {
  w.BeginObject();
  if (options.leading) options.leading(w);
  for (FindingField field : options.layout.fields) {
    switch (field) {
      case FindingField::kPlugin:
        w.Field("plugin", f.plugin);
        break;
      case FindingField::kSeverity:
        w.Field("severity", SeverityLabel(f.severity));
        break;
      case FindingField::kTitle:
        w.Field("title", f.title);
        break;
      case FindingField::kWhat:
        w.Field("what", f.what);
        break;
      case FindingField::kEvidence:
        w.Key("evidence");
        WriteEvidenceJson(w, f.evidence);
        break;
      case FindingField::kScope:
        w.Key("scope");
        WriteScopeJson(w, f.scope);
        break;
      case FindingField::kRank:
        if (f.scope.rank >= 0) w.Field("rank", f.scope.rank);
        break;
      case FindingField::kSuggestion:
        w.Key("suggestion");
        f.suggestion.empty() && options.layout.empty_suggestion_is_null ? w.Null()
                                                                        : w.String(f.suggestion);
        break;
      case FindingField::kConfidence:
        w.Field("confidence", f.confidence);
        break;
    }
  }
  if (options.trailing) options.trailing(w);
  w.EndObject();
}

}  // namespace th
