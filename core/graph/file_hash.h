// Streaming a file's bytes into an XXH3-128 state (libxxhash): the one read
// loop behind scan's content hashes and serve's index-cache keys.
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/graph/status.h"

namespace th {

struct Xxh3StateDeleter {
  void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
};
using Xxh3State = std::unique_ptr<XXH3_state_t, Xxh3StateDeleter>;

// A fresh state, reset for XXH3-128.
Xxh3State NewXxh3State();

// Adds every byte of `path` to `state` in 1 MiB blocks; *size (if not null)
// receives the byte count. IoError naming the file when it cannot be read.
Status UpdateHashWithFile(const std::string& path, XXH3_state_t* state, uint64_t* size);

}  // namespace th
