#define CURL_DISABLE_TYPECHECK
#include "core/import/remote/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

namespace th::remote {

namespace {

// Idle easy handles, so that connections (and their TLS sessions) are reused.
class HandlePool {
 public:
  CURL* Take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.empty()) return curl_easy_init();
    CURL* h = idle_.back();
    idle_.pop_back();
    return h;
  }
  void Give(CURL* h) {
    curl_easy_reset(h);
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(h);
  }

 private:
  std::mutex mu_;
  std::vector<CURL*> idle_;
};

HandlePool& Pool() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  static HandlePool* pool = new HandlePool();  // lives to exit: handles may be in use
  return *pool;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* ctx = static_cast<std::pair<const HttpRequest*, HttpReply*>*>(user);
  const size_t len = size * n;
  HttpReply* reply = ctx->second;
  const HttpRequest* request = ctx->first;
  if (request->out) {
    size_t room = request->out_capacity - std::min(request->out_capacity, reply->received);
    if (len > room) {
      reply->overflow = true;
      return 0;  // aborts the transfer
    }
    std::memcpy(request->out + reply->received, data, len);
  } else {
    reply->body.append(data, len);
  }
  reply->received += len;
  return len;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* reply = static_cast<HttpReply*>(user);
  std::string line(data, size * n);
  size_t colon = line.find(':');
  if (line.starts_with("HTTP/")) reply->headers.clear();  // a new response (after 100)
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t b = line.find_first_not_of(" \t", colon + 1);
    size_t e = line.find_last_not_of(" \t\r\n");
    reply->headers[name] = b == std::string::npos || e < b ? "" : line.substr(b, e - b + 1);
  }
  return size * n;
}

std::string DecodeEntities(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    size_t semi = s.find(';', i);
    std::string_view ent = s.substr(i + 1, semi == std::string_view::npos ? 0 : semi - i - 1);
    if (ent == "amp")
      out += '&';
    else if (ent == "lt")
      out += '<';
    else if (ent == "gt")
      out += '>';
    else if (ent == "quot")
      out += '"';
    else if (ent == "apos")
      out += '\'';
    else if (ent.starts_with("#x"))
      out += static_cast<char>(std::stoi(std::string(ent.substr(2)), nullptr, 16));
    else if (ent.starts_with("#"))
      out += static_cast<char>(std::stoi(std::string(ent.substr(1))));
    else {
      out += '&';
      continue;
    }
    i = semi;
  }
  return out;
}

}  // namespace

Status Perform(const HttpRequest& request, const RemoteOptions& options, HttpReply* reply) {
  *reply = HttpReply{};
  CURL* h = Pool().Take();
  if (!h) return Internal("libcurl could not make a handle");
  curl_slist* headers = nullptr;
  for (const std::string& hdr : request.headers) headers = curl_slist_append(headers, hdr.c_str());
  headers = curl_slist_append(headers, "Expect:");
  std::pair<const HttpRequest*, HttpReply*> ctx{&request, reply};
  curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  if (request.method == "HEAD") curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &ctx);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, reply);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, static_cast<long>(options.connect_timeout_s));
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options.low_speed_timeout_s));
  curl_easy_setopt(h, CURLOPT_USERAGENT, "tracehound");
  CURLcode rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &reply->status);
  curl_slist_free_all(headers);
  Pool().Give(h);
  if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && reply->overflow))
    return IoError(curl_easy_strerror(rc));
  return Ok();
}

bool RetryableStatus(long status) { return status == 429 || status >= 500; }

Status WithRetries(const RemoteOptions& options,
                   const std::function<Status(bool* retry)>& attempt) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  Status last;
  const int attempts = std::max(1, options.attempts);
  for (int k = 0; k < attempts; ++k) {
    bool retry = false;
    last = attempt(&retry);
    if (last.ok() || !retry) return last;
    if (k + 1 == attempts) break;
    int64_t cap = std::min<int64_t>(options.max_delay_ms,
                                    static_cast<int64_t>(options.base_delay_ms) << std::min(k, 20));
    std::uniform_int_distribution<int64_t> jitter(0, std::max<int64_t>(cap, 0));
    std::this_thread::sleep_for(std::chrono::milliseconds(jitter(rng)));
  }
  return Status(last.code(), last.message() + " (after " + std::to_string(attempts) + " attempts)");
}

std::vector<std::string> XmlValues(const std::string& xml, const std::string& tag) {
  std::vector<std::string> out;
  const std::string open = "<" + tag + ">", close = "</" + tag + ">";
  size_t at = 0;
  while ((at = xml.find(open, at)) != std::string::npos) {
    size_t b = at + open.size();
    size_t e = xml.find(close, b);
    if (e == std::string::npos) break;
    out.push_back(DecodeEntities(std::string_view(xml).substr(b, e - b)));
    at = e + close.size();
  }
  return out;
}

std::string XmlValue(const std::string& xml, const std::string& tag) {
  auto v = XmlValues(xml, tag);
  return v.empty() ? "" : v.front();
}

}  // namespace th::remote
