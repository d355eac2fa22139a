// HttpObjectStore: the requests every store makes (HEAD for an object,
// paged listing, ranged GET of one version), over a subclass that says how a
// request is addressed and signed and how a listing page reads. Subclasses:
// S3-compatible (S3, GCS's XML API) and plain HTTP(S) (s3_store.cc), Azure
// Blob (azure_store.cc). Linked into the remote module only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/import/remote/http_client.h"
#include "core/import/remote/object_store.h"
#include "core/import/remote/sigv4.h"
#include "core/import/remote/store_config.h"

namespace th::remote {

class HttpObjectStore : public ObjectStore {
 public:
  HttpObjectStore(ObjectUrl url, StoreConfig config, RemoteOptions options)
      : url_(std::move(url)), config_(std::move(config)), options_(options) {}

  StatusOr<RemoteObject> Stat(const std::string& key) override;
  StatusOr<std::vector<RemoteObject>> List(const std::string& prefix) override;
  Status ReadRange(const RemoteObject& object, uint64_t offset, size_t length, char* out) override;

 protected:
  struct Prepared {
    std::string url;
    std::vector<std::string> headers;
  };
  // The request for `method` on `key` ("" = the bucket/container itself) with
  // `query` and the extra headers `extra` (signed where the scheme signs).
  virtual Prepared Prepare(const std::string& method, const std::string& key,
                           const HeaderList& query, const HeaderList& extra) const = 0;
  // The query of the listing page after `marker` ("" = the first page);
  // an empty list when the store cannot list.
  virtual HeaderList ListQuery(const std::string& prefix, const std::string& marker) const = 0;
  // The objects of one page and the marker of the next ("" = last page).
  virtual std::vector<RemoteObject> ParseListPage(const std::string& body,
                                                  std::string* next) const = 0;

  // "HTTP 403 SignatureDoesNotMatch: ..." with, for 401/403, which
  // bucket refused and where the credentials came from.
  std::string Describe(const HttpReply& reply) const;

  ObjectUrl url_;
  StoreConfig config_;
  RemoteOptions options_;
};

std::unique_ptr<ObjectStore> MakeS3Store(ObjectUrl url, StoreConfig config, RemoteOptions options);
std::unique_ptr<ObjectStore> MakePlainHttpStore(ObjectUrl url, RemoteOptions options);
std::unique_ptr<ObjectStore> MakeAzureStore(ObjectUrl url, StoreConfig config,
                                            RemoteOptions options);

}  // namespace th::remote
