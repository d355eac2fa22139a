#include "tests/support/bearer_gate.h"

#include <strings.h>

#include <algorithm>
#include <string_view>

#include "core/import/remote/sigv4.h"

namespace th::testing {

namespace {

std::string PercentDecoded(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i] == '+' ? ' ' : s[i]);
    }
  }
  return out;
}

bool IsHeader(std::string_view line, std::string_view name) {
  return line.size() > name.size() && line[name.size()] == ':' &&
         ::strncasecmp(line.data(), name.data(), name.size()) == 0;
}

// The request head without the headers a re-signature replaces.
std::string WithoutHeaders(const std::string& head) {
  std::string out;
  for (size_t at = 0; at < head.size();) {
    size_t end = head.find("\r\n", at);
    if (end == std::string::npos) end = head.size();
    const std::string_view line(head.data() + at, end - at);
    if (!line.empty() && !IsHeader(line, "Authorization") && !IsHeader(line, "x-amz-date"))
      out.append(line).append("\r\n");
    at = end + 2;
  }
  return out;
}

}  // namespace

BearerGate::BearerGate(int upstream_port, std::string token, std::string access_key,
                       std::string secret_key)
    : upstream_port_(upstream_port),
      token_(std::move(token)),
      access_key_(std::move(access_key)),
      secret_key_(std::move(secret_key)) {}

void BearerGate::Serve(int client) {
  std::string head;
  if (!ReadHead(client, &head)) return;
  head.resize(head.find("\r\n\r\n") + 2);  // the request line and headers, each ending "\r\n"
  if (HeaderValue(head, "Authorization") != "Bearer " + token_) {
    ++refused_;
    const std::string body =
        "<?xml version='1.0' encoding='UTF-8'?><Error><Code>AuthenticationRequired</Code>"
        "<Message>Invalid Credentials</Message></Error>";
    const std::string reply =
        "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/xml\r\n"
        "Content-Length: " +
        std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    WriteAll(client, reply.data(), reply.size());
    return;
  }
  ++authorised_;
  // "GET /bucket/key?query HTTP/1.1": sign what is sent, as sent.
  const size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
  const std::string method = head.substr(0, sp1);
  const std::string target = head.substr(sp1 + 1, sp2 - sp1 - 1);
  const size_t q = target.find('?');
  th::remote::SigV4Request r;
  r.method = method;
  r.path = target.substr(0, q);
  if (q != std::string::npos) {
    std::string_view query(target);
    query.remove_prefix(q + 1);
    while (!query.empty()) {
      const std::string_view pair = query.substr(0, query.find('&'));
      const size_t eq = pair.find('=');
      r.query.emplace_back(PercentDecoded(pair.substr(0, eq)),
                           eq == std::string_view::npos ? "" : PercentDecoded(pair.substr(eq + 1)));
      query.remove_prefix(std::min(query.size(), pair.size() + 1));
    }
  }
  r.payload_sha256 = HeaderValue(head, "x-amz-content-sha256");
  const th::remote::SigV4Scope scope{access_key_, secret_key_, "auto", "s3",
                                     th::remote::AmzDateNow()};
  r.headers = {{"host", HeaderValue(head, "Host")},
               {"x-amz-content-sha256", r.payload_sha256},
               {"x-amz-date", scope.amz_date}};
  const std::string request = WithoutHeaders(head) +
                              "Authorization: " + th::remote::AuthorizationHeader(r, scope) +
                              "\r\nx-amz-date: " + scope.amz_date + "\r\n\r\n";
  const std::string answer = Exchange(upstream_port_, request);
  WriteAll(client, answer.data(), answer.size());
}

}  // namespace th::testing
