// A working analyzer for the host tests: publishes columns filled in the
// host's memory (API 2.2 column_buffer) and, in a second table, their
// addresses, so a test can tell the host took them over without a copy.
#include <tracehound/sdk.h>

#include <cstdint>
#include <thread>

class HostColumns final : public th::sdk::Plugin {
 public:
  static th::sdk::Declaration Declare() {
    return th::sdk::Declaration("host-columns", "1.0.0", th::sdk::kAnalyzer,
                                "Columns in the host's memory")
        .Reads({"events"})
        .Publishes(th::sdk::Schema("host_columns", "filled in the host's memory")
                       .Int("ints", "ns")
                       .Real("reals")
                       .Int("plain"))
        .Publishes(th::sdk::Schema("host_column_addresses", "where the plugin filled them")
                       .Int("ints_at")
                       .Int("reals_at")
                       .Int("in_host_memory")
                       .Int("unterminated_names"));
  }
  void Run(th::sdk::Context& ctx) override {
    // Any thread may ask for a column (API 2.2): these come from two at once.
    th::sdk::Column<int64_t> ints;
    th::sdk::Column<double> reals;
    std::thread other([&] { reals = ctx.NewReals(4); });
    ints = ctx.NewInts(4);
    other.join();
    ctx.NewInts(8);  // never published: the host frees it after the run
    for (size_t i = 0; i < ints.size(); ++i) {
      ints[i] = static_cast<int64_t>(10 * (i + 1));
      reals[i] = 0.5 * static_cast<double>(i);
    }
    const auto at = [](const void* p) {
      return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p));
    };
    // string_at's text is NUL-terminated (API 2.2): what CStrings relies on.
    int64_t unterminated = 0;
    for (const auto& trace : ctx.traces())
      for (uint64_t i = 0; i < trace.size(); ++i)
        unterminated += trace.name(i).data()[trace.name(i).size()] != '\0';
    th::sdk::Table addresses("host_column_addresses");
    addresses.Int("ints_at", {at(ints.data())})
        .Int("reals_at", {at(reals.data())})
        .Int("in_host_memory", {ints.in_host_memory() && reals.in_host_memory() ? 1 : 0})
        .Int("unterminated_names", {unterminated});
    th::sdk::Table t("host_columns");
    t.IntColumn("ints", std::move(ints), "ns")
        .RealColumn("reals", std::move(reals))
        .Int("plain", {1, 2, 3, 4});
    ctx.Publish(t);
    ctx.Publish(addresses);
  }
};

TH_PLUGIN(HostColumns)
