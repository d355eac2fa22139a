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

bool GlobMatch(std::string_view pattern, std::string_view name, bool ignore_case) {
  // Greedy match with one backtrack point: the last `*` seen and where the
  // name stood when it was met.
  size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && Fold(pattern[p], ignore_case) == Fold(name[n], ignore_case)) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
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
