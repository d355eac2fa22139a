// A plugin that breaks one rule of the table catalog, chosen by option `mode`:
//   undeclared_read   reads table tracks, declaring only events
//   undeclared_column reads a column of gpu_args by row, declaring only events
//   undeclared_find   looks up the steps plugin's table without declaring it
//   wrong_schema      publishes `spans` with a column its schema does not have
//   wrong_unit        publishes `spans` with the right columns, one in other units
//   ok                publishes `spans` as declared
#include <tracehound/sdk.h>

#include <algorithm>
#include <climits>
#include <string>

class Misbehaves final : public th::sdk::Plugin {
 public:
  static th::sdk::Declaration Declare() {
    return th::sdk::Declaration("misbehaves", "1.0.0", th::sdk::kAnalyzer,
                                "breaks one catalog rule")
        .Reads({"events"})
        .Publishes(th::sdk::Schema("spans").Int("rank").Int("span", "ns"))
        .Option("mode", "ok", "the rule to break",
                {"undeclared_read", "undeclared_column", "undeclared_find", "wrong_schema",
                 "wrong_unit", "ok"});
  }
  void Run(th::sdk::Context& ctx) override {
    const std::string mode = ctx.GetString("mode");
    const th::sdk::Trace& t = ctx.traces().at(0);
    if (mode == "undeclared_read")
      ctx.Metric("tracks", static_cast<double>(t.track_of(0).tid), "", th::sdk::kMeasured);
    if (mode == "undeclared_column")
      ctx.Metric("stream", static_cast<double>(t.gpu_stream(t.args_row(0))), "",
                 th::sdk::kMeasured);
    if (mode == "undeclared_find") ctx.FindTable("steps");
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (uint64_t i = 0; i < t.size(); ++i) {
      first = std::min(first, t.ts(i));
      last = std::max(last, t.end(i));
    }
    th::sdk::Table table("spans");
    table.Int("rank", {t.rank()});
    if (mode == "wrong_schema")
      table.Int("width", {last - first}, "ns");
    else if (mode == "wrong_unit")
      table.Int("span", {last - first}, "us");
    else
      table.Int("span", {last - first}, "ns");
    ctx.Publish(table);
  }
};
TH_PLUGIN(Misbehaves)
