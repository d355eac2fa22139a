#include "core/import/xspace/varint_gather.h"

namespace th::xspace {

#if defined(__BMI2__)
bool PextIsFast() {
  __builtin_cpu_init();  // may run before other constructors
  return !(__builtin_cpu_is("znver1") || __builtin_cpu_is("znver2"));
}
#endif

}  // namespace th::xspace
