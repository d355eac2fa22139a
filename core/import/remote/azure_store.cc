// Azure Blob storage: az://ACCOUNT/CONTAINER/BLOB at AZURE_STORAGE_ENDPOINT
// (path-style, e.g. an emulator: http://127.0.0.1:10000/ACCOUNT) or
// https://ACCOUNT.blob.core.windows.net; a SAS token appended to every
// request, else Shared Key signing, else anonymous; listing with List Blobs
// (markers).
#include "core/import/remote/azure_shared_key.h"
#include "core/import/remote/http_store.h"

namespace th::remote {

namespace {

constexpr const char* kApiVersion = "2021-08-06";

class AzureStore final : public HttpObjectStore {
 public:
  using HttpObjectStore::HttpObjectStore;

 protected:
  Prepared Prepare(const std::string& method, const std::string& key, const HeaderList& query,
                   const HeaderList& extra) const override {
    std::string base = config_.endpoint.empty()
                           ? "https://" + url_.bucket + ".blob.core.windows.net"
                           : config_.endpoint;
    // The path signed is the one after the account (an emulator's URL
    // carries the account as its first segment).
    std::string path = "/" + url_.container + (key.empty() ? "" : "/" + UriEncode(key, true));
    HeaderList headers = extra;
    headers.emplace_back("x-ms-date", HttpDateNow());
    headers.emplace_back("x-ms-version", kApiVersion);
    std::string q = CanonicalQuery(query);
    if (!config_.sas_token.empty()) q += (q.empty() ? "" : "&") + config_.sas_token;
    Prepared p{base + path + (q.empty() ? "" : "?" + q), {}};
    if (config_.sas_token.empty() && !config_.shared_key.empty()) {
      std::string signed_path = config_.endpoint.empty() ? path : "/" + url_.bucket + path;
      AzureRequest r{method, url_.bucket, signed_path, query, headers};
      p.headers.push_back("Authorization: " + AzureSharedKeyAuthorization(r, config_.shared_key));
    }
    for (const auto& [name, value] : headers) p.headers.push_back(name + ": " + value);
    return p;
  }

  HeaderList ListQuery(const std::string& prefix, const std::string& marker) const override {
    HeaderList q = {{"restype", "container"},
                    {"comp", "list"},
                    {"prefix", prefix},
                    {"maxresults", std::to_string(options_.list_page)}};
    if (!marker.empty()) q.emplace_back("marker", marker);
    return q;
  }

  std::vector<RemoteObject> ParseListPage(const std::string& body,
                                          std::string* next) const override {
    std::vector<RemoteObject> out;
    for (const std::string& item : XmlValues(body, "Blob")) {
      RemoteObject o;
      o.key = XmlValue(item, "Name");
      o.url = url_.UrlOf(o.key);
      o.size = std::stoull("0" + XmlValue(item, "Content-Length"));
      o.etag = XmlValue(item, "Etag");
      out.push_back(std::move(o));
    }
    *next = XmlValue(body, "NextMarker");
    return out;
  }
};

}  // namespace

std::unique_ptr<ObjectStore> MakeAzureStore(ObjectUrl url, StoreConfig config,
                                            RemoteOptions options) {
  return std::make_unique<AzureStore>(std::move(url), std::move(config), options);
}

}  // namespace th::remote
