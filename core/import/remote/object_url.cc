#include "core/import/remote/object_url.h"

namespace th::remote {

namespace {

constexpr std::string_view kPrefixes[] = {"s3://", "gs://", "az://", "http://", "https://"};

}  // namespace

bool IsRemoteInput(std::string_view input) {
  for (std::string_view p : kPrefixes)
    if (input.starts_with(p)) return true;
  return false;
}

bool IsRemoteObjectName(std::string_view name) {
  if (!IsRemoteInput(name)) return false;
  for (std::string_view archive : {".tar:", ".tar.gz:", ".tgz:", ".zip:"})
    if (name.find(archive) != std::string_view::npos) return false;
  return true;
}

std::string ObjectUrl::UrlOf(std::string_view other_key) const {
  switch (scheme) {
    case Scheme::kS3:
      return "s3://" + bucket + "/" + std::string(other_key);
    case Scheme::kGcs:
      return "gs://" + bucket + "/" + std::string(other_key);
    case Scheme::kAzure:
      return "az://" + bucket + "/" + container + "/" + std::string(other_key);
    case Scheme::kHttp:
      return bucket + "/" + std::string(other_key);
  }
  return {};
}

std::string ObjectUrl::Where() const {
  switch (scheme) {
    case Scheme::kS3:
    case Scheme::kGcs:
      return "bucket " + bucket;
    case Scheme::kAzure:
      return "container " + container + " of account " + bucket;
    case Scheme::kHttp:
      return "server " + bucket;
  }
  return {};
}

StatusOr<ObjectUrl> ParseObjectUrl(const std::string& input) {
  ObjectUrl url;
  size_t sep = input.find("://");
  if (sep == std::string::npos || !IsRemoteInput(input))
    return InvalidInput(input + ": not a remote URL (s3://, gs://, az://, https://)");
  std::string_view scheme(input.data(), sep);
  std::string_view rest(input.data() + sep + 3, input.size() - sep - 3);
  size_t slash = rest.find('/');
  std::string_view first = rest.substr(0, slash);
  std::string_view after = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  if (first.empty()) return InvalidInput(input + ": the URL names no bucket or host");
  if (scheme == "http" || scheme == "https") {
    url.scheme = Scheme::kHttp;
    url.bucket = std::string(scheme) + "://" + std::string(first);
    url.key = std::string(after);
    return url;
  }
  url.bucket = std::string(first);
  if (scheme == "s3") {
    url.scheme = Scheme::kS3;
  } else if (scheme == "gs") {
    url.scheme = Scheme::kGcs;
  } else {
    url.scheme = Scheme::kAzure;
    size_t c = after.find('/');
    url.container = std::string(after.substr(0, c));
    if (url.container.empty())
      return InvalidInput(input + ": an az:// URL is az://ACCOUNT/CONTAINER/PATH");
    after = c == std::string_view::npos ? "" : after.substr(c + 1);
  }
  url.key = std::string(after);
  return url;
}

}  // namespace th::remote
