#include "core/import/remote/azure_shared_key.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

#include "core/graph/utc_time.h"

namespace th::remote {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Header(const AzureRequest& r, const std::string& name) {
  for (const auto& [n, v] : r.headers)
    if (Lower(n) == name) return v;
  return {};
}

}  // namespace

std::string AzureStringToSign(const AzureRequest& r) {
  std::string out = r.method + "\n";
  for (const char* name :
       {"content-encoding", "content-language", "content-length", "content-md5", "content-type",
        "date", "if-modified-since", "if-match", "if-none-match", "if-unmodified-since", "range"}) {
    std::string v = Header(r, name);
    if (std::string(name) == "content-length" && v == "0") v.clear();
    out += v + "\n";
  }
  std::map<std::string, std::string> ms;
  for (const auto& [n, v] : r.headers) {
    std::string name = Lower(n);
    if (name.starts_with("x-ms-")) ms[name] = v;
  }
  for (const auto& [n, v] : ms) out += n + ":" + v + "\n";
  out += "/" + r.account + r.path;
  std::map<std::string, std::vector<std::string>> params;
  for (const auto& [n, v] : r.query) params[Lower(n)].push_back(v);
  for (auto& [n, values] : params) {
    std::sort(values.begin(), values.end());
    out += "\n" + n + ":";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + values[i];
  }
  return out;
}

std::string AzureSharedKeyAuthorization(const AzureRequest& request, const std::string& key) {
  std::string raw = Base64Decode(key);
  if (raw.empty()) return {};
  return "SharedKey " + request.account + ":" +
         Base64Encode(HmacSha256(raw, AzureStringToSign(request)));
}

std::string HttpDateNow() { return FormatUtcNow("%a, %d %b %Y %H:%M:%S GMT"); }

}  // namespace th::remote
