// The finders of core/redact/text_patterns.h and entropy.h, kind by kind:
// what each finds, and what it must leave alone (kernel names, C++ scopes,
// op names, Python module paths, shapes).
#include "core/redact/text_patterns.h"

#include <gtest/gtest.h>

#include <random>

#include "core/redact/entropy.h"
#include "core/redact/redact_rules.h"
#include "tests/support/test_files.h"

namespace th::redact {
namespace {

std::vector<std::string> Texts(std::string_view s, const std::vector<Span>& spans) {
  std::vector<std::string> out;
  for (const Span& sp : spans) out.emplace_back(s.substr(sp.begin, sp.end - sp.begin));
  return out;
}
using Strings = std::vector<std::string>;

template <typename Fn>
Strings Find(std::string_view s, Fn fn) {
  std::vector<Span> spans;
  fn(s, &spans);
  return Texts(s, spans);
}

const RuleSet& Shipped() {
  static const RuleSet* rules = [] {
    auto r =
        ParseRules(testing::ReadFile(std::string(TRACEHOUND_SOURCE_DIR) + "/configs/redact.yaml"),
                   "redact.yaml");
    EXPECT_TRUE(r.ok()) << r.status().message();
    return new RuleSet(std::move(*r));
  }();
  return *rules;
}
const Rule& ShippedRule(std::string_view id) {
  for (const Rule& r : Shipped().rules)
    if (r.id == id) return r;
  ADD_FAILURE() << "no rule " << id;
  static Rule none;
  return none;
}

// Real kernel, op and module names (from the traces in ../shared/data) that
// no rule may touch.
const std::vector<std::string>& CodeNames() {
  static const std::vector<std::string> names = {
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3>)",
      "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
      "segment_k_off_kernel__5x_cublas",
      "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_13BUnaryFunctorIN3c104HalfES4_S4_"
      "NS0_17AddFunctorIS4_EEEENS_6detail5ArrayIPcLi2EEEEEviT0_T1_",
      "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_"
      "ASEM1_CLR1_CADS0_EPS0_GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA8",
      "_ZN2ck27kernel_gemm_xdl_cshuffle_v3INS_"
      "30ComputePtrOffsetOfStridedBatchILi1ELi1ELi0EvEELb1EEE"
      "vPKT0_",
      "6layout40ColumnMajorTensorOpMultiplicandCongruousILi32ELi32EEELi1ESI",
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(Params)",
      "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
      "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
      "triton_poi_fused__to_copy_add_mul_0",
      "Memcpy HtoD (Pageable -> Device)",
      "aten::_scaled_dot_product_efficient_attention",
      "aten::convolution_backward",
      "c10::cuda::CUDAStream::synchronize",
      "at::native::(anonymous namespace)::c10::bf16",
      "torch.nn.functional.linear",
      "torchvision.io.read_image",
      "logger.info(msg)",
      "threading.py(1075): _bootstrap_inner",
      "torch/nn/modules/module.py(1501): _call_impl",
      "jit(train_step)/jit(main)/while/body/dot_general",
      "jit(loss_fn)/transpose(jvp(bsd,de->bse))/dot_general",
      "%fusion.12 = f32[8,128]{1,0} fusion(f32[8,128]{1,0} %p0), kind=kLoop",
      "/device:GPU:0",
      "/host:CPU",
      "ProfilerStep#12",
      "[[1, 2, 3], [4, 5], []]",
      "Optimizer.zero_grad#SGD.zero_grad",
      "2.17.1",
      "12:34:56",
      "0x7fda0e810200",
      "cudaLaunchKernel",
      "nccl:all_reduce",
      "Qwen/Qwen1.5-0.5B-Chat",
      "thread 3212787 (launcher_test_m)",
  };
  return names;
}

TEST(Pseudonym, Shape) {
  EXPECT_TRUE(IsPseudonym("user-3f9a2c1b"));
  EXPECT_TRUE(IsPseudonym("host2-0123456789abcdef"));
  EXPECT_FALSE(IsPseudonym("user-3f9a2c1"));   // 7 digits
  EXPECT_FALSE(IsPseudonym("user-3F9A2C1B"));  // upper case
  EXPECT_FALSE(IsPseudonym("User-3f9a2c1b"));
  EXPECT_FALSE(IsPseudonym("-3f9a2c1b"));
  EXPECT_FALSE(IsPseudonym("user-3f9a2c1bz"));
}

TEST(PrivateKeys, BlocksAndCutBlocks) {
  std::string key =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----";
  EXPECT_EQ(Find("key=" + key + " tail", FindPrivateKeyBlocks), Strings{key});
  std::string openssh = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA";
  EXPECT_EQ(Find("x " + openssh, FindPrivateKeyBlocks), Strings{openssh});
  EXPECT_TRUE(
      Find("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", FindPrivateKeyBlocks)
          .empty());
}

TEST(Jwts, ThreeParts) {
  std::string jwt =
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_"
      "XgL0n3I9PlFUP0THsR8U";
  EXPECT_EQ(Find("Authorization: Bearer " + jwt, FindJwts), Strings{jwt});
  EXPECT_TRUE(Find("eyJhbGciOiJIUzI1NiJ9", FindJwts).empty());  // one part
  EXPECT_TRUE(Find("xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.x", FindJwts).empty());
}

TEST(TokenPrefixes, EveryShippedPrefix) {
  const Rule& r = ShippedRule("token-prefix");
  const std::vector<std::pair<std::string, std::string>> tokens = {
      {"ghp_", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
      {"gho_", "gho_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
      {"ghu_", "ghu_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
      {"ghs_", "ghs_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
      {"ghr_", "ghr_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
      {"github_pat_", "github_pat_11ABCDEFG0123456789_abcdefghijKLMNOPQRSTuvwxyz0123456789"},
      {"glpat-", "glpat-xYz12-AbC34_dEf56ghIJ"},
      {"xoxb-", "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp"},
      {"xoxp-", "xoxp-1234567890-0987654321-AbCdEfGhIjKlMnOp"},
      {"xoxa-", "xoxa-2-1234567890-AbCdEf"},
      {"xoxr-", "xoxr-1234567890-AbCdEfGh"},
      {"xoxs-", "xoxs-1234567890-AbCdEfGh"},
      {"AKIA", "AKIAIOSFODNN7EXAMPLE"},
      {"ASIA", "ASIAY34FZKBOKMUTVV7A"},
      {"sk-", "sk-AbCdEfGhIjKlMnOpQrStUvWxYz012345"},
      {"sk-proj-", "sk-proj-AbCdEfGhIj_KlMnOpQrSt-UvWxYz012345"},
      {"hf_", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567"},
  };
  for (const auto& [prefix, token] : tokens) {
    std::string text = "export TOKEN=" + token + "; done";
    std::vector<Span> spans;
    FindRuleSpans(r, text, &spans);
    EXPECT_EQ(Texts(text, spans), Strings{token}) << prefix;
  }
  for (const char* not_token : {"task-AbCdEfGhIjKlMnOpQrStUvWxYz012345",  // "sk-" inside a word
                                "AKIAIOSFODNN7EXAMPLEX",  // 17 characters after AKIA
                                "ghp_short", "hf_tooShort", "desk-top"}) {
    std::vector<Span> spans;
    FindRuleSpans(r, not_token, &spans);
    EXPECT_TRUE(spans.empty()) << not_token;
  }
}

TEST(Emails, AddressesOnly) {
  EXPECT_EQ(Find("mail jane.doe+ml@corp.example.com now", FindEmails),
            Strings{"jane.doe+ml@corp.example.com"});
  EXPECT_EQ(Find("<a@b.io>.", FindEmails), Strings{"a@b.io"});
  EXPECT_TRUE(Find("user@localhost", FindEmails).empty());
  EXPECT_TRUE(Find("@decorator.fn", FindEmails).empty());
  EXPECT_TRUE(Find("x@y.z1", FindEmails).empty());
}

TEST(Ipv4, DottedQuadsNotVersions) {
  EXPECT_EQ(Find("master 10.0.12.255:29500", FindIpv4), Strings{"10.0.12.255"});
  EXPECT_EQ(Find("(192.168.1.1)", FindIpv4), Strings{"192.168.1.1"});
  for (const char* s : {"2.17.1", "1.2.3.4.5", "300.1.1.1", "v10.0.0.1a", "1.2.3", "a1.2.3.4",
                        "ninja==1.11.1.4", "12.8.4.1-1", "py4j 0.10.9.9"})
    EXPECT_TRUE(Find(s, FindIpv4).empty()) << s;
}

TEST(Ipv6, AddressesNotScopes) {
  EXPECT_EQ(Find("peer [2001:db8::8a2e:370:7334]:443", FindIpv6),
            Strings{"2001:db8::8a2e:370:7334"});
  EXPECT_EQ(Find("fe80::1:2:3 up", FindIpv6), Strings{"fe80::1:2:3"});
  EXPECT_EQ(Find("2001:0db8:0000:0000:0000:ff00:0042:8329", FindIpv6),
            Strings{"2001:0db8:0000:0000:0000:ff00:0042:8329"});
  for (const char* s : {"c10::bf16(x)", "at::native::add", "std::vector<int>", "12:34:56", "ab::cd",
                        "::1", "a::b::c"})
    EXPECT_TRUE(Find(s, FindIpv6).empty()) << s;
}

TEST(Hostnames, FqdnsKnownNamesAndFileNames) {
  HostPatterns p = ShippedRule("hostname").hosts;
  auto find = [&](std::string_view s) {
    std::vector<Span> spans;
    FindHostnames(s, p, &spans);
    return Texts(s, spans);
  };
  EXPECT_EQ(find("host_name devgpu109.atn2.facebook.com ok"),
            Strings{"devgpu109.atn2.facebook.com"});
  EXPECT_EQ(find("chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb"),
            Strings{"chi-mi300x-013.ord.vultr.cpe.ice.amd.com"});
  EXPECT_EQ(find("node7.cluster.local:29500"), Strings{"node7.cluster.local"});
  for (const char* s : {"torch.nn.functional", "logger.info(x)", "torchvision.io.read_image",
                        "model.py", "libcuda.so.1", "kernel.cu", "x.com(1)", "v1.2.3"})
    EXPECT_TRUE(find(s).empty()) << s;
  p.known = {"tw003", "934987a2fc2f"};
  EXPECT_EQ(find("tw003.xplane.pb"), Strings{"tw003"});
  EXPECT_EQ(find("/tmp/TW003/x and 934987a2fc2f"), (Strings{"TW003", "934987a2fc2f"}));
  EXPECT_TRUE(find("tw0030 xtw003 tw003-a").empty());
}

TEST(HomeUsers, UserSegmentOnly) {
  HomePatterns p = ShippedRule("home-user").home;
  auto find = [&](std::string_view s) {
    std::vector<Span> spans;
    FindHomeUsers(s, p, &spans);
    return Texts(s, spans);
  };
  EXPECT_EQ(find("/home/alice/proj/train.py(12): main"), Strings{"alice"});
  EXPECT_EQ(find("/private/home/anupamb/trace.json"), Strings{"anupamb"});
  EXPECT_EQ(find("/Users/John Smith/proj/x.py"), Strings{"John Smith"});
  EXPECT_EQ(find("C:\\Users\\bob\\proj\\x.py"), Strings{"bob"});
  EXPECT_EQ(find("a /home/a/x;/home/b/y"), (Strings{"a", "b"}));
  EXPECT_TRUE(find("/Users/Shared/data").empty());
  EXPECT_TRUE(find("/home/user-3f9a2c1b/x").empty());  // already a pseudonym
}

TEST(PrivatePaths, DirectoriesOutsidePublicTrees) {
  PathPatterns p = ShippedRule("private-path").paths;
  auto find = [&](std::string_view s) {
    std::vector<Span> spans;
    FindPrivatePaths(s, p, &spans);
    return Texts(s, spans);
  };
  EXPECT_EQ(find("/app/xDiT/xfuser/core/state.py(105): get_pp_group"),
            Strings{"/app/xDiT/xfuser/core"});
  EXPECT_EQ(find("a.py(1): f;/srv/proj/b.py(2): g;/srv/other/c.py(3): h"),
            (Strings{"/srv/proj", "/srv/other"}));
  EXPECT_EQ(find("source=/workspace/traces/gen.py:42"), Strings{"/workspace/traces"});
  EXPECT_EQ(find("/srv/My Project/x.py"), Strings{"/srv/My Project"});
  EXPECT_EQ(find("C:\\work\\proj\\x.py"), Strings{"C:\\work\\proj"});
  EXPECT_EQ(find("saved /tmp/a/b.json in 3s."), Strings{"/tmp/a"});
  for (const char* s :
       {"/opt/conda/lib/python3.10/site-packages/torch/nn/module.py(12): f",
        "/usr/lib/python3.10/threading.py(1075): run", "jit(f)/while/body/dot",
        "/usr/local/cuda/bin:/usr/local/sbin:/usr/bin", "/etc/os-release", "/device:GPU:0", "/x.py",
        "https://github.com/org/repo", "a/b/c.py", "N/A", "<frozen importlib._bootstrap>(1): f"})
    EXPECT_TRUE(find(s).empty()) << s;
  p.keep_basename = false;
  EXPECT_EQ(find("/app/x/y.py"), Strings{"/app/x/y.py"});
}

TEST(Entropy, ShannonAndExpected) {
  EXPECT_DOUBLE_EQ(ShannonEntropy(""), 0);
  EXPECT_DOUBLE_EQ(ShannonEntropy("aaaa"), 0);
  EXPECT_DOUBLE_EQ(ShannonEntropy("abcd"), 2);
  EXPECT_NEAR(ExpectedRandomEntropy(32, 64), 4.56, 0.02);
  EXPECT_NEAR(ExpectedRandomEntropy(40, 64), 4.78, 0.02);
  EXPECT_NEAR(ExpectedRandomEntropy(32, 16), 3.63, 0.02);
  EXPECT_NEAR(ExpectedRandomEntropy(100000, 16), 4.0, 0.01);  // tends to log2(k)
  EXPECT_LT(ExpectedRandomEntropy(32, 64), ExpectedRandomEntropy(64, 64));
}

TEST(Entropy, RandomKeysFoundFromMinLength) {
  const EntropyPatterns b64 = ShippedRule("high-entropy").entropy;
  std::mt19937_64 rng(7);
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  int found = 0, tried = 0;
  for (size_t len : {32, 40, 64}) {
    for (int i = 0; i < 200; ++i) {
      std::string key;
      for (size_t k = 0; k < len; ++k) key += alphabet[rng() % alphabet.size()];
      std::vector<Span> spans;
      FindHighEntropy("secret=" + key + ";", b64, &spans);
      ++tried;
      found += spans.size() == 1 && spans[0] == Span{7, 7 + len};
    }
  }
  EXPECT_GE(found, tried * 96 / 100) << found << " of " << tried;
  // The length edge: one character short of min_length is never a match.
  std::string planted = "wJalrXUtnFEMI0K7MDENGbPxRfiCY3XAMPLEKEY9";
  std::vector<Span> spans;
  FindHighEntropy(planted, b64, &spans);
  EXPECT_EQ(spans.size(), 1u);
  spans.clear();
  FindHighEntropy(planted.substr(0, b64.min_length - 1), b64, &spans);
  EXPECT_TRUE(spans.empty());
  // Low entropy at full length: a repeated pattern.
  spans.clear();
  FindHighEntropy("Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1Ab1", b64, &spans);
  EXPECT_TRUE(spans.empty());
  // One case only, or no digit: not a key by this rule (hashes in base32).
  spans.clear();
  FindHighEntropy("cqaokwf2bph4egogzevc22vluasiyuui4i54zpemp6knbsggfbuu", b64, &spans);
  EXPECT_TRUE(spans.empty());
}

TEST(Entropy, HexRuns) {
  const EntropyPatterns hex = ShippedRule("high-entropy-hex").entropy;
  std::vector<Span> spans;
  FindHighEntropy("trace_id 094DFF9CD7781F8ADDEAFBA6A8855CA7 end", hex, &spans);
  EXPECT_EQ(spans.size(), 1u);
  for (const char* s :
       {"0x7fda0e810200", "0d1d2d3d4d5d6d7d8d9d10d11d12d13d14", "x094DFF9CD7781F8ADDEAFBA6A8855CA7",
        "00000000000000000000000000000000a1", "12345678901234567890123456789012"}) {
    spans.clear();
    FindHighEntropy(s, hex, &spans);
    EXPECT_TRUE(spans.empty()) << s;
  }
}

TEST(NoFalsePositives, ShippedRulesLeaveCodeNamesAlone) {
  for (const Rule& r : Shipped().rules) {
    if (r.kind == RuleKind::kField) continue;
    for (const std::string& name : CodeNames()) {
      std::vector<Span> spans;
      FindRuleSpans(r, name, &spans);
      EXPECT_TRUE(spans.empty()) << r.id << " matched " << Texts(name, spans)[0] << " in " << name;
    }
  }
}

}  // namespace
}  // namespace th::redact
