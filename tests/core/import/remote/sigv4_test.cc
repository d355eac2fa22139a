// The signer against the requests of AWS's published SigV4 test suite and the
// S3 API reference's worked examples (tests/data/remote/sigv4_vectors.txt).
#include "core/import/remote/sigv4.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace th::remote {
namespace {

struct Vector {
  std::string name, authorization, sts_hash, payload;
  bool payload_hash_given = false;
  SigV4Request request;
  SigV4Scope scope;
};

HeaderList ParseQuery(const std::string& q) {
  HeaderList out;
  std::stringstream in(q);
  std::string pair;
  while (std::getline(in, pair, '&')) {
    size_t eq = pair.find('=');
    out.emplace_back(pair.substr(0, eq), eq == std::string::npos ? "" : pair.substr(eq + 1));
  }
  return out;
}

std::vector<Vector> LoadVectors() {
  std::ifstream in(std::string(TRACEHOUND_SOURCE_DIR) + "/tests/data/remote/sigv4_vectors.txt");
  std::vector<Vector> out;
  SigV4Scope scope;
  Vector v;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(": ");
    std::string key = line.substr(0, colon), value = line.substr(colon + 2);
    if (key == "suite-credentials") {
      std::stringstream s(value);
      s >> scope.access_key >> scope.secret_key >> scope.region >> scope.service >> scope.amz_date;
    } else if (key == "name") {
      v = Vector{};
      v.name = value;
      v.scope = scope;
    } else if (key == "method") {
      v.request.method = value;
    } else if (key == "path") {
      v.request.path = UriEncode(value, true);
    } else if (key == "query") {
      v.request.query = ParseQuery(value);
    } else if (key == "header") {
      size_t c = value.find(':');
      v.request.headers.emplace_back(value.substr(0, c), value.substr(c + 1));
    } else if (key == "string-to-sign-hash") {
      v.sts_hash = value;
    } else if (key == "authorization") {
      v.authorization = value;
      v.request.payload_sha256 = Sha256Hex(v.payload);
      out.push_back(v);
    }
  }
  return out;
}

TEST(SigV4, PublishedVectors) {
  std::vector<Vector> vectors = LoadVectors();
  ASSERT_EQ(vectors.size(), 10u);
  for (const Vector& v : vectors) {
    SCOPED_TRACE(v.name);
    EXPECT_EQ(AuthorizationHeader(v.request, v.scope), v.authorization);
    if (!v.sts_hash.empty()) {
      std::string sts = StringToSign(v.request, v.scope);
      EXPECT_EQ(sts.substr(sts.rfind('\n') + 1), v.sts_hash);
    }
  }
}

TEST(SigV4, CanonicalRequestOfTheSuitesQueryCase) {
  SigV4Request r{"GET",
                 "/",
                 {{"Param2", "value2"}, {"Param1", "value1"}},
                 {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}},
                 Sha256Hex("")};
  EXPECT_EQ(CanonicalRequest(r),
            "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\n"
            "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(SigV4, UriEncoding) {
  EXPECT_EQ(UriEncode("a b/c+d~e", true), "a%20b/c%2Bd~e");
  EXPECT_EQ(UriEncode("a b/c", false), "a%20b%2Fc");
  EXPECT_EQ(UriEncode("\xe1\x88\xb4", false), "%E1%88%B4");
}

TEST(SigV4, Base64RoundTrip) {
  EXPECT_EQ(Base64Encode("hello!"), "aGVsbG8h");
  EXPECT_EQ(Base64Decode("aGVsbG8h"), "hello!");
  EXPECT_EQ(Base64Decode(Base64Encode("ab")), "ab");
  EXPECT_EQ(Base64Decode("not base64"), "");
}

}  // namespace
}  // namespace th::remote
