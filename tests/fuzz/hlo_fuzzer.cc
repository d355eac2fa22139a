// HLO module protos (`*.hlo_proto.pb`, the "Hlo Proto" stat): the strict wire
// decoder, then the text form of every instruction's shape.
#include <string>

#include "core/graph/hlo_text.h"
#include "core/import/hlo/hlo_reader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto modules = th::hlo::ReadHloProto(
      std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.hlo_proto.pb");
  if (!modules.ok()) {
    const std::string& m = modules.status().message();
    th::fuzz::Require(m.rfind("fuzz.hlo_proto.pb", 0) == 0, "error does not name the input: " + m);
    return 0;
  }
  size_t chars = 0;
  for (const th::hlo::HloModule& module : *modules)
    for (const th::hlo::HloComputation& c : module.computations)
      for (const th::hlo::HloInstruction& ins : c.instructions) chars += th::hlo::ShapeText(ins.shape).size();
  th::fuzz::Require(chars < (size_t{1} << 40), "shape text");
  return 0;
}
