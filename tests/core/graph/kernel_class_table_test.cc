// The kernel class table: globs, the built-in rules on real kernel names (with
// the source of each decision), HTA's set, and a pipeline's rules first.
#include "core/graph/kernel_class_table.h"

#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <string>
#include <vector>

namespace th {
namespace {

struct Expect {
  const char* name;
  KernelClass klass;  // kNone: no rule matches (the kind decides)
  const char* source_prefix;
};

std::string SourceOf(const KernelClassTable& t, RuleSet set, const std::string& name) {
  const uint32_t r = t.FirstMatch(set, name);
  return r == KernelClassTable::kNoRule ? "" : t.rules()[r].source;
}

KernelClass ClassOf(const KernelClassTable& t, RuleSet set, const std::string& name) {
  const uint32_t r = t.FirstMatch(set, name);
  return r == KernelClassTable::kNoRule ? KernelClass::kNone : t.rules()[r].klass;
}

TEST(GlobMatch, StarIsAnyRunAndTheWholeNameMustMatch) {
  EXPECT_TRUE(GlobMatch("nccl*", "ncclKernel_AllReduce", false));
  EXPECT_FALSE(GlobMatch("nccl*", "void ncclKernel", false));
  EXPECT_TRUE(GlobMatch("*nccl*", "void ncclKernel", false));
  EXPECT_TRUE(GlobMatch("*", "", false));
  EXPECT_TRUE(GlobMatch("**", "x", false));
  EXPECT_FALSE(GlobMatch("", "x", false));
  EXPECT_TRUE(GlobMatch("", "", false));
  EXPECT_TRUE(GlobMatch("cuda*LaunchKernel*", "cudaLaunchKernel", false));
  EXPECT_TRUE(GlobMatch("cuda*LaunchKernel*", "cudaLaunchKernelExC_v11060", false));
  EXPECT_FALSE(GlobMatch("cuda*LaunchKernel*", "hipLaunchKernel", false));
  // Backtracking: the first "ep::" is not the one that completes the match.
  EXPECT_TRUE(GlobMatch("*ep::internode::*", "void deep_ep::ep::internode::combine<1>", false));
  EXPECT_FALSE(GlobMatch("*ep::internode::*", "void deep_ep::internode_ll::combine<1>", false));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXbYbZc", false));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXbYbZ", false));
  // Case: ASCII letters only, on request.
  EXPECT_FALSE(GlobMatch("*nccl*", "RCCL_NCCL_kernel", false));
  EXPECT_TRUE(GlobMatch("*nccl*", "RCCL_NCCL_kernel", true));
  EXPECT_TRUE(GlobMatch("*RCCL*", "rccl", true));
}

// The reference: dynamic programming over (pattern prefix, name prefix).
bool GlobByTable(const std::string& pattern, const std::string& name, bool ignore_case) {
  auto fold = [&](char c) { return ignore_case ? static_cast<char>(std::tolower(c)) : c; };
  std::vector<std::vector<bool>> m(pattern.size() + 1, std::vector<bool>(name.size() + 1));
  m[0][0] = true;
  for (size_t p = 1; p <= pattern.size(); ++p)
    for (size_t n = 0; n <= name.size(); ++n)
      m[p][n] = pattern[p - 1] == '*'
                    ? m[p - 1][n] || (n > 0 && m[p][n - 1])
                    : n > 0 && m[p - 1][n - 1] && fold(pattern[p - 1]) == fold(name[n - 1]);
  return m[pattern.size()][name.size()];
}

TEST(GlobMatch, AgreesWithTheReferenceOnRandomPatterns) {
  std::mt19937 rng(7);
  const std::string pattern_letters = "abAB**", name_letters = "abAB";
  auto draw = [&](const std::string& letters, size_t max_len) {
    std::string s(rng() % (max_len + 1), ' ');
    for (char& c : s) c = letters[rng() % letters.size()];
    return s;
  };
  for (int i = 0; i < 20000; ++i) {
    const std::string pattern = draw(pattern_letters, 7), name = draw(name_letters, 9);
    const bool ignore_case = i % 2 == 1;
    ASSERT_EQ(GlobMatch(pattern, name, ignore_case), GlobByTable(pattern, name, ignore_case))
        << "pattern '" << pattern << "' name '" << name << "' ignore_case " << ignore_case;
  }
}

TEST(KernelClassTable, BuiltinRulesClassifyRealKernelNamesAndSayWhy) {
  const KernelClassTable& t = KernelClassTable::Builtin();
  const Expect cases[] = {
      {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", KernelClass::kComm,
       "NCCL"},
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
       KernelClass::kComm, "NCCL"},
      {"void rcclGenericKernel<1, false>(ncclDevComm*, unsigned long, ncclWork*)",
       KernelClass::kComm, "NCCL"},  // RCCL keeps NCCL's names; the first rule says NCCL
      {"RCCL_AllToAllPivot_kernel", KernelClass::kComm, "RCCL"},
      {"void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int, int const*, int*, int, "
       "int, int, bool const*, int*, int*, int, int, void**, int**, int, int)",
       KernelClass::kComm, "DeepEP (deepseek-ai/DeepEP): intranode"},
      {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*)",
       KernelClass::kComm, "DeepEP (deepseek-ai/DeepEP): intranode"},
      {"void deep_ep::intranode::combine<__nv_bfloat16, 8, 768, 4096>(int4*, float*)",
       KernelClass::kComm, "DeepEP (deepseek-ai/DeepEP): intranode"},
      {"void deep_ep::intranode::cached_notify_combine<8>(void**, int*, int, int, int, int**, "
       "int, int)",
       KernelClass::kComm, "DeepEP (deepseek-ai/DeepEP): intranode"},
      {"void deep_ep::internode::notify_dispatch<8>(int const*, int*, int)", KernelClass::kComm,
       "DeepEP (deepseek-ai/DeepEP): internode"},
      {"void deep_ep::internode::dispatch<false, 8, 3, 4, 64, 4>(int4*, float*, long*)",
       KernelClass::kComm, "DeepEP (deepseek-ai/DeepEP): internode"},
      {"void deep_ep::internode::combine<__nv_bfloat16, 8, 3, 4>(int4*, float*, bool const*)",
       KernelClass::kComm, "DeepEP (deepseek-ai/DeepEP): internode"},
      {"void deep_ep::internode_ll::dispatch<false, 3, 7168>(void*, float*, int*, long*)",
       KernelClass::kComm, "DeepEP (deepseek-ai/DeepEP): low-latency"},
      {"void deep_ep::internode_ll::clean_low_latency_buffer<32>(int*, int, int*, int)",
       KernelClass::kComm, "DeepEP (deepseek-ai/DeepEP): low-latency"},
      {"void uccl::ep::internode::dispatch<4>(int4*)", KernelClass::kComm,
       "DeepEP (deepseek-ai/DeepEP): internode"},  // a fork keeping DeepEP's namespaces
      {"void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, "
       "bool*, int, int, int, int)",
       KernelClass::kComp, "DeepEP (deepseek-ai/DeepEP): get_dispatch_layout"},
      {"void nvshmemi_proxy_rma_entrypoint<(nvshmemi_op_t)1, 1>(void*, void*, rma_bytesdesc_t, "
       "int)",
       KernelClass::kComm, "NVSHMEM"},
      {"void nvshmemi_reduce_kernel<float, (rdxn_ops)0>(int, int, int, float*, float const*)",
       KernelClass::kComm, "NVSHMEM"},
      {"nvshmem_barrier_all_on_stream_kernel", KernelClass::kComm, "NVSHMEM"},
      {"void nvshmemx_float_sum_reduce_block_kernel(int, float*, float const*, unsigned long)",
       KernelClass::kComm, "NVSHMEM"},
      {"void mscclpp::executionKernel<__nv_bfloat16, false>(int, __nv_bfloat16*, __nv_bfloat16*, "
       "__nv_bfloat16*, void*, unsigned int, mscclpp::DeviceExecutionPlan*, unsigned long, "
       "unsigned long)",
       KernelClass::kComm, "MSCCL++"},
      {"mscclKernel_Sum_float_LL128", KernelClass::kComm, "MSCCL (microsoft/msccl)"},
      {"void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 16>(float**, float*, "
       "unsigned long, unsigned int**, unsigned long, unsigned long)",
       KernelClass::kComm, "PyTorch SymmetricMemory"},
      {"void c10d::symmetric_memory::multimem_all_gather_kernel<16>(char*, char*, unsigned long)",
       KernelClass::kComm, "PyTorch SymmetricMemory"},
      {"Memcpy PtoP (Device -> Device)", KernelClass::kComm, "one-sided copy"},
      // No rule: the kind decides (a kernel is COMP, a copy MEM).
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
       "segment_k_off_kernel__5x_cublas",
       KernelClass::kNone, ""},
      {"Memcpy HtoD (Pinned -> Device)", KernelClass::kNone, ""},
      {"Memcpy DtoD (Device -> Device)", KernelClass::kNone, ""},
  };
  for (const Expect& c : cases) {
    std::string name = c.name;
    EXPECT_EQ(ClassOf(t, RuleSet::kTracehound, name), c.klass) << name;
    EXPECT_TRUE(SourceOf(t, RuleSet::kTracehound, name).starts_with(c.source_prefix))
        << name << " -> " << SourceOf(t, RuleSet::kTracehound, name);
  }
}

TEST(KernelClassTable, HtaSetIsHtasKernelTypes) {
  const KernelClassTable& t = KernelClassTable::Builtin();
  const RuleSet h = RuleSet::kHta;
  EXPECT_EQ(ClassOf(t, h, "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"),
            KernelClass::kComm);
  EXPECT_EQ(ClassOf(t, h, "hipMemcpyWithStream"), KernelClass::kComm);  // ^hip first, as HTA
  EXPECT_EQ(ClassOf(t, h, "void foo::ncclKernel_bar()"), KernelClass::kComm);
  EXPECT_EQ(ClassOf(t, h, "Memcpy DtoH (Device -> Pinned)"), KernelClass::kMem);
  EXPECT_EQ(ClassOf(t, h, "Memset (Device)"), KernelClass::kMem);
  EXPECT_EQ(ClassOf(t, h, "Memcpy PtoP (Device -> Device)"), KernelClass::kMem);
  for (const char* other : {"Context Sync", "Event Sync", "Stream Sync", "Stream Wait Event",
                            "cudaLaunchKernel", "runFunction", "void x_nccl_y()"})
    EXPECT_EQ(ClassOf(t, h, other), KernelClass::kOther) << other;
  // HTA knows no DeepEP, NVSHMEM or MSCCL++: computation, as in HTA.
  EXPECT_EQ(ClassOf(t, h, "void deep_ep::internode::dispatch<4>(int4*)"), KernelClass::kComp);
  EXPECT_EQ(ClassOf(t, h, "void nvshmemi_reduce_kernel<float>()"), KernelClass::kComp);
  EXPECT_EQ(ClassOf(t, h, "gemm"), KernelClass::kComp);
  EXPECT_EQ(SourceOf(t, h, "gemm"), "HTA 0.6.1 COMPUTATION (every other name)");
}

TEST(KernelClassTable, PipelineRulesComeFirstAndOnlyInTheTracehoundSet) {
  KernelClassRule mine;
  mine.match = "*internode::notify_dispatch*";
  mine.klass = KernelClass::kComp;
  mine.source = "pipeline moe.yaml:3:5";
  mine.set = RuleSet::kHta;  // ignored: a pipeline extends the tracehound set only
  KernelClassRule custom;
  custom.match = "*MOE_A2A*";
  custom.ignore_case = true;
  custom.klass = KernelClass::kComm;
  custom.source = "our all-to-all";
  KernelClassTable t = KernelClassTable::WithPipelineRules({mine, custom});
  EXPECT_EQ(t.pipeline_rule_count(), 2u);
  EXPECT_EQ(t.rules().size(), BuiltinKernelClassRules().size() + 2);
  const std::string notify = "void deep_ep::internode::notify_dispatch<8>(int const*)";
  EXPECT_EQ(ClassOf(t, RuleSet::kTracehound, notify), KernelClass::kComp);
  EXPECT_EQ(SourceOf(t, RuleSet::kTracehound, notify), "pipeline moe.yaml:3:5");
  EXPECT_EQ(ClassOf(t, RuleSet::kTracehound, "void deep_ep::internode::combine<4>()"),
            KernelClass::kComm);
  EXPECT_EQ(ClassOf(t, RuleSet::kTracehound, "void my::moe_a2a_dispatch()"), KernelClass::kComm);
  EXPECT_EQ(ClassOf(t, RuleSet::kHta, notify), KernelClass::kComp);
  EXPECT_EQ(SourceOf(t, RuleSet::kHta, notify), "HTA 0.6.1 COMPUTATION (every other name)");
}

TEST(KernelClassTable, Names) {
  EXPECT_EQ(KernelClassName(KernelClass::kComm), "COMM");
  EXPECT_EQ(KernelClassName(KernelClass::kComp), "COMP");
  EXPECT_EQ(KernelClassName(KernelClass::kMem), "MEM");
  EXPECT_EQ(KernelClassName(KernelClass::kOther), "OTHER");
  EXPECT_EQ(RuleSetName(RuleSet::kHta), "hta");
}

}  // namespace
}  // namespace th
