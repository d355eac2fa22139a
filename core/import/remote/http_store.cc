#include "core/import/remote/http_store.h"

#include <algorithm>

namespace th::remote {

std::string HttpObjectStore::Describe(const HttpReply& reply) const {
  std::string out = "HTTP " + std::to_string(reply.status);
  std::string code = XmlValue(reply.body, "Code");
  std::string message = XmlValue(reply.body, "Message");
  if (!code.empty()) out += " " + code;
  if (!message.empty()) out += ": " + message;
  if (reply.status == 401 || reply.status == 403)
    out += " (access to " + url_.Where() + " refused; credentials from " + config_.source + ")";
  return out;
}

StatusOr<RemoteObject> HttpObjectStore::Stat(const std::string& key) {
  RemoteObject object;
  object.key = key;
  object.url = url_.UrlOf(key);
  Status s = WithRetries(options_, [&](bool* retry) -> Status {
    Prepared p = Prepare("HEAD", key, {}, {});
    HttpReply reply;
    Status sent = Perform({"HEAD", p.url, p.headers}, options_, &reply);
    if (!sent.ok()) {
      *retry = true;
      return IoError(object.url + ": " + sent.message());
    }
    if (reply.status == 404) return NotFound(object.url + ": no such object");
    if (reply.status != 200) {
      *retry = RetryableStatus(reply.status);
      return IoError(object.url + ": " + Describe(reply));
    }
    auto len = reply.headers.find("content-length");
    object.size = len == reply.headers.end() ? 0 : std::stoull(len->second);
    object.etag = reply.headers.count("etag") ? reply.headers["etag"] : "";
    return Ok();
  });
  if (!s.ok()) return s;
  return object;
}

StatusOr<std::vector<RemoteObject>> HttpObjectStore::List(const std::string& prefix) {
  std::vector<RemoteObject> out;
  std::string marker;
  do {
    HeaderList query = ListQuery(prefix, marker);
    if (query.empty())
      return Unsupported(url_.UrlOf(prefix) + ": this server cannot list; name objects one by one");
    std::string next;
    Status s = WithRetries(options_, [&](bool* retry) -> Status {
      Prepared p = Prepare("GET", "", query, {});
      HttpReply reply;
      Status sent = Perform({"GET", p.url, p.headers}, options_, &reply);
      if (!sent.ok()) {
        *retry = true;
        return IoError(url_.UrlOf(prefix) + ": listing failed: " + sent.message());
      }
      if (reply.status == 404) return NotFound(url_.UrlOf(prefix) + ": no such " + url_.Where());
      if (reply.status != 200) {
        *retry = RetryableStatus(reply.status);
        return IoError(url_.UrlOf(prefix) + ": listing failed: " + Describe(reply));
      }
      for (RemoteObject& o : ParseListPage(reply.body, &next)) out.push_back(std::move(o));
      return Ok();
    });
    if (!s.ok()) return s;
    marker = next;
  } while (!marker.empty());
  return out;
}

Status HttpObjectStore::ReadRange(const RemoteObject& object, uint64_t offset, size_t length,
                                  char* out) {
  const std::string where = object.url + ": read failed at byte offset " + std::to_string(offset) +
                            " (" + std::to_string(length) + " bytes): ";
  return WithRetries(options_, [&](bool* retry) -> Status {
    HeaderList extra = {
        {"Range", "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1)}};
    if (!object.etag.empty()) extra.emplace_back("If-Match", object.etag);
    Prepared p = Prepare("GET", object.key, {}, extra);
    HttpReply reply;
    Status sent = Perform({"GET", p.url, p.headers, out, length}, options_, &reply);
    if (!sent.ok()) {
      *retry = true;
      return IoError(where + sent.message());
    }
    if (reply.status >= 400) reply.body.assign(out, std::min(reply.received, length));
    if (reply.status == 412)
      return IoError(object.url + ": the object changed while it was read (its ETag is no longer " +
                     object.etag + "; at byte offset " + std::to_string(offset) + ")");
    if (reply.status != 206 && !(reply.status == 200 && offset == 0 && length == object.size)) {
      *retry = RetryableStatus(reply.status);
      return IoError(where +
                     (reply.status == 200 ? "the server ignores Range requests" : Describe(reply)));
    }
    if (reply.overflow || reply.received != length) {
      *retry = true;
      return IoError(where + "the body was cut short (" + std::to_string(reply.received) + " of " +
                     std::to_string(length) + " bytes)");
    }
    return Ok();
  });
}

}  // namespace th::remote
