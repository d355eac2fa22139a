#include "core/graph/string_pool.h"

namespace th {

StringPool::StringPool() { Intern(""); }

StringId StringPool::Intern(std::string_view s) {
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  storage_.emplace_back(s);
  std::string_view stored = storage_.back();
  StringId id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  text_bytes_ += s.size() + sizeof(std::string);
  return id;
}

StringId StringPool::Find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kNotFound : it->second;
}

}  // namespace th
