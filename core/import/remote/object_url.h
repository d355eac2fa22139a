// Remote inputs named by URL: s3://bucket/key, gs://bucket/key,
// az://account/container/blob and http(s)://host/path. A key may be an
// object, a prefix read as a directory ("runs/job42/") or a glob.
#pragma once

#include <string>
#include <string_view>

#include "core/graph/status.h"

namespace th::remote {

enum class Scheme { kS3, kGcs, kAzure, kHttp };

struct ObjectUrl {
  Scheme scheme = Scheme::kS3;
  std::string bucket;     // s3/gs bucket; az: the storage account; http: "scheme://authority"
  std::string container;  // az only
  std::string key;        // object key or prefix, no leading '/'; http: the path and query
  // The URL of `key` within the same bucket/container (what errors and
  // reports show: never carries a credential).
  std::string UrlOf(std::string_view other_key) const;
  std::string url() const { return UrlOf(key); }
  // "bucket b" / "container a/c" / "host h": for errors about access.
  std::string Where() const;
};

// True for inputs this module reads (s3://, gs://, az://, http://, https://).
bool IsRemoteInput(std::string_view input);

// True for a remote object's own name, false for a member of a remote
// archive ("s3://b/ranks.tar.gz:rank0.json", which has no objects beside it).
bool IsRemoteObjectName(std::string_view name);

// Splits a remote input; an error names the input when it lacks a bucket.
StatusOr<ObjectUrl> ParseObjectUrl(const std::string& input);

}  // namespace th::remote
