// Content-Encoding gzip of large answers: which Accept-Encoding values allow
// it, which answers are compressed, and that the bytes decode to the answer.
#include "core/serve/response_gzip.h"

#include <gtest/gtest.h>
#include <libdeflate.h>

#include <random>
#include <string>

namespace th::serve {
namespace {

std::string Gunzip(const std::string& packed, size_t size) {
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  std::string out(size, '\0');
  size_t got = 0;
  const auto r =
      libdeflate_gzip_decompress(d, packed.data(), packed.size(), out.data(), size, &got);
  libdeflate_free_decompressor(d);
  EXPECT_EQ(r, LIBDEFLATE_SUCCESS);
  out.resize(got);
  return out;
}

std::string Header(const HttpResponse& r, const std::string& name) {
  for (const auto& [n, v] : r.headers)
    if (n == name) return v;
  return "";
}

// A viewport-like body: mostly small varints and repeated maps.
std::string Body(size_t n) {
  std::mt19937 rng(3);
  std::string b(n, '\0');
  for (char& c : b) c = static_cast<char>(rng() % 7);
  return b;
}

HttpRequest Get(std::string accept) {
  HttpRequest q;
  q.method = "GET";
  q.accept_encoding = std::move(accept);
  return q;
}

TEST(AcceptsGzip, ReadsTheCodingsAndTheirQualities) {
  EXPECT_TRUE(AcceptsGzip("gzip, deflate, br"));
  EXPECT_TRUE(AcceptsGzip("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("x-gzip"));
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip("br, deflate"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip; q=0.000, br"));
  EXPECT_FALSE(AcceptsGzip("*, gzip;q=0"));
  EXPECT_TRUE(AcceptsGzip("gzip;q=0.001"));
  EXPECT_FALSE(AcceptsGzip("*;q=0"));
}

TEST(GzipIfWorthIt, LargeBinaryAnswersAreCompressedAndDecodeToTheirBytes) {
  const std::string body = Body(300000);
  HttpResponse r;
  r.body = body;
  r.content_type = "application/octet-stream";
  GzipIfWorthIt(Get("gzip, deflate, br"), &r);
  EXPECT_EQ(Header(r, "Content-Encoding"), "gzip");
  EXPECT_EQ(Header(r, "Vary"), "Accept-Encoding");
  EXPECT_LT(r.body.size(), body.size() / 2);
  EXPECT_EQ(Gunzip(r.body, body.size()), body);
}

TEST(GzipIfWorthIt, OtherAnswersAreLeftAsTheyAre) {
  auto unchanged = [](HttpResponse r, const HttpRequest& q) {
    const std::string before = r.body;
    GzipIfWorthIt(q, &r);
    EXPECT_EQ(r.body, before);
    EXPECT_EQ(Header(r, "Content-Encoding"), "");
    return r;
  };
  HttpResponse big;
  big.body = Body(200000);
  big.content_type = "application/octet-stream";
  // Not asked for: the answer says it varies, and is sent as it is.
  EXPECT_EQ(Header(unchanged(big, Get("br")), "Vary"), "Accept-Encoding");
  HttpResponse small = big;
  small.body = Body(kMinGzipBytes - 1);
  EXPECT_EQ(Header(unchanged(small, Get("gzip")), "Vary"), "");
  HttpResponse tile = big;  // tiles are cached by their ETag
  tile.headers.push_back({"ETag", "\"k-1-2-3\""});
  unchanged(tile, Get("gzip"));
  HttpResponse error = big;
  error.status = 500;
  unchanged(error, Get("gzip"));
  HttpResponse html = big;  // httplib compresses text and JSON itself
  html.content_type = "text/html";
  unchanged(html, Get("gzip"));
  HttpResponse json = big;
  json.content_type = "application/json";
  unchanged(json, Get("gzip"));
  HttpRequest head = Get("gzip");
  head.method = "HEAD";
  unchanged(big, head);
}

}  // namespace
}  // namespace th::serve
