#include "core/report/kernel_class_listing.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "core/graph/text_escape.h"
#include "core/report/json_writer.h"

namespace th {

void WriteKernelClassTable(const KernelClassTable& table, std::ostream& out) {
  using Row = std::array<std::string, 5>;
  std::vector<Row> rows = {{"set", "class", "case", "match", "source"}};
  for (const KernelClassRule& r : table.rules())
    rows.push_back({std::string(RuleSetName(r.set)), std::string(KernelClassName(r.klass)),
                    r.ignore_case ? "any" : "exact", r.match, r.source});
  std::array<size_t, 4> width{};
  for (const Row& row : rows)
    for (size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  out << "Kernel classes: the first rule of a set whose glob matches the whole name wins "
         "(`*` is any run of characters); with none, a kernel is COMP, a memcpy or memset MEM. "
         "Set tracehound feeds every analysis (a pipeline's kernel_classes: rules come first); "
         "set hta reproduces HTA 0.6.1's kernel types.\n";
  for (const Row& row : rows) {
    std::string line;
    for (size_t c = 0; c < width.size(); ++c) {
      line += row[c];
      line.append(width[c] - row[c].size() + 2, ' ');
    }
    line += row[4];
    out << PrintableBytes(line) << "\n";
  }
}

void WriteKernelClassTableJson(const KernelClassTable& table, std::ostream& out) {
  JsonWriter w(out);
  w.BeginObject();
  w.Key("rules").BeginArray();
  for (size_t i = 0; i < table.rules().size(); ++i) {
    const KernelClassRule& r = table.rules()[i];
    w.BeginObject()
        .Field("set", RuleSetName(r.set))
        .Field("class", KernelClassName(r.klass))
        .Field("match", r.match)
        .Field("ignore_case", r.ignore_case)
        .Field("source", r.source)
        .Field("from_pipeline", i < table.pipeline_rule_count())
        .EndObject();
  }
  w.EndArray();
  w.Key("defaults").BeginObject();
  w.Field("kernel", "COMP").Field("memcpy", "MEM").Field("memset", "MEM");
  w.EndObject().EndObject();
}

}  // namespace th
