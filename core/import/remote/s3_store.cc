// S3 and S3-compatible stores (GCS's XML API): path-style requests to a
// configured endpoint, else AWS's virtual-hosted names; SigV4 when
// credentials are known, a bearer token for GCS OAuth, else unsigned;
// listing with ListObjectsV2 (1000 keys a page, continuation tokens).
#include <string_view>

#include "core/import/remote/http_store.h"

namespace th::remote {

namespace {

constexpr std::string_view kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

class S3Store final : public HttpObjectStore {
 public:
  using HttpObjectStore::HttpObjectStore;

 protected:
  Prepared Prepare(const std::string& method, const std::string& key, const HeaderList& query,
                   const HeaderList& extra) const override {
    std::string base, path;
    const std::string encoded_key = UriEncode(key, true);
    if (!config_.endpoint.empty()) {
      base = config_.endpoint;
      path = "/" + url_.bucket + (key.empty() && method == "GET" ? "" : "/" + encoded_key);
    } else if (url_.bucket.find('.') == std::string::npos) {
      base = "https://" + url_.bucket + ".s3." + config_.region + ".amazonaws.com";
      path = "/" + encoded_key;
    } else {
      base = "https://s3." + config_.region + ".amazonaws.com";
      path = "/" + url_.bucket + "/" + encoded_key;
    }
    size_t scheme_end = base.find("://");
    std::string host = base.substr(scheme_end == std::string::npos ? 0 : scheme_end + 3);
    host = host.substr(0, host.find('/'));
    std::string q = CanonicalQuery(query);
    Prepared p{base + path + (q.empty() ? "" : "?" + q), {}};
    SigV4Request r{method, path, query, extra, std::string(kEmptySha256)};
    r.headers.emplace_back("x-amz-content-sha256", std::string(kEmptySha256));
    if (!config_.access_key.empty()) {
      SigV4Scope scope{config_.access_key, config_.secret_key, config_.region, "s3", AmzDateNow()};
      r.headers.emplace_back("host", host);
      r.headers.emplace_back("x-amz-date", scope.amz_date);
      if (!config_.session_token.empty())
        r.headers.emplace_back("x-amz-security-token", config_.session_token);
      p.headers.push_back("Authorization: " + AuthorizationHeader(r, scope));
    } else if (!config_.bearer_token.empty()) {
      p.headers.push_back("Authorization: Bearer " + config_.bearer_token);
    }
    for (const auto& [name, value] : r.headers)
      if (name != "host") p.headers.push_back(name + ": " + value);
    return p;
  }

  HeaderList ListQuery(const std::string& prefix, const std::string& marker) const override {
    HeaderList q = {
        {"list-type", "2"}, {"prefix", prefix}, {"max-keys", std::to_string(options_.list_page)}};
    if (!marker.empty()) q.emplace_back("continuation-token", marker);
    return q;
  }

  std::vector<RemoteObject> ParseListPage(const std::string& body,
                                          std::string* next) const override {
    std::vector<RemoteObject> out;
    for (const std::string& item : XmlValues(body, "Contents")) {
      RemoteObject o;
      o.key = XmlValue(item, "Key");
      o.url = url_.UrlOf(o.key);
      o.size = std::stoull("0" + XmlValue(item, "Size"));
      o.etag = XmlValue(item, "ETag");
      out.push_back(std::move(o));
    }
    *next = XmlValue(body, "IsTruncated") == "true" ? XmlValue(body, "NextContinuationToken") : "";
    return out;
  }
};

// A plain object server: GET and HEAD on the URL itself, no listing.
class PlainHttpStore final : public HttpObjectStore {
 public:
  using HttpObjectStore::HttpObjectStore;

 protected:
  Prepared Prepare(const std::string& method, const std::string& key, const HeaderList& query,
                   const HeaderList& extra) const override {
    (void)method;
    (void)query;
    Prepared p{url_.UrlOf(key), {}};
    for (const auto& [name, value] : extra) p.headers.push_back(name + ": " + value);
    return p;
  }
  HeaderList ListQuery(const std::string&, const std::string&) const override { return {}; }
  std::vector<RemoteObject> ParseListPage(const std::string&, std::string*) const override {
    return {};
  }
};

}  // namespace

std::unique_ptr<ObjectStore> MakeS3Store(ObjectUrl url, StoreConfig config, RemoteOptions options) {
  return std::make_unique<S3Store>(std::move(url), std::move(config), options);
}

std::unique_ptr<ObjectStore> MakePlainHttpStore(ObjectUrl url, RemoteOptions options) {
  StoreConfig none;
  none.source = "none (plain HTTP)";
  return std::make_unique<PlainHttpStore>(std::move(url), std::move(none), options);
}

}  // namespace th::remote
