// A ByteSource over one remote object: `streams` ranged GETs of
// `chunk_bytes` each run ahead of the reader in parallel, so that parsing
// starts with the first chunk and memory stays bounded by
// (streams + 1) x chunk_bytes whatever the object's size. Every range asks
// for the version (ETag) the object had when it was listed or looked up; a
// changed object fails the read instead of mixing two versions. A failed
// range (after the store's retries) fails Read with the object's URL and
// the byte offset.
#pragma once

#include <memory>

#include "core/import/common/byte_source.h"
#include "core/import/remote/object_store.h"

namespace th::remote {

struct StreamOptions {
  size_t chunk_bytes = size_t{8} << 20;
  int streams = 4;
};

// The object's bytes from `offset` to its end; stored_bytes_read() is the
// object's offset reached.
std::unique_ptr<ByteSource> MakeRemoteSource(std::shared_ptr<ObjectStore> store,
                                             RemoteObject object, StreamOptions options,
                                             uint64_t offset = 0);

}  // namespace th::remote
