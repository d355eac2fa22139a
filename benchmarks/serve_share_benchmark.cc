// What a share token costs a request of `tracehound serve`: the admin
// token's comparison against a share token's full check (HMAC-SHA256,
// claims parsed, the revocation list stat'ed), with revocation lists of
// 0 and 1,000 ids (re-read only when the file changes).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/serve/serve_access.h"
#include "core/serve/share_keys.h"

namespace th::serve {
namespace {

constexpr int64_t kNow = 1800000000;

std::unique_ptr<ShareAuthority> Authority(int revoked) {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("th_share_bench_" + std::to_string(revoked));
  std::filesystem::remove_all(dir);
  auto a = ShareAuthority::Open(dir + "/k.key");
  if (!a.ok()) return nullptr;
  std::ofstream list(dir + "/k.key.revoked");
  for (int i = 0; i < revoked; ++i) {
    char id[40];
    std::snprintf(id, sizeof id, "%032x\n", i);
    list << id;
  }
  return std::move(*a);
}

void BM_AdminToken(benchmark::State& state) {
  const std::string token = RandomToken(), given = token;
  for (auto _ : state) benchmark::DoNotOptimize(TokensEqual(given, token));
}
BENCHMARK(BM_AdminToken);

void BM_ShareTokenCheck(benchmark::State& state) {
  auto authority = Authority(static_cast<int>(state.range(0)));
  if (!authority) {
    state.SkipWithError("no share key (the serve-http module did not load)");
    return;
  }
  const std::string token =
      authority->Issue({"0123456789abcdef0123456789abcdef"}, kNow + 3600).value();
  for (auto _ : state) {
    ShareVerdict v = authority->Check(token, kNow);
    if (v.check != ShareCheck::kOk) state.SkipWithError(v.message.c_str());
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(BM_ShareTokenCheck)->Arg(0)->Arg(1000);

}  // namespace
}  // namespace th::serve

BENCHMARK_MAIN();
