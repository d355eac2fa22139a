#include "core/import/remote/remote_inputs.h"

#include <fnmatch.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

#include "core/import/remote/remote_source.h"

namespace th::remote {

namespace {

int EnvInt(const char* name, int fallback, int lo, int hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0') return fallback;
  return static_cast<int>(std::clamp<long>(x, lo, hi));
}

RemoteOptions OptionsFromEnv() {
  RemoteOptions o;
  o.attempts = EnvInt("TRACEHOUND_REMOTE_ATTEMPTS", o.attempts, 1, 100);
  o.base_delay_ms = EnvInt("TRACEHOUND_REMOTE_RETRY_DELAY_MS", o.base_delay_ms, 0, 60000);
  o.list_page = EnvInt("TRACEHOUND_REMOTE_LIST_PAGE", o.list_page, 1, 1000);
  return o;
}

StreamOptions StreamOptionsFromEnv() {
  StreamOptions o;
  o.streams = EnvInt("TRACEHOUND_REMOTE_STREAMS", o.streams, 1, 64);
  o.chunk_bytes = static_cast<size_t>(EnvInt("TRACEHOUND_REMOTE_CHUNK_MIB", 8, 1, 1024)) << 20;
  return o;
}

struct Registry {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<ObjectStore>> stores;  // by bucket URL
  std::map<std::string, RemoteObject> objects;                 // by object URL
};

Registry& State() {
  static Registry* r = new Registry();
  return *r;
}

StatusOr<std::shared_ptr<ObjectStore>> StoreFor(const ObjectUrl& url) {
  const std::string id = url.UrlOf("");
  Registry& r = State();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.stores.find(id);
  if (it != r.stores.end()) return it->second;
  std::string error;
  const RemoteModuleApi* api = LoadRemoteModule(&error);
  if (!api) return Unsupported(url.url() + ": " + error);
  auto store = api->open_store(url, OptionsFromEnv());
  if (!store.ok()) return store.status();
  std::shared_ptr<ObjectStore> shared = std::move(*store);
  r.stores[id] = shared;
  return shared;
}

void Remember(const std::vector<RemoteObject>& objects) {
  Registry& r = State();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const RemoteObject& o : objects) r.objects[o.url] = o;
}

bool HasGlobChars(std::string_view s) { return s.find_first_of("*?[") != std::string::npos; }

}  // namespace

StatusOr<ExpandedRemote> ExpandRemoteInput(
    const std::string& input, const std::function<bool(std::string_view)>& named_like_trace) {
  auto url = ParseObjectUrl(input);
  if (!url.ok()) return url.status();
  auto store = StoreFor(*url);
  if (!store.ok()) return store.status();
  ExpandedRemote out;
  const std::string& key = url->key;
  if (url->scheme == Scheme::kHttp || (!key.empty() && key.back() != '/' && !HasGlobChars(key))) {
    auto object = (*store)->Stat(key);
    if (object.ok() || url->scheme == Scheme::kHttp ||
        object.status().code() != StatusCode::kNotFound) {
      if (!object.ok()) return object.status();
      out.objects.push_back(*object);
      out.explicit_object = true;
      Remember(out.objects);
      return out;
    }
  }
  // A prefix (a directory) or a glob: list from the longest literal prefix.
  const bool glob = HasGlobChars(key);
  std::string prefix = glob ? key.substr(0, key.find_first_of("*?[")) : key;
  if (!glob && !prefix.empty() && prefix.back() != '/') prefix += '/';
  auto listed = (*store)->List(prefix);
  if (!listed.ok()) return listed.status();
  for (RemoteObject& o : *listed) {
    if (glob) {
      if (fnmatch(key.c_str(), o.key.c_str(), FNM_PATHNAME) != 0) continue;
    } else if (o.key.ends_with("/")) {
      continue;  // a folder marker
    } else if (!named_like_trace(o.key)) {
      out.skipped.push_back(o.url);
      continue;
    }
    out.objects.push_back(std::move(o));
  }
  if (out.objects.empty() && out.skipped.empty())
    return NotFound(input + (glob ? ": no object matches this pattern"
                                  : ": no such object, and no object under this prefix"));
  std::sort(out.objects.begin(), out.objects.end(),
            [](const RemoteObject& a, const RemoteObject& b) { return a.key < b.key; });
  out.explicit_object = glob;
  Remember(out.objects);
  return out;
}

StatusOr<RemoteObject> LookUpRemoteObject(const std::string& url_text) {
  {
    Registry& r = State();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.objects.find(url_text);
    if (it != r.objects.end()) return it->second;
  }
  auto url = ParseObjectUrl(url_text);
  if (!url.ok()) return url.status();
  auto store = StoreFor(*url);
  if (!store.ok()) return store.status();
  auto object = (*store)->Stat(url->key);
  if (!object.ok()) return object.status();
  Remember({*object});
  return object;
}

StatusOr<std::unique_ptr<ByteSource>> OpenRemoteObject(const std::string& url_text,
                                                       uint64_t offset) {
  auto object = LookUpRemoteObject(url_text);
  if (!object.ok()) return object.status();
  auto url = ParseObjectUrl(url_text);
  if (!url.ok()) return url.status();
  auto store = StoreFor(*url);
  if (!store.ok()) return store.status();
  return MakeRemoteSource(*store, *object, StreamOptionsFromEnv(), offset);
}

}  // namespace th::remote

namespace th::remote {

StatusOr<std::vector<std::pair<std::string, std::string>>> ReadRemoteSiblings(
    const std::string& url_text, const std::string& suffix) {
  auto url = ParseObjectUrl(url_text);
  if (!url.ok()) return url.status();
  std::vector<std::pair<std::string, std::string>> out;
  if (url->scheme == Scheme::kHttp) return out;  // a plain server cannot list
  auto store = StoreFor(*url);
  if (!store.ok()) return store.status();
  const std::string prefix = url->key.substr(0, url->key.rfind('/') + 1);
  auto listed = (*store)->List(prefix);
  if (!listed.ok()) return listed.status();
  for (const RemoteObject& o : *listed) {
    std::string_view rest = std::string_view(o.key).substr(prefix.size());
    if (rest.find('/') != std::string_view::npos || !rest.ends_with(suffix) ||
        rest.size() == suffix.size())
      continue;
    std::string bytes(o.size, '\0');
    if (o.size > 0) TH_RETURN_IF_ERROR((*store)->ReadRange(o, 0, o.size, bytes.data()));
    out.emplace_back(o.url, std::move(bytes));
  }
  return out;
}

}  // namespace th::remote
