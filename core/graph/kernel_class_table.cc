#include "core/graph/kernel_class_table.h"

#include <utility>

namespace th {

namespace {

char Fold(char c, bool ignore_case) {
  return ignore_case && c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::vector<KernelClassRule> MakeBuiltins() {
  using K = KernelClass;
  std::vector<KernelClassRule> r;
  auto add = [&r](RuleSet set, const char* match, bool ignore_case, K klass, const char* source) {
    r.push_back({set, match, ignore_case, klass, source});
  };
  const RuleSet t = RuleSet::kTracehound;
  // Collective libraries.
  add(t, "*nccl*", true, K::kComm, "NCCL (NVIDIA Collective Communications Library)");
  add(t, "*rccl*", true, K::kComm, "RCCL (ROCm Communication Collectives Library)");
  add(t, "*mscclpp*", true, K::kComm, "MSCCL++ (microsoft/mscclpp)");
  add(t, "*msccl*", true, K::kComm, "MSCCL (microsoft/msccl)");
  // Expert-parallel all-to-all (MoE): DeepEP's namespaces and the forks that
  // keep them. get_dispatch_layout only counts tokens per rank, locally.
  add(t, "*deep_ep::layout::*", false, K::kComp,
      "DeepEP (deepseek-ai/DeepEP): get_dispatch_layout, local token counting");
  add(t, "*ep::intranode::*", false, K::kComm,
      "DeepEP (deepseek-ai/DeepEP): intranode (NVLink) notify_dispatch, dispatch, combine");
  add(t, "*ep::internode::*", false, K::kComm,
      "DeepEP (deepseek-ai/DeepEP): internode (RDMA) notify_dispatch, dispatch, combine");
  add(t, "*ep::internode_ll::*", false, K::kComm,
      "DeepEP (deepseek-ai/DeepEP): low-latency internode dispatch, combine");
  add(t, "*deep_ep::*", false, K::kComm, "DeepEP (deepseek-ai/DeepEP): other kernels");
  // One-sided communication.
  add(t, "*nvshmem*", true, K::kComm, "NVSHMEM (nvshmem_*/nvshmemx_*/nvshmemi_* kernels)");
  add(t, "*one_shot_all_reduce*", false, K::kComm,
      "PyTorch SymmetricMemory (torch.distributed._symmetric_memory)");
  add(t, "*two_shot_all_reduce*", false, K::kComm,
      "PyTorch SymmetricMemory (torch.distributed._symmetric_memory)");
  add(t, "*multimem_all_reduce*", false, K::kComm,
      "PyTorch SymmetricMemory (torch.distributed._symmetric_memory)");
  add(t, "*multimem_all_gather*", false, K::kComm,
      "PyTorch SymmetricMemory (torch.distributed._symmetric_memory)");
  add(t, "Memcpy PtoP*", false, K::kComm,
      "one-sided copy (cudaMemcpyPeer/P2P: CUPTI memcpy kind PtoP)");

  // HTA 0.6.1 (hta/utils/utils.py): COMMUNICATION, then MEMORY, then the
  // COMPUTATION exclusion list (OTHER), then COMPUTATION. HTA's MEMORY regex
  // also names hipMemcpy/hipMemset, which its COMMUNICATION rule ^hip takes first.
  const RuleSet h = RuleSet::kHta;
  const char* comm = "HTA 0.6.1 COMMUNICATION regex ^nccl|^hip|^hccl|ncclKernel";
  add(h, "nccl*", false, K::kComm, comm);
  add(h, "hip*", false, K::kComm, comm);
  add(h, "hccl*", false, K::kComm, comm);
  add(h, "*ncclKernel*", false, K::kComm, comm);
  const char* mem = "HTA 0.6.1 MEMORY regex ^(hip)?Memcpy|^(hip)?Memset|^dma";
  add(h, "Memcpy*", false, K::kMem, mem);
  add(h, "Memset*", false, K::kMem, mem);
  add(h, "dma*", false, K::kMem, mem);
  const char* other = "HTA 0.6.1 COMPUTATION exclusion list (neither class)";
  for (const char* m : {"*nccl*", "*Memcpy*", "*Memset*", "*dma*", "*Sync*", "Stream Wait Event*",
                        "cuda*LaunchKernel*", "runFunction*"})
    add(h, m, false, K::kOther, other);
  add(h, "*", false, K::kComp, "HTA 0.6.1 COMPUTATION (every other name)");
  return r;
}

}  // namespace

std::string_view KernelClassName(KernelClass c) {
  switch (c) {
    case KernelClass::kComm:
      return "COMM";
    case KernelClass::kComp:
      return "COMP";
    case KernelClass::kMem:
      return "MEM";
    case KernelClass::kOther:
      return "OTHER";
    case KernelClass::kNone:
      break;
  }
  return "";
}

std::string_view RuleSetName(RuleSet s) { return s == RuleSet::kHta ? "hta" : "tracehound"; }

namespace {

bool SameText(std::string_view a, std::string_view b, bool ignore_case) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (Fold(a[i], ignore_case) != Fold(b[i], ignore_case)) return false;
  return true;
}

// The leftmost place of `literal` in name[from, to), or npos.
size_t FindLiteral(std::string_view name, size_t from, size_t to, std::string_view literal,
                   bool ignore_case) {
  if (literal.empty()) return from;
  const char first = Fold(literal[0], ignore_case);
  for (size_t i = from; i + literal.size() <= to; ++i)
    if (Fold(name[i], ignore_case) == first &&
        SameText(name.substr(i, literal.size()), literal, ignore_case))
      return i;
  return std::string_view::npos;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view name, bool ignore_case) {
  // The literals between stars: the first is a prefix, the last a suffix
  // (unless the pattern starts or ends with a star), the others are found
  // left to right, each at its leftmost place (which never loses a match).
  const size_t first_star = pattern.find('*');
  if (first_star == std::string_view::npos) return SameText(pattern, name, ignore_case);
  const size_t last_star = pattern.rfind('*');
  const std::string_view prefix = pattern.substr(0, first_star);
  const std::string_view suffix = pattern.substr(last_star + 1);
  if (prefix.size() + suffix.size() > name.size()) return false;
  if (!SameText(prefix, name.substr(0, prefix.size()), ignore_case) ||
      !SameText(suffix, name.substr(name.size() - suffix.size()), ignore_case))
    return false;
  size_t at = prefix.size();
  const size_t limit = name.size() - suffix.size();
  size_t p = first_star + 1;
  while (p < last_star) {
    const size_t star = pattern.find('*', p);
    const std::string_view literal = pattern.substr(p, star - p);
    const size_t found = FindLiteral(name, at, limit, literal, ignore_case);
    if (found == std::string_view::npos) return false;
    at = found + literal.size();
    p = star + 1;
  }
  return true;
}

const std::vector<KernelClassRule>& BuiltinKernelClassRules() {
  static const std::vector<KernelClassRule> rules = MakeBuiltins();
  return rules;
}

const KernelClassTable& KernelClassTable::Builtin() {
  static const KernelClassTable table = WithPipelineRules({});
  return table;
}

KernelClassTable KernelClassTable::WithPipelineRules(std::vector<KernelClassRule> pipeline_rules) {
  KernelClassTable t;
  t.pipeline_rules_ = pipeline_rules.size();
  t.rules_ = std::move(pipeline_rules);
  for (KernelClassRule& r : t.rules_) r.set = RuleSet::kTracehound;
  const auto& builtins = BuiltinKernelClassRules();
  t.rules_.insert(t.rules_.end(), builtins.begin(), builtins.end());
  return t;
}

uint32_t KernelClassTable::FirstMatch(RuleSet set, std::string_view name) const {
  for (size_t i = 0; i < rules_.size(); ++i)
    if (rules_[i].set == set && rules_[i].Matches(name)) return static_cast<uint32_t>(i);
  return kNoRule;
}

}  // namespace th
