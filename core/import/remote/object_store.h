// ObjectStore: what tracehound asks of a bucket (S3, GCS, Azure Blob) or an
// HTTP server: an object's size and version, a listing under a prefix, and
// byte ranges of one version. Implemented in the remote module (libcurl,
// loaded on first use); every method is safe to call from several threads.
//
// Faults: each request is retried with exponential backoff and full jitter
// on connection failures and resets, 5xx, 429 and throttling answers, and on
// bodies shorter than asked for; an error left after the last attempt names
// the object URL, the byte offset and what went wrong. A version that changed
// (If-Match answered 412) is never retried: it is reported as a change.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/import/remote/object_url.h"

namespace th::remote {

struct RemoteObject {
  std::string url;  // s3://bucket/key (never a credential)
  std::string key;  // within the bucket/container
  uint64_t size = 0;
  std::string etag;  // the version read; empty when the server gives none
};

// Request behaviour, from TRACEHOUND_REMOTE_* variables (remote_inputs.h).
struct RemoteOptions {
  int attempts = 6;         // tries per request
  int base_delay_ms = 100;  // backoff: random in [0, min(max, base * 2^try)]
  int max_delay_ms = 4000;
  int connect_timeout_s = 10;
  int low_speed_timeout_s = 30;  // a transfer under 1 KiB/s this long is a fault
  int list_page = 1000;          // keys asked for per listing page
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;
  // The object named exactly `key`; NotFound when there is none.
  virtual StatusOr<RemoteObject> Stat(const std::string& key) = 0;
  // Every object whose key starts with `prefix`, in key order, all pages.
  virtual StatusOr<std::vector<RemoteObject>> List(const std::string& prefix) = 0;
  // Reads exactly `length` bytes at `offset` of `object`'s version into out.
  virtual Status ReadRange(const RemoteObject& object, uint64_t offset, size_t length,
                           char* out) = 0;
};

// The remote module's entry: a store for `url`'s bucket/container/server,
// its credentials and endpoint taken from the environment.
struct RemoteModuleApi {
  StatusOr<std::unique_ptr<ObjectStore>> (*open_store)(const ObjectUrl& url,
                                                       const RemoteOptions& options);
};

// Loads the module on first use; nullptr with *error naming what is missing.
const RemoteModuleApi* LoadRemoteModule(std::string* error);

}  // namespace th::remote

#define TH_REMOTE_MODULE_ENTRY "th_remote_module"
