// The remote module's entry: stores for each scheme. libcurl and libcrypto
// are linked here and nowhere else in tracehound, so that commands reading
// local files never map them.
#include "core/import/remote/http_store.h"

namespace th::remote {
namespace {

StatusOr<std::unique_ptr<ObjectStore>> OpenStore(const ObjectUrl& url,
                                                 const RemoteOptions& options) {
  switch (url.scheme) {
    case Scheme::kS3: {
      auto config = S3Config(ProcessEnv);
      if (!config.ok()) return config.status();
      return MakeS3Store(url, std::move(*config), options);
    }
    case Scheme::kGcs:
      return MakeS3Store(url, GcsConfig(ProcessEnv), options);
    case Scheme::kHttp:
      return MakePlainHttpStore(url, options);
    case Scheme::kAzure:
      return MakeAzureStore(url, AzureConfig(ProcessEnv), options);
  }
  return Internal(url.url() + ": unknown scheme");
}

}  // namespace
}  // namespace th::remote

extern "C" __attribute__((visibility("default"))) const th::remote::RemoteModuleApi*
th_remote_module() {
  static const th::remote::RemoteModuleApi api{&th::remote::OpenStore};
  return &api;
}
