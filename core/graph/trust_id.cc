#include "core/graph/trust_id.h"

#include <array>

namespace th {
namespace {

constexpr std::array kTrustIds = {
#define TH_TRUST_ID_INFO(id, name, severity, description) \
  TrustIdInfo{TrustId::id, name, Severity::severity, description},
    TH_TRUST_IDS(TH_TRUST_ID_INFO)
#undef TH_TRUST_ID_INFO
};

// InfoOf indexes the table by the enumerator's value.
constexpr bool InListOrder() {
  for (size_t i = 0; i < kTrustIds.size(); ++i)
    if (static_cast<size_t>(kTrustIds[i].id) != i) return false;
  return true;
}
static_assert(InListOrder());

}  // namespace

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kDataLoss:
      return "data_loss";
    case Severity::kError:
      return "error";
  }
  return "info";
}

std::span<const TrustIdInfo> AllTrustIds() { return kTrustIds; }

const TrustIdInfo& InfoOf(TrustId id) { return kTrustIds[static_cast<size_t>(id)]; }

}  // namespace th
