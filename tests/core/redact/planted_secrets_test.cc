// Whole runs of `tracehound redact` (RunRedaction) on generated captures with
// planted secrets: a 2-rank Kineto trace (plain, gzip and as a .tar.gz) and an
// XSpace with an embedded HLO module. After redaction none of the planted
// byte strings is anywhere in the output (decompressed), the report counts
// exactly what was planted, numbers are byte-identical, and the output
// re-imports to the same events, kernels and attribution.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>
#include <set>

#include "core/import/common/archive_reader.h"
#include "core/import/common/byte_source.h"
#include "core/import/trace_loader.h"
#include "core/redact/redact_run.h"
#include "core/report/trace_summary.h"
#include "tests/support/command_runner.h"
#include "tests/support/hlo_fixture.h"
#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th::redact {
namespace {

namespace fs = std::filesystem;

const std::string kKey = "planted-secrets-test-key-0123456789";

RuleSet Shipped() {
  auto r = LoadRules(std::string(TRACEHOUND_SOURCE_DIR) + "/configs/redact.yaml");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return std::move(*r);
}

// The decompressed bytes of a file, or of every member of an archive.
std::string Decoded(const std::string& path) {
  std::string out;
  if (path.ends_with(".tar.gz") || path.ends_with(".zip") || path.ends_with(".tar")) {
    Status s = ForEachArchiveMember(path, [&](const std::string&, std::unique_ptr<ByteSource> src) {
      auto text = OpenDecoded(std::move(src));
      if (!text.ok()) return text.status();
      auto all = ReadAll(**text);
      if (!all.ok()) return all.status();
      out += *all;
      return Ok();
    });
    EXPECT_TRUE(s.ok()) << s.message();
    return out;
  }
  auto raw = OpenFileSource(path);
  EXPECT_TRUE(raw.ok());
  auto text = OpenDecoded(std::move(*raw));
  EXPECT_TRUE(text.ok());
  return ReadAll(**text).value();
}

// Every file under `dir`, decoded, concatenated.
std::string AllBytes(const std::string& dir) {
  std::string out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out += Decoded(e.path().string()) + "\n";
  return out;
}

// The number tokens of a JSON text (outside strings), in order.
std::vector<std::string> Numbers(std::string_view json) {
  std::vector<std::string> out;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i;
      while (j < json.size() &&
             std::string_view("0123456789+-.eE").find(json[j]) != std::string_view::npos)
        ++j;
      out.emplace_back(json.substr(i, j - i));
      i = j - 1;
    }
  }
  return out;
}

int RuleIndex(const RuleSet& rules, std::string_view id) {
  for (size_t i = 0; i < rules.rules.size(); ++i)
    if (rules.rules[i].id == id) return static_cast<int>(i);
  ADD_FAILURE() << id;
  return 0;
}

// What a fixture plants: per rule, the occurrences and the distinct originals.
struct Expected {
  std::map<std::string, int64_t> matches;
  std::map<std::string, std::set<std::string>> distinct;
  void Add(const std::string& rule, const std::string& original, int64_t n = 1) {
    matches[rule] += n;
    distinct[rule].insert(original);
  }
};

void ExpectCounts(const RedactReport& report, const Expected& e) {
  const RuleSet& rules = report.rules;
  for (size_t i = 0; i < rules.rules.size(); ++i) {
    const std::string& id = rules.rules[i].id;
    auto m = e.matches.find(id);
    int64_t want = m == e.matches.end() ? 0 : m->second;
    EXPECT_EQ(report.counts.rules[i].matches, want) << id;
    auto d = e.distinct.find(id);
    size_t want_distinct = d == e.distinct.end() ? 0 : d->second.size();
    EXPECT_EQ(report.counts.rules[i].distinct.size(), want_distinct) << id;
  }
}

// ---------------------------------------------------------------------------
// The Kineto fixture.

// Secrets planted in the Kineto fixture: none may survive.
const std::vector<std::string>& KinetoSecrets() {
  static const std::vector<std::string> s = {
      "alice",
      "carol",
      "/srv/secret_proj",
      "secret_proj",
      "gpu-node-17.corp.example.com",
      "gpu-node-17",
      "corp.example.com",
      "10.1.2.3",
      "2001:db8::8a2e:370:7334",
      "bob@example.org",
      "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
      "github_pat_11ABCDEFG0123456789_abcdefghijKLMNOPQRSTuvwxyz0123456789",
      "glpat-xYz12-AbC34_dEf56ghIJ",
      "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp",
      "AKIAIOSFODNN7EXAMPLE",
      "ASIAY34FZKBOKMUTVV7A",
      "sk-proj-AbCdEfGhIj_KlMnOpQrSt-UvWxYz012345",
      "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_"
      "XgL0n3I9PlFUP0THsR8U",
      "MIIEowIBAAKCAQEA7secretkeymaterial",
      "Xq3v9ZpL2mW8rT5kN1bY7cH4dJ6fG0sA2eQ9uR",
      "hunter2pass",
      "ip-10-20-30-40",
      "\"1e-05\", \"mean\"",
  };
  return s;
}

// One rank: metadata, host ops with Python stacks, kernels with launches.
// Fills `e` with what it planted (the JSON escapes are decoded by the rules'
// input, so e.g. the Windows path counts once).
std::string KinetoRank(int rank, Expected* e) {
  std::string ev;
  auto add = [&](const std::string& event) {
    if (!ev.empty()) ev += ",\n";
    ev += event;
  };
  add(R"J({"ph": "M", "name": "process_name", "pid": 4242, "tid": 0, "args": {"name": "python3 on gpu-node-17.corp.example.com"}})J");
  e->Add("hostname", "gpu-node-17.corp.example.com");
  add(R"J({"ph": "M", "name": "thread_name", "pid": 4242, "tid": 7, "args": {"name": "thread 7 (python)"}})J");
  const int kSteps = 3;
  int64_t ts = 1000;
  int corr = 100;
  for (int step = 0; step < kSteps; ++step) {
    add(R"J({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)J" + std::to_string(step) +
        R"J(", "pid": 4242, "tid": 7, "ts": )J" + std::to_string(ts) + R"J(.125, "dur": 900.5})J");
    add(R"J({"ph": "X", "cat": "python_function", "name": "/home/alice/proj/train.py(42): forward", "pid": 4242, "tid": 7, "ts": )J" +
        std::to_string(ts + 1) + R"J(.000001, "dur": 800})J");
    e->Add("home-user", "alice");
    e->Add("private-path", "/home/<alice>/proj");
    add(R"J({"ph": "X", "cat": "python_function", "name": "/srv/secret_proj/model/net.py(7): step", "pid": 4242, "tid": 7, "ts": )J" +
        std::to_string(ts + 2) + R"J(, "dur": 700})J");
    e->Add("private-path", "/srv/secret_proj/model");
    add(R"J({"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 4242, "tid": 7, "ts": )J" +
        std::to_string(ts + 3) +
        R"J(, "dur": 600, "args": {"Input Dims": [[32, 128], [128, 256], []], "Input type": ["float", "float", ""], )J"
        R"J("Concrete Inputs": ["", "", "1e-05", "mean"], "External id": )J" +
        std::to_string(corr) +
        R"J(, "Call stack": "/home/alice/proj/train.py(42): forward;/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py(1501): _call_impl"}})J");
    // every string inside the value but "" and plain numbers ("1e-05": keep_numeric)
    e->Add("free-text-args", "mean");
    e->Add("home-user", "alice");
    e->Add("private-path", "/home/<alice>/proj");
    add(R"J({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 7, "ts": )J" +
        std::to_string(ts + 4) + R"J(, "dur": 5, "args": {"correlation": )J" +
        std::to_string(corr) + R"J(, "cbid": 211}})J");
    add(R"J({"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)", "pid": 0, "tid": 7, "ts": )J" +
        std::to_string(ts + 10) +
        R"J(.5, "dur": 123.456789, "args": {"device": 0, "stream": 7, "correlation": )J" +
        std::to_string(corr) + R"J(, "grid": [128, 1, 1], "block": [256, 1, 1]}})J");
    add(R"J({"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", "pid": 0, "tid": 7, "ts": )J" +
        std::to_string(ts + 200) + R"J(, "dur": 77, "args": {"device": 0, "stream": 7}})J");
    ts += 1000;
    ++corr;
  }
  // Secrets in free places: args, annotations, metadata.
  add(R"J({"ph": "i", "cat": "user_annotation", "name": "upload to bob@example.org", "pid": 4242, "tid": 7, "ts": 5000, "s": "t"})J");
  e->Add("email", "bob@example.org");
  const std::vector<std::pair<std::string, std::string>> tokens = {
      {"ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "token-prefix"},
      {"github_pat_11ABCDEFG0123456789_abcdefghijKLMNOPQRSTuvwxyz0123456789", "token-prefix"},
      {"glpat-xYz12-AbC34_dEf56ghIJ", "token-prefix"},
      {"xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp", "token-prefix"},
      {"AKIAIOSFODNN7EXAMPLE", "token-prefix"},
      {"ASIAY34FZKBOKMUTVV7A", "token-prefix"},
      {"sk-proj-AbCdEfGhIj_KlMnOpQrSt-UvWxYz012345", "token-prefix"},
      {"hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "token-prefix"},
      {"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_"
       "XgL0n3I9PlFUP0THsR8U",
       "jwt"},
      {"Xq3v9ZpL2mW8rT5kN1bY7cH4dJ6fG0sA2eQ9uR", "high-entropy"},
  };
  std::string args;
  for (size_t i = 0; i < tokens.size(); ++i) {
    args += (i ? ", " : "") + std::string("\"note") + std::to_string(i) +
            "\": \"env TOKEN=" + tokens[i].first + " set\"";
    e->Add(tokens[i].second, tokens[i].first);
  }
  args +=
      R"J(, "key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7secretkeymaterial\n-----END RSA PRIVATE KEY-----")J";
  e->Add("private-key", "pem");
  args += R"J(, "peer": "2001:db8::8a2e:370:7334", "master": "10.1.2.3:29500")J";
  e->Add("ipv6", "2001:db8::8a2e:370:7334");
  e->Add("ipv4", "10.1.2.3");
  args += R"J(, "repo": "https://bob:hunter2pass@git.corp.example.com/x.git")J";
  e->Add("url-credentials", "bob:hunter2pass");
  e->Add("hostname", "git.corp.example.com");
  args += R"J(, "win": "C:\\Users\\carol\\proj\\x.py", "ec2": "ip-10-20-30-40 up")J";
  e->Add("home-user", "carol");
  e->Add("private-path", "C:\\Users\\<carol>\\proj");
  e->Add("aws-internal-host", "ip-10-20-30-40");
  add(R"J({"ph": "i", "cat": "user_annotation", "name": "secrets", "pid": 4242, "tid": 7, "ts": 5001, "s": "t", "args": {)J" +
      args + "}}");
  // Top level: a learned host, a user name, a trace name with a home directory.
  std::string json =
      "{\n  \"schemaVersion\": 1,\n  \"host_name\": \"gpu-node-17.corp.example.com\",\n"
      "  \"username\": \"alice\",\n"
      "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " +
      std::to_string(rank) +
      ", \"world_size\": 2},\n  \"traceName\": \"/home/alice/runs/exp1/rank" +
      std::to_string(rank) +
      ".json\",\n  \"baseTimeNanoseconds\": 1700000000000000000,\n"
      "  \"traceEvents\": [\n" +
      ev + "\n  ]\n}\n";
  e->Add("host-fields", "gpu-node-17.corp.example.com");
  e->Add("user-fields", "alice");
  e->Add("home-user", "alice");
  e->Add("private-path", "/home/<alice>/runs/exp1");
  return json;
}

TEST(PlantedSecrets, KinetoPlainGzipAndArchive) {
  const std::string in = testing::TempDir() + "/planted_kineto/in";
  const std::string out = testing::TempDir() + "/planted_kineto/out";
  fs::create_directories(in + "/ranks");
  Expected e0, e1;
  std::string rank0 = KinetoRank(0, &e0), rank1 = KinetoRank(1, &e1);
  testing::WriteTempFile("planted_kineto/in/rank0.json", rank0);
  testing::WriteTempFile("planted_kineto/in/rank1.json.gz", testing::Gzip(rank1));
  // The same two ranks as an archive.
  testing::WriteTempFile("planted_kineto/in/ranks/rank0.json", rank0);
  testing::WriteTempFile("planted_kineto/in/ranks/rank1.json", rank1);
  ASSERT_EQ(testing::Shell("cd " + in + " && tar czf ranks.tar.gz ranks && rm -r ranks").status, 0);

  RedactOptions o;
  o.inputs = {in};
  o.output_dir = out;
  Pseudonymizer key(kKey, KeySource::kFile, 8);
  auto report = RunRedaction(o, Shipped(), key);
  ASSERT_TRUE(report.ok()) << report.status().message();

  // 1. No planted byte string anywhere in the output (nor in the report).
  std::string bytes = AllBytes(out);
  for (const std::string& secret : KinetoSecrets())
    EXPECT_EQ(bytes.find(secret), std::string::npos) << secret;

  // 2. The report counts exactly what was planted: 4 ranks' worth (two files,
  // two archive members), the distinct originals once.
  Expected all;
  for (int copy = 0; copy < 2; ++copy) {
    for (const Expected* e : {&e0, &e1}) {
      for (auto& [rule, n] : e->matches) all.matches[rule] += n;
      for (auto& [rule, d] : e->distinct) all.distinct[rule].insert(d.begin(), d.end());
    }
  }
  ExpectCounts(*report, all);
  EXPECT_EQ(report->files.size(), 3u);
  EXPECT_EQ(report->hosts_learned, 1);

  // 3. Same pseudonym for the same original in every rank and file.
  Pseudonymizer p(kKey, KeySource::kFile, 8);
  const std::string frame =
      p.Token("path", "/home/" + p.Token("user", "alice") + "/proj") + "/train.py(42): forward";
  const std::string user = "\"username\": \"" + p.Token("user", "alice") + "\"";
  for (const char* f : {"rank0.json", "rank1.json.gz"}) {
    std::string text = Decoded(out + "/" + f);
    EXPECT_NE(text.find(frame), std::string::npos) << f;
    EXPECT_NE(text.find(user), std::string::npos) << f;
    EXPECT_EQ(Numbers(text), Numbers(std::string(f) == "rank0.json" ? rank0 : rank1)) << f;
    // Strict JSON, every event with its phase.
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << f;
    simdjson::dom::array events = doc["traceEvents"].get_array().value();
    for (simdjson::dom::element ev : events) {
      EXPECT_FALSE(ev["ph"].error()) << f;
      EXPECT_FALSE(ev["name"].error()) << f;
      EXPECT_FALSE(ev["pid"].error()) << f;
    }
  }
  // gzip stays gzip; the archive stays an archive of the same kind.
  EXPECT_EQ(testing::ReadFile(out + "/rank1.json.gz").substr(0, 2), "\x1f\x8b");
  EXPECT_TRUE(IsArchive(out + "/ranks.tar.gz"));
  EXPECT_EQ(testing::ReadFile(out + "/ranks.tar.gz").substr(0, 2), "\x1f\x8b");

  // 4. It re-imports to the same events and kernels, rank for rank.
  for (const char* f : {"rank0.json", "rank1.json.gz", "ranks.tar.gz"}) {
    auto a = LoadTraceSet({in + "/" + f}, LoadOptions{});
    auto b = LoadTraceSet({out + "/" + f}, LoadOptions{});
    ASSERT_TRUE(a.ok() && b.ok()) << f;
    ASSERT_EQ(a->traces.size(), b->traces.size());
    for (size_t t = 0; t < a->traces.size(); ++t) {
      TraceSummary sa = Summarize(*a->traces[t]), sb = Summarize(*b->traces[t]);
      EXPECT_EQ(sa.events, sb.events) << f;
      EXPECT_EQ(sa.kernels.count, sb.kernels.count) << f;
      EXPECT_EQ(sa.kernels.total_ns, sb.kernels.total_ns) << f;
      EXPECT_EQ(sa.kernels_with_launch, sb.kernels_with_launch) << f;
      EXPECT_EQ(sa.steps, sb.steps) << f;
      EXPECT_EQ(a->traces[t]->info.rank, b->traces[t]->info.rank) << f;
      EXPECT_GT(sa.kernels.count, 0);
    }
  }
  // 5. The report names no original either.
  std::string report_text = testing::ReadFile(out + "/redaction-report.json");
  for (const std::string& secret : KinetoSecrets())
    EXPECT_EQ(report_text.find(secret), std::string::npos) << secret;
}

// ---------------------------------------------------------------------------
// The XSpace fixture.

TEST(PlantedSecrets, XSpaceWithEmbeddedHlo) {
  using testing::AddComputation;
  using testing::AddInstruction;
  using testing::StatSpec;
  const std::string src = "/home/alice/jaxproj/model.py";
  tracehound::hlo::HloModuleProto m;
  m.set_name("jit_step");
  m.set_id(7);
  auto* main = AddComputation(&m, 1, "main");
  m.set_entry_computation_name("main");
  m.set_entry_computation_id(1);
  AddInstruction(main, 10, "p0", "parameter");
  const int kInstructions = 3;
  AddInstruction(main, 11, "fusion.1", "fusion", {10}, "jit(step)/add", src, 10);
  AddInstruction(main, 12, "custom-call.2", "custom-call", {11}, "jit(step)/dot", src, 20);
  AddInstruction(main, 13, "fusion.3", "fusion", {12}, "jit(step)/tanh", src, 30);
  testing::SetSchedule(&m, 1, {10, 11, 12, 13});
  m.mutable_stack_frame_index()->add_file_names(src);
  m.mutable_stack_frame_index()->add_file_names("/srv/secret_proj/lib.py");
  m.mutable_stack_frame_index()->add_function_names("forward");

  testing::XSpaceBuilder b;
  b.EmbedHlo(m);
  auto* gpu = b.AddPlane(1, "/device:GPU:0");
  auto* stream = b.AddLine(gpu, 1, "Stream #1(Kernel)", 1000);
  const std::vector<std::pair<std::string, std::string>> kernels = {
      {"fusion_1", "fusion.1"}, {"Cijk_gemm", "custom-call.2"}, {"fusion_3", "fusion.3"}};
  int64_t t = 0;
  for (const auto& [name, op] : kernels) {
    b.AddEvent(gpu, stream, name, t, 1000000,
               {{"hlo_op", op}, {"hlo_module", "jit_step"}, {"program_id", int64_t{7}}});
    t += 10000000;
  }
  auto* host = b.AddPlane(2, "/host:CPU");
  auto* line = b.AddLine(host, 3, "worker on tpu-host-3.corp.example.com", 1000);
  const int kHostEvents = 4;
  for (int i = 0; i < kHostEvents; ++i) {
    b.AddEvent(host, line, "$" + src + ":42 forward", i * 1000000, 500000,
               {{"source", src + ":42", /*inline_str=*/true},
                {"host_name", "tpu-host-3.corp.example.com", true},
                {"user", "alice"}});  // a ref_value: the stat metadata named "alice"
  }
  // Fields the builder does not write: hostnames and errors.
  tracehound::xspace::XSpace space;
  ASSERT_TRUE(space.ParseFromString(b.Serialize()));
  space.add_hostnames("tpu-host-3.corp.example.com");
  space.add_errors("could not reach 10.1.2.3");
  const std::string dir = testing::TempDir() + "/planted_xspace";
  fs::create_directories(dir + "/in");
  testing::WriteTempFile("planted_xspace/in/tpu-host-3.corp.example.com.xplane.pb",
                         space.SerializeAsString());

  RedactOptions o;
  o.inputs = {dir + "/in"};
  o.output_dir = dir + "/out";
  Pseudonymizer key(kKey, KeySource::kFile, 8);
  auto report = RunRedaction(o, Shipped(), key);
  ASSERT_TRUE(report.ok()) << report.status().message();

  Expected e;
  // The source path: 3 instructions' OpMetadata, the stack frame index, the
  // interned event name, 4 inline source stats.
  const int64_t paths = kInstructions + 1 + 1 + kHostEvents;
  e.Add("home-user", "alice", paths);
  e.Add("private-path", "/home/<alice>/jaxproj", paths);
  e.Add("private-path", "/srv/secret_proj", 1);
  e.Add("hostname", "tpu-host-3.corp.example.com", 2);  // hostnames, the line's name
  e.Add("host-fields", "tpu-host-3.corp.example.com", kHostEvents);
  e.Add("user-fields", "alice", 1);  // the stat metadata named by the ref_value
  e.Add("ipv4", "10.1.2.3", 1);
  ExpectCounts(*report, e);
  ASSERT_EQ(report->files.size(), 1u);
  Pseudonymizer p(kKey, KeySource::kFile, 8);
  const std::string out_name = p.Token("host", "tpu-host-3.corp.example.com") + ".xplane.pb";
  EXPECT_EQ(report->files[0].output, out_name);
  EXPECT_EQ(
      report->name_counts.rules[static_cast<size_t>(RuleIndex(report->rules, "hostname"))].matches,
      1);

  std::string bytes = AllBytes(dir + "/out");
  for (const std::string& secret :
       {std::string("alice"), std::string("/home/alice"), std::string("jaxproj"),
        std::string("secret_proj"), std::string("tpu-host-3"), std::string("corp.example.com"),
        std::string("10.1.2.3")})
    EXPECT_EQ(bytes.find(secret), std::string::npos) << secret;

  // Re-import: the strict reader takes it; same events, kernels, attribution.
  auto a = LoadTraceSet({dir + "/in"}, LoadOptions{});
  auto r = LoadTraceSet({dir + "/out/" + out_name}, LoadOptions{});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& ta = *a->traces[0];
  const Trace& tr = *r->traces[0];
  TraceSummary sa = Summarize(ta), sr = Summarize(tr);
  EXPECT_EQ(sa.events, sr.events);
  EXPECT_EQ(sa.kernels.count, 3);
  EXPECT_EQ(sa.kernels.count, sr.kernels.count);
  EXPECT_EQ(sa.kernels.total_ns, sr.kernels.total_ns);
  ASSERT_TRUE(tr.xla.attributed);
  EXPECT_EQ(ta.xla.kernel_match, tr.xla.kernel_match);
  EXPECT_EQ(ta.xla.modules.size(), tr.xla.modules.size());
  // The attributed source line is the pseudonymised one.
  const std::string redacted_src =
      p.Token("path", "/home/" + p.Token("user", "alice") + "/jaxproj") + "/model.py";
  EXPECT_NE(bytes.find(redacted_src), std::string::npos);
}

}  // namespace
}  // namespace th::redact
