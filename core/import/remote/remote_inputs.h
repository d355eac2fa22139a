// Remote inputs as the loader sees them: expanding a URL into objects (an
// object; a prefix read as a directory, recursively; a glob over keys) and
// opening an object as a streamed ByteSource. Stores are opened once per
// bucket/container/server and kept for the process; objects met in a
// listing are remembered with their ETag, so that what is read is the
// version that was listed.
//
// Tuning, from the environment: TRACEHOUND_REMOTE_STREAMS (parallel ranged
// GETs per object, default 4), TRACEHOUND_REMOTE_CHUNK_MIB (bytes per GET,
// default 8), TRACEHOUND_REMOTE_ATTEMPTS (tries per request, default 6),
// TRACEHOUND_REMOTE_RETRY_DELAY_MS (backoff base, default 100),
// TRACEHOUND_REMOTE_LIST_PAGE (keys per listing page, default and most 1000).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/import/common/byte_source.h"
#include "core/import/remote/object_store.h"
#include "core/import/remote/object_url.h"

namespace th::remote {

struct ExpandedRemote {
  std::vector<RemoteObject> objects;  // sorted by key
  bool explicit_object = false;       // the input named one object
  std::vector<std::string> skipped;   // listed objects not named like traces
};

// `named_like_trace(key)`: whether a listed key is taken from a prefix or glob.
// A prefix (or a key with no object) that lists nothing is NotFound.
StatusOr<ExpandedRemote> ExpandRemoteInput(
    const std::string& input, const std::function<bool(std::string_view)>& named_like_trace);

// The object at `url` (looked up unless a listing met it) as a stream, from
// byte `offset` on.
StatusOr<std::unique_ptr<ByteSource>> OpenRemoteObject(const std::string& url, uint64_t offset = 0);

// The object at `url` with its size and ETag (listing's, else a HEAD).
StatusOr<RemoteObject> LookUpRemoteObject(const std::string& url);

// The objects directly beside `url` (same prefix, no further '/') whose
// keys end in `suffix`, read whole, as (URL, content) pairs sorted by key:
// small side files (XProf's *.hlo_proto.pb).
StatusOr<std::vector<std::pair<std::string, std::string>>> ReadRemoteSiblings(
    const std::string& url, const std::string& suffix);

}  // namespace th::remote
