// `tracehound kernel-classes` as a user reads it: the header, one padded line
// per rule in match order (a pipeline's first), and the JSON form.
#include "core/report/kernel_class_listing.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <sstream>
#include <string>
#include <vector>

namespace th {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(KernelClassListing, OneLinePerRuleInMatchOrder) {
  std::ostringstream out;
  WriteKernelClassTable(KernelClassTable::Builtin(), out);
  std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 2 + BuiltinKernelClassRules().size());
  EXPECT_EQ(lines[0],
            "Kernel classes: the first rule of a set whose glob matches the whole name wins (`*` "
            "is any run of characters); with none, a kernel is COMP, a memcpy or memset MEM. Set "
            "tracehound feeds every analysis (a pipeline's kernel_classes: rules come first); set "
            "hta reproduces HTA 0.6.1's kernel types.");
  EXPECT_EQ(lines[1], "set         class  case   match                  source");
  EXPECT_EQ(lines[2],
            "tracehound  COMM   any    *nccl*                 NCCL (NVIDIA Collective "
            "Communications Library)");
  EXPECT_EQ(lines[6],
            "tracehound  COMP   exact  *deep_ep::layout::*    DeepEP (deepseek-ai/DeepEP): "
            "get_dispatch_layout, local token counting");
  EXPECT_EQ(lines[7],
            "tracehound  COMM   exact  *ep::intranode::*      DeepEP (deepseek-ai/DeepEP): "
            "intranode (NVLink) notify_dispatch, dispatch, combine");
  EXPECT_EQ(lines[16],
            "tracehound  COMM   exact  Memcpy PtoP*           one-sided copy "
            "(cudaMemcpyPeer/P2P: CUPTI memcpy kind PtoP)");
  EXPECT_EQ(lines.back(),
            "hta         COMP   exact  *                      HTA 0.6.1 COMPUTATION (every other "
            "name)");
}

TEST(KernelClassListing, PipelineRulesFirstAndJson) {
  KernelClassRule r;
  r.match = "*moe_a2a*";
  r.klass = KernelClass::kComm;
  r.source = "pipeline moe.yaml:3:5";
  KernelClassTable t = KernelClassTable::WithPipelineRules({r});
  std::ostringstream out;
  WriteKernelClassTable(t, out);
  EXPECT_EQ(Lines(out.str())[2],
            "tracehound  COMM   exact  *moe_a2a*              pipeline moe.yaml:3:5");

  std::ostringstream json;
  WriteKernelClassTableJson(t, json);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json.str()).get(doc), simdjson::SUCCESS) << json.str();
  simdjson::dom::array rules = doc["rules"];
  ASSERT_EQ(rules.size(), t.rules().size());
  EXPECT_EQ(std::string_view(rules.at(0)["match"]), "*moe_a2a*");
  EXPECT_TRUE(bool(rules.at(0)["from_pipeline"]));
  EXPECT_FALSE(bool(rules.at(1)["from_pipeline"]));
  EXPECT_EQ(std::string_view(rules.at(1)["class"]), "COMM");
  EXPECT_TRUE(bool(rules.at(1)["ignore_case"]));
  EXPECT_EQ(std::string_view(doc["defaults"]["kernel"]), "COMP");
}

}  // namespace
}  // namespace th
