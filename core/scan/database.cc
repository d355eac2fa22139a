#include "core/scan/database.h"

#include <charconv>

#include "core/graph/json_number.h"
#include "core/scan/postgres_database.h"
#include "core/scan/sqlite_database.h"

namespace th::scan {

bool SqlIsNull(const SqlValue& v) { return std::holds_alternative<std::monostate>(v); }

int64_t SqlInt(const SqlValue& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  if (auto* d = std::get_if<double>(&v)) return static_cast<int64_t>(*d);
  if (auto* s = std::get_if<std::string>(&v)) {
    int64_t out = 0;
    std::from_chars(s->data(), s->data() + s->size(), out);
    return out;
  }
  return 0;
}

double SqlDouble(const SqlValue& v) {
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (auto* s = std::get_if<std::string>(&v)) {
    double out = 0;
    std::from_chars(s->data(), s->data() + s->size(), out);
    return out;
  }
  return 0;
}

std::string SqlText(const SqlValue& v) {
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) return ShortestNumber(*d);
  return "";
}

std::string RedactDatabaseUrl(const std::string& url) {
  // postgresql://user:password@host/... -> postgresql://user:***@host/...
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  size_t at = url.find('@', scheme + 3);
  if (at == std::string::npos) return url;
  size_t colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

StatusOr<std::unique_ptr<Database>> OpenDatabase(const std::string& url) {
  auto starts = [&](std::string_view p) { return url.rfind(p, 0) == 0; };
  auto ends = [&](std::string_view s) {
    return url.size() >= s.size() && url.compare(url.size() - s.size(), s.size(), s) == 0;
  };
  if (starts("postgresql://") || starts("postgres://")) return OpenPostgresDatabase(url);
  if (starts("sqlite:")) {
    std::string path = url.substr(7);
    if (path.rfind("//", 0) == 0) path = path.substr(2);  // sqlite://PATH
    if (path.empty()) return InvalidInput("database URL '" + url + "' names no file");
    return OpenSqliteDatabase(path);
  }
  if (url.find("://") == std::string::npos && (ends(".db") || ends(".sqlite") || ends(".sqlite3")))
    return OpenSqliteDatabase(url);
  return InvalidInput("database URL '" + RedactDatabaseUrl(url) +
                      "' is neither sqlite:PATH nor postgresql://...");
}

}  // namespace th::scan
