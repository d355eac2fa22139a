#include "tests/core/serve/serve_fixture.h"

#include "tests/support/test_files.h"

namespace th::serve::testing {

std::string WriteServeFixture(const std::string& name) {
  std::string json = R"({"traceEvents":[
{"ph":"X","cat":"python_function","name":"train.py(12): step","pid":1,"tid":1,"ts":100,"dur":100},
{"ph":"X","cat":"python_function","name":"C:\\src\\model.py(30): forward","pid":1,"tid":1,"ts":105,"dur":90},
{"ph":"X","cat":"cpu_op","name":"aten::matmul","pid":1,"tid":1,"ts":110,"dur":50},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":120,"dur":10,"args":{"correlation":7}},
{"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":140,"dur":30,"args":{"correlation":7,"device":0,"stream":7,"grid":[4,1,1],"block":[128,1,1]}})";
  for (int i = 0; i < 3000; ++i) {
    json += ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"tiny_kernel_" + std::to_string(i % 7) +
            "\",\"pid\":0,\"tid\":8,\"ts\":" + std::to_string(200 + i * 3) +
            ",\"dur\":1,\"args\":{\"device\":0,\"stream\":8}}";
  }
  json += "]}\n";
  return th::testing::WriteTempFile(name, json);
}

}  // namespace th::serve::testing
