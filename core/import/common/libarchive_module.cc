// The archive module's entry: libarchive's functions, linked here and nowhere
// else in tracehound.
#include "core/import/common/libarchive_module.h"

extern "C" __attribute__((visibility("default"))) const th::LibArchiveApi* th_libarchive_module() {
#define TH_LIBARCHIVE_ADDRESS(name) &::name,
  static const th::LibArchiveApi api{TH_LIBARCHIVE_FUNCTIONS(TH_LIBARCHIVE_ADDRESS)};
#undef TH_LIBARCHIVE_ADDRESS
  return &api;
}
