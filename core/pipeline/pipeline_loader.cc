#include "core/pipeline/pipeline_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "core/graph/core_tables.h"

namespace th {

// ---------------------------------------------------------------------------
// The document tree: yaml-cpp's nodes copied with the file name in every mark,
// map entries kept in file order, so that merging, overrides and validation
// can all say where a value came from. (Named outside this file only by
// PipelineDocument, which holds one.)
namespace pipeline_tree {

struct Entry;

struct Node {
  enum class Kind { kNull, kScalar, kSequence, kMap };
  Kind kind = Kind::kNull;
  YamlMark mark;
  std::string text;            // kScalar
  bool plain = true;           // kScalar: typed from its text (else always a string)
  std::vector<Node> items;     // kSequence
  std::vector<Entry> entries;  // kMap, in file order, keys unique
};

struct Entry {
  std::string key;
  YamlMark key_mark;
  Node value;
};

}  // namespace pipeline_tree

namespace {

namespace fs = std::filesystem;

using Getenv = std::function<std::optional<std::string>(const std::string&)>;
using pipeline_tree::Entry;
using pipeline_tree::Node;

Entry* Find(Node& map, std::string_view key) {
  for (Entry& e : map.entries)
    if (e.key == key) return &e;
  return nullptr;
}

// User text echoed in a message: one line, bounded.
std::string Clip(std::string_view s) {
  constexpr size_t kMax = 60;
  std::string out;
  for (char c : s.substr(0, kMax)) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += '?';
    } else {
      out += c;
    }
  }
  if (s.size() > kMax) out += "...";
  return out;
}

std::string Q(std::string_view s) { return "'" + Clip(s) + "'"; }

Status ErrorAt(const YamlMark& mark, const std::string& what) {
  return InvalidInput(FormatMark(mark) + ": " + what);
}

template <typename List>
std::string JoinList(const List& list) {
  std::string out;
  for (const auto& s : list) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Suggestions for unknown keys.

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The closest candidate when it is close (distance <= 2 or <= a third of its
// length, and not a complete rewrite) and no other is as close: "P3" has no
// single nearest severity, so none is suggested.
std::optional<std::string> Closest(std::string_view key, const std::vector<std::string>& cands) {
  std::optional<std::string> best;
  size_t best_d = SIZE_MAX;
  bool tie = false;
  for (const std::string& c : cands) {
    size_t d = EditDistance(key, c);
    bool close = (d <= 2 || d * 3 <= c.size()) && d < std::max(key.size(), c.size());
    if (!close || d > best_d) continue;
    tie = d == best_d;
    if (d < best_d) {
      best = c;
      best_d = d;
    }
  }
  if (tie) return std::nullopt;
  return best;
}

std::string SuggestionTail(std::string_view key, const std::vector<std::string>& cands) {
  if (auto c = Closest(key, cands)) return "; did you mean '" + *c + "'?";
  if (cands.empty()) return "";
  return " (valid: " + JoinList(cands) + ")";
}

// ---------------------------------------------------------------------------
// Phase 1: files -> trees.

using MarkFn = std::function<YamlMark(const YAML::Mark&)>;

// yaml-cpp shares an aliased node instead of copying it, so a document can
// refer to itself ("&a [*a]") or repeat an anchor exponentially (a "billion
// laughs" bomb of a few hundred bytes). The conversion below expands aliases,
// so it is bounded: nesting depth (a cycle hits it) and nodes in all.
struct ConvertBudget {
  static constexpr int kMaxDepth = 64;
  // A real pipeline has hundreds of values; a bomb is refused before its
  // expansion costs measurable time (the fuzzer's 10 s limit under ASan was
  // reached at 100,000).
  static constexpr int64_t kMaxNodes = 20000;
  int64_t nodes = 0;
};

Status Convert(const YAML::Node& y, const MarkFn& mark, Node* out, ConvertBudget* budget,
               int depth) {
  out->mark = mark(y.Mark());
  if (depth > ConvertBudget::kMaxDepth)
    return ErrorAt(out->mark, "YAML nested deeper than " +
                                  std::to_string(ConvertBudget::kMaxDepth) +
                                  " levels (an alias that contains itself?)");
  if (++budget->nodes > ConvertBudget::kMaxNodes)
    return ErrorAt(out->mark, "YAML expands to more than " +
                                  std::to_string(ConvertBudget::kMaxNodes) +
                                  " values once its aliases are expanded (an alias bomb?)");
  switch (y.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out->kind = Node::Kind::kNull;
      return Ok();
    case YAML::NodeType::Scalar: {
      out->kind = Node::Kind::kScalar;
      out->text = y.Scalar();
      // Plain scalars are typed by their text, quoted ones ("!") are strings;
      // the core schema's explicit tags say the same.
      const std::string& tag = y.Tag();
      constexpr std::string_view kCore = "tag:yaml.org,2002:";
      const std::string_view core_tag =
          tag.starts_with(kCore) ? std::string_view(tag).substr(kCore.size()) : "";
      if (tag == "!" || core_tag == "str") {
        out->plain = false;
      } else if (tag == "?" || core_tag == "int" || core_tag == "float" || core_tag == "bool" ||
                 core_tag == "null") {
        out->plain = true;
      } else {
        return ErrorAt(out->mark, "unsupported YAML tag " + Q(tag));
      }
      return Ok();
    }
    case YAML::NodeType::Sequence:
      out->kind = Node::Kind::kSequence;
      for (const YAML::Node& item : y) {
        out->items.emplace_back();
        TH_RETURN_IF_ERROR(Convert(item, mark, &out->items.back(), budget, depth + 1));
      }
      return Ok();
    case YAML::NodeType::Map:
      out->kind = Node::Kind::kMap;
      for (const auto& kv : y) {
        YamlMark key_mark = mark(kv.first.Mark());
        if (!kv.first.IsScalar()) return ErrorAt(key_mark, "a key must be a plain string");
        const std::string& key = kv.first.Scalar();
        for (const Entry& e : out->entries) {
          if (e.key == key)
            return ErrorAt(key_mark, "duplicate key " + Q(key) + " (first at line " +
                                         std::to_string(e.key_mark.line) + ")");
        }
        Entry entry{key, key_mark, {}};
        TH_RETURN_IF_ERROR(Convert(kv.second, mark, &entry.value, budget, depth + 1));
        // An empty value has no text of its own; point at its key instead.
        if (entry.value.kind == Node::Kind::kNull && entry.value.mark.line != key_mark.line)
          entry.value.mark = key_mark;
        out->entries.push_back(std::move(entry));
      }
      return Ok();
  }
  return Ok();
}

// Parses YAML text; marks go through `mark`, parse errors are reported at it.
Status ParseYaml(const std::string& text, const MarkFn& mark, Node* out) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return ErrorAt(mark(e.mark), "invalid YAML: " + Clip(e.msg));
  } catch (const std::exception& e) {
    return ErrorAt(mark(YAML::Mark()), std::string("invalid YAML: ") + Clip(e.what()));
  }
  try {
    ConvertBudget budget;
    return Convert(doc, mark, out, &budget, 0);
  } catch (const std::exception& e) {
    return ErrorAt(mark(YAML::Mark()), std::string("invalid YAML: ") + Clip(e.what()));
  }
}

MarkFn FileMarks(const std::string& file) {
  return [file](const YAML::Mark& m) {
    // yaml-cpp marks are 0-based; a null mark (-1) means the document start.
    return YamlMark{file, std::max(m.line, 0) + 1, std::max(m.column, 0) + 1};
  };
}

bool IsEnvNameChar(char c, bool first) {
  return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (!first && c >= '0' && c <= '9');
}

// ${env:VAR}, ${env:VAR:-default} (default also when VAR is empty, as in a
// shell); `$${` is a literal `${`. A scalar that held a reference is typed
// from its substituted text.
Status SubstituteScalar(Node* n, const Getenv& getenv) {
  const std::string& t = n->text;
  if (t.find("${") == std::string::npos) return Ok();
  std::string out;
  bool had_ref = false;
  size_t i = 0;
  while (i < t.size()) {
    if (t.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
    } else if (t.compare(i, 6, "${env:") == 0) {
      size_t close = t.find('}', i);
      if (close == std::string::npos)
        return ErrorAt(n->mark, "unterminated ${env:...} reference in " + Q(t));
      std::string body = t.substr(i + 6, close - i - 6);
      size_t dash = body.find(":-");
      std::string name = body.substr(0, dash);
      bool valid = !name.empty();
      for (size_t k = 0; k < name.size(); ++k) valid = valid && IsEnvNameChar(name[k], k == 0);
      if (!valid)
        return ErrorAt(n->mark, "bad environment variable name " + Q(name) + " in " + Q(t));
      std::optional<std::string> value = getenv(name);
      if (dash != std::string::npos) {
        if (!value || value->empty()) value = body.substr(dash + 2);
      } else if (!value) {
        return ErrorAt(n->mark, "environment variable '" + name + "' is not set (write ${env:" +
                                    name + ":-default} to give a default)");
      }
      out += *value;
      had_ref = true;
      i = close + 1;
    } else {
      out += t[i++];
    }
  }
  n->text = std::move(out);
  if (had_ref) n->plain = true;
  return Ok();
}

Status SubstituteEnv(Node* n, const Getenv& getenv) {
  switch (n->kind) {
    case Node::Kind::kNull:
      return Ok();
    case Node::Kind::kScalar:
      return SubstituteScalar(n, getenv);
    case Node::Kind::kSequence:
      for (Node& item : n->items) TH_RETURN_IF_ERROR(SubstituteEnv(&item, getenv));
      return Ok();
    case Node::Kind::kMap:
      for (Entry& e : n->entries) TH_RETURN_IF_ERROR(SubstituteEnv(&e.value, getenv));
      return Ok();
  }
  return Ok();
}

std::string KindName(const Node& n) {
  switch (n.kind) {
    case Node::Kind::kNull:
      return "nothing";
    case Node::Kind::kScalar:
      return "the value " + Q(n.text);
    case Node::Kind::kSequence:
      return "a list";
    case Node::Kind::kMap:
      return "a map";
  }
  return "?";
}

// `over` merged onto `base`: maps key by key (over wins, base keeps its
// order, new keys follow); an empty value over a map keeps the map; anything
// else is replaced whole, lists included, except under a key written with a
// trailing `+` (`outputs+:`), whose list is appended to the base's list.
void Merge(Node* base, Node over) {
  if (base->kind == Node::Kind::kMap && over.kind == Node::Kind::kNull) return;
  if (base->kind != Node::Kind::kMap || over.kind != Node::Kind::kMap) {
    *base = std::move(over);
    return;
  }
  base->mark = over.mark;
  for (Entry& e : over.entries) {
    const bool append = e.key.size() > 1 && e.key.back() == '+';
    if (append) e.key.pop_back();
    if (Entry* have = Find(*base, e.key)) {
      have->key_mark = e.key_mark;
      if (append && have->value.kind == Node::Kind::kSequence &&
          e.value.kind == Node::Kind::kSequence) {
        for (Node& item : e.value.items) have->value.items.push_back(std::move(item));
      } else {
        Merge(&have->value, std::move(e.value));
      }
    } else {
      base->entries.push_back(std::move(e));
    }
  }
}

struct OpenFile {
  std::string canonical;
  std::string shown;
};

// Reads `path`, substitutes ${env:...} and resolves its includes, depth first.
Status LoadTree(const std::string& path, const YamlMark* included_at, std::vector<OpenFile>* stack,
                const Getenv& getenv, Node* out) {
  // A FIFO or device would block or never end the read below.
  std::error_code type_ec;
  fs::file_status type = fs::status(path, type_ec);
  if (!type_ec && fs::exists(type) && !fs::is_regular_file(type)) {
    std::string why = "not a regular file" + std::string(fs::is_directory(type) ? " (a directory)"
                                                         : fs::is_fifo(type)    ? " (a FIFO)"
                                                                                : "");
    if (included_at) return ErrorAt(*included_at, "cannot include " + Q(path) + ": " + why);
    return InvalidInput(path + ": cannot open pipeline file: " + why);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    // fs::status's error, not a throwing fs::exists: a name too long for the
    // file system is an error to report, not an exception.
    std::string why = type_ec && type_ec != std::errc::no_such_file_or_directory ? type_ec.message()
                      : fs::exists(type)                                         ? "cannot read"
                                                                                 : "no such file";
    if (included_at)
      return ErrorAt(*included_at, "cannot open included file " + Q(path) + ": " + why);
    return NotFound(path + ": cannot open pipeline file: " + why);
  }
  std::stringstream text;
  text << in.rdbuf();

  Node root;
  TH_RETURN_IF_ERROR(ParseYaml(text.str(), FileMarks(path), &root));
  if (root.kind == Node::Kind::kNull) {
    root.kind = Node::Kind::kMap;
    root.mark = {path, 1, 1};
  }
  if (root.kind != Node::Kind::kMap)
    return ErrorAt(root.mark, "a pipeline file is a map of keys (version, plugins, ...), got " +
                                  KindName(root));
  TH_RETURN_IF_ERROR(SubstituteEnv(&root, getenv));

  // Take `include` out of the tree; its files are merged underneath.
  std::vector<const Node*> includes;
  Node include_node;
  auto it = std::find_if(root.entries.begin(), root.entries.end(),
                         [](const Entry& e) { return e.key == "include"; });
  if (it != root.entries.end()) {
    include_node = std::move(it->value);
    root.entries.erase(it);
    if (include_node.kind == Node::Kind::kScalar) {
      includes.push_back(&include_node);
    } else if (include_node.kind == Node::Kind::kSequence) {
      for (const Node& item : include_node.items) includes.push_back(&item);
    } else if (include_node.kind != Node::Kind::kNull) {
      return ErrorAt(include_node.mark,
                     "'include' expects a path or a list of paths, got " + KindName(include_node));
    }
  }

  Node merged;
  merged.kind = Node::Kind::kMap;
  for (const Node* inc : includes) {
    if (inc->kind != Node::Kind::kScalar)
      return ErrorAt(inc->mark, "'include' expects a path, got " + KindName(*inc));
    fs::path target(inc->text);
    if (target.is_relative()) target = fs::path(path).parent_path() / target;
    std::string shown = target.lexically_normal().string();
    std::error_code ec;
    std::string canonical = fs::weakly_canonical(target, ec).string();
    if (ec) canonical = shown;
    for (size_t k = 0; k < stack->size(); ++k) {
      if ((*stack)[k].canonical != canonical) continue;
      std::string chain;
      for (size_t j = k; j < stack->size(); ++j) chain += (*stack)[j].shown + " -> ";
      return ErrorAt(inc->mark, "include cycle: " + chain + shown);
    }
    stack->push_back({canonical, shown});
    Node sub;
    TH_RETURN_IF_ERROR(LoadTree(shown, &inc->mark, stack, getenv, &sub));
    stack->pop_back();
    Merge(&merged, std::move(sub));
  }
  Merge(&merged, std::move(root));
  *out = std::move(merged);
  return Ok();
}

// ---------------------------------------------------------------------------
// Phase 2: --set PATH=VALUE.

Status ApplyOverride(const std::string& text, int index, const Getenv& getenv, Node* root) {
  auto at = [index](size_t offset) {
    return YamlMark{"--set", index + 1, static_cast<int>(offset) + 1};
  };
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    return ErrorAt(at(0),
                   "expected PATH=VALUE (e.g. plugins.stragglers.min_ranks=4), got " + Q(text));
  std::string path = text.substr(0, eq);

  Node value;
  MarkFn value_marks = [&](const YAML::Mark& m) {
    return at(eq + 1 + static_cast<size_t>(std::max(m.column, 0)));
  };
  TH_RETURN_IF_ERROR(ParseYaml(text.substr(eq + 1), value_marks, &value));
  if (value.kind == Node::Kind::kNull) value.mark = at(eq + 1);
  TH_RETURN_IF_ERROR(SubstituteEnv(&value, getenv));

  Node* cur = root;
  std::string walked;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string key =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    YamlMark key_mark = at(start);
    if (key.empty()) return ErrorAt(key_mark, "empty key in --set path " + Q(path));
    bool last = dot == std::string::npos;
    Node* next = nullptr;
    bool numeric = std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (cur->kind == Node::Kind::kNull) {
      if (numeric && !walked.empty())
        return ErrorAt(key_mark, "'" + walked + "' has no item " + key +
                                     "; --set cannot add list items, set the whole list instead");
      cur->kind = Node::Kind::kMap;
      cur->entries.clear();
    }
    if (cur->kind == Node::Kind::kMap) {
      Entry* e = Find(*cur, key);
      if (!e) {
        cur->entries.push_back({key, key_mark, {}});
        e = &cur->entries.back();
        e->value.mark = key_mark;
      }
      next = &e->value;
    } else if (cur->kind == Node::Kind::kSequence) {
      if (!numeric)
        return ErrorAt(key_mark, "'" + walked + "' is a list; " + Q(key) + " is not an index");
      size_t k = SIZE_MAX;  // stays so when the index overflows
      std::from_chars(key.data(), key.data() + key.size(), k);
      if (k >= cur->items.size())
        return ErrorAt(key_mark, "'" + walked + "' has no item " + key + " (it has " +
                                     std::to_string(cur->items.size()) + ")");
      next = &cur->items[k];
    } else {
      return ErrorAt(key_mark, "'" + walked + "' is a single value; it has no key " + Q(key));
    }
    walked += (walked.empty() ? "" : ".") + key;
    if (last) {
      *next = std::move(value);
      return Ok();
    }
    cur = next;
    start = dot + 1;
  }
}

// ---------------------------------------------------------------------------
// Phase 3: typing and validation.

const std::regex& IntPattern() {
  static const std::regex r("[-+]?[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+");
  return r;
}

const std::regex& DoublePattern() {
  static const std::regex r(
      "[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|"
      "NAN)");
  return r;
}

bool IsNullText(const std::string& t) {
  return t.empty() || t == "~" || t == "null" || t == "Null" || t == "NULL";
}

std::optional<bool> ParseBool(const std::string& t) {
  if (t == "true" || t == "True" || t == "TRUE") return true;
  if (t == "false" || t == "False" || t == "FALSE") return false;
  return std::nullopt;
}

// nullopt when not an int; `overflow` set when it is one but exceeds int64.
std::optional<int64_t> ParseInt(const std::string& t, bool* overflow) {
  *overflow = false;
  if (!std::regex_match(t, IntPattern())) return std::nullopt;
  int base = 10;
  std::string digits = t;
  bool negative = false;
  if (t.rfind("0x", 0) == 0 || t.rfind("0o", 0) == 0) {
    base = t[1] == 'x' ? 16 : 8;
    digits = t.substr(2);
  } else if (t[0] == '+' || t[0] == '-') {
    negative = t[0] == '-';
    digits = t.substr(1);
  }
  uint64_t magnitude = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (ec != std::errc() || magnitude > limit) {
    *overflow = true;
    return std::nullopt;
  }
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

std::optional<double> ParseDouble(const std::string& t) {
  if (!std::regex_match(t, DoublePattern())) return std::nullopt;
  std::string s = t[0] == '+' ? t.substr(1) : t;
  if (s.find("inf") != std::string::npos || s.find("Inf") != std::string::npos ||
      s.find("INF") != std::string::npos)
    return s[0] == '-' ? -HUGE_VAL : HUGE_VAL;
  if (s.find("nan") != std::string::npos || s.find("NaN") != std::string::npos ||
      s.find("NAN") != std::string::npos)
    return std::nan("");
  // from_chars does not take ".5" or "5."; normalise both.
  if (s[0] == '.') s.insert(0, "0");
  if (s.size() > 1 && s[0] == '-' && s[1] == '.') s.insert(1, "0");
  double d = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec == std::errc::invalid_argument) return std::nullopt;
  return d;
}

// What a value is, for "expects X, got Y".
std::string Describe(const Node& n) {
  if (n.kind != Node::Kind::kScalar) return KindName(n);
  if (!n.plain) return "the string " + Q(n.text);
  if (IsNullText(n.text)) return "nothing";
  if (ParseBool(n.text)) return "the bool " + n.text;
  bool overflow = false;
  if (ParseInt(n.text, &overflow) || overflow) return "the int " + Clip(n.text);
  if (ParseDouble(n.text)) return "the number " + Clip(n.text);
  return "the string " + Q(n.text);
}

Status TypeError(const Node& n, const std::string& what, std::string_view expected) {
  return ErrorAt(n.mark, what + " expects " + std::string(expected) + ", got " + Describe(n));
}

Status ReadString(const Node& n, const std::string& what, std::string* out) {
  if (n.kind != Node::Kind::kScalar) return TypeError(n, what, "a string");
  *out = n.text;
  return Ok();
}

Status ReadBool(const Node& n, const std::string& what, bool* out) {
  std::optional<bool> b;
  if (n.kind == Node::Kind::kScalar && n.plain) b = ParseBool(n.text);
  if (!b) return TypeError(n, what, "a bool (true or false)");
  *out = *b;
  return Ok();
}

Status ReadInt(const Node& n, const std::string& what, int64_t* out) {
  bool overflow = false;
  std::optional<int64_t> v;
  if (n.kind == Node::Kind::kScalar && n.plain) v = ParseInt(n.text, &overflow);
  if (overflow) return ErrorAt(n.mark, what + ": " + Clip(n.text) + " is out of range for an int");
  if (!v) return TypeError(n, what, "an int");
  *out = *v;
  return Ok();
}

Status ReadDouble(const Node& n, const std::string& what, double* out) {
  std::optional<double> v;
  if (n.kind == Node::Kind::kScalar && n.plain) v = ParseDouble(n.text);
  if (!v) return TypeError(n, what, "a number");
  *out = *v;
  return Ok();
}

template <typename Choices>
Status ReadChoice(const Node& n, const std::string& what, const Choices& choices,
                  std::string* out) {
  std::string s;
  if (n.kind != Node::Kind::kScalar) return TypeError(n, what, "one of " + JoinList(choices));
  s = n.text;
  std::vector<std::string> cands(choices.begin(), choices.end());
  if (std::find(cands.begin(), cands.end(), s) == cands.end()) {
    std::string tail;
    if (auto c = Closest(s, cands)) tail = "; did you mean '" + *c + "'?";
    return ErrorAt(n.mark, what + " must be one of " + JoinList(cands) + ", got " + Q(s) + tail);
  }
  *out = std::move(s);
  return Ok();
}

// One of kPipelineSeverities.
Status ReadSeverity(const Node& n, const std::string& what, std::optional<FindingSeverity>* out) {
  std::string s;
  TH_RETURN_IF_ERROR(ReadChoice(n, what, kPipelineSeverities, &s));
  *out = ParseSeverity(s);
  return Ok();
}

// A string or a list of strings; nothing = empty.
Status ReadStringList(const Node& n, const std::string& what, std::vector<std::string>* out) {
  out->clear();
  if (n.kind == Node::Kind::kNull) return Ok();
  if (n.kind == Node::Kind::kScalar) {
    out->push_back(n.text);
    return Ok();
  }
  if (n.kind != Node::Kind::kSequence) return TypeError(n, what, "a string or a list of strings");
  for (const Node& item : n.items) {
    std::string s;
    TH_RETURN_IF_ERROR(ReadString(item, what + " item", &s));
    out->push_back(std::move(s));
  }
  return Ok();
}

// Relative plugin paths are relative to the file that names them.
std::vector<std::string> ResolvePluginPaths(const Node& n, std::vector<std::string> paths) {
  for (size_t i = 0; i < paths.size(); ++i) {
    const YamlMark& m = n.kind == Node::Kind::kSequence ? n.items[i].mark : n.mark;
    fs::path p(paths[i]);
    if (p.is_relative() && m.file != "--set") p = fs::path(m.file).parent_path() / p;
    paths[i] = p.lexically_normal().string();
  }
  return paths;
}

Status ReadOption(const Node& n, const OptionDeclaration& decl, const std::string& what,
                  OptionValue* out) {
  switch (decl.type) {
    case OptionType::kBool: {
      bool b = false;
      TH_RETURN_IF_ERROR(ReadBool(n, what, &b));
      *out = b;
      return Ok();
    }
    case OptionType::kInt: {
      int64_t v = 0;
      TH_RETURN_IF_ERROR(ReadInt(n, what, &v));
      if ((decl.min && static_cast<double>(v) < *decl.min) ||
          (decl.max && static_cast<double>(v) > *decl.max))
        break;
      *out = v;
      return Ok();
    }
    case OptionType::kDouble: {
      double v = 0;
      TH_RETURN_IF_ERROR(ReadDouble(n, what, &v));
      if ((decl.min && !(v >= *decl.min)) || (decl.max && !(v <= *decl.max))) break;
      *out = v;
      return Ok();
    }
    case OptionType::kString: {
      std::string s;
      if (!decl.choices.empty()) {
        TH_RETURN_IF_ERROR(ReadChoice(n, what, decl.choices, &s));
      } else {
        TH_RETURN_IF_ERROR(ReadString(n, what, &s));
      }
      *out = std::move(s);
      return Ok();
    }
  }
  // Out of [min, max].
  auto bound = [](double d) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
    return std::string(buf, ec == std::errc() ? end : buf);
  };
  std::string range;
  if (decl.min && decl.max) {
    range = "in [" + bound(*decl.min) + ", " + bound(*decl.max) + "]";
  } else if (decl.min) {
    range = ">= " + bound(*decl.min);
  } else {
    range = "<= " + bound(*decl.max);
  }
  return ErrorAt(n.mark, what + " must be " + range + ", got " + Clip(n.text));
}

// The declared default, as the declared type (a double option may declare 2).
OptionValue DefaultOf(const OptionDeclaration& decl) {
  if (decl.type == OptionType::kDouble) {
    if (const int64_t* i = std::get_if<int64_t>(&decl.default_value))
      return static_cast<double>(*i);
  }
  if (decl.type == OptionType::kInt) {
    if (const double* d = std::get_if<double>(&decl.default_value)) return static_cast<int64_t>(*d);
  }
  return decl.default_value;
}

const PluginDeclaration* FindDecl(const std::vector<PluginDeclaration>& catalog,
                                  std::string_view id) {
  for (const PluginDeclaration& d : catalog)
    if (d.id == id) return &d;
  return nullptr;
}

std::vector<std::string> Ids(const std::vector<PluginDeclaration>& catalog) {
  std::vector<std::string> ids;
  for (const PluginDeclaration& d : catalog) ids.push_back(d.id);
  return ids;
}

// A plugin entry's `python:` value: "module:Class", or "path.py:Class" (any
// path with a '/' or ending in .py) made absolute from the naming file's
// folder, so that a --dump-config of the pipeline loads it from anywhere.
StatusOr<PythonPluginRef> ReadPythonRef(const Entry& plugin, const Node& value) {
  PythonPluginRef ref;
  ref.id = plugin.key;
  ref.where = FormatMark(value.mark);
  TH_RETURN_IF_ERROR(ReadString(value, "plugin " + Q(plugin.key) + ": 'python'", &ref.spec));
  if (value.mark.file != "--set") ref.base_dir = fs::path(value.mark.file).parent_path().string();
  const size_t colon = ref.spec.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == ref.spec.size())
    return ErrorAt(value.mark, "plugin " + Q(plugin.key) + ": 'python' must be 'module:Class' " +
                                   "or 'file.py:Class', got " + Q(ref.spec));
  fs::path where = ref.spec.substr(0, colon);
  if (where.extension() == ".py" || ref.spec.substr(0, colon).find('/') != std::string::npos) {
    std::error_code ec;
    if (where.is_relative()) where = fs::absolute(fs::path(ref.base_dir) / where, ec);
    ref.spec = where.lexically_normal().string() + ref.spec.substr(colon);
  }
  return ref;
}

Status ReadPlugin(const Entry& entry, const PluginDeclaration& decl, PluginStep* step) {
  step->id = decl.id;
  step->mark = entry.key_mark;
  const Node& body = entry.value;
  const std::string plugin = "plugin '" + decl.id + "'";
  if (body.kind != Node::Kind::kNull && body.kind != Node::Kind::kMap)
    return ErrorAt(body.mark,
                   plugin + " expects a map of options (or nothing), got " + Describe(body));
  std::vector<std::string> keys = {"enabled", "severity"};
  for (const OptionDeclaration& o : decl.options) keys.push_back(o.name);
  for (const Entry& e : body.entries) {
    if (e.key == "python" && decl.library.rfind("python:", 0) == 0) {
      auto ref = ReadPythonRef(entry, e.value);
      if (!ref.ok()) return ref.status();
      step->python = ref->spec;
    } else if (e.key == "enabled") {
      TH_RETURN_IF_ERROR(ReadBool(e.value, plugin + ": 'enabled'", &step->enabled));
    } else if (e.key == "severity") {
      TH_RETURN_IF_ERROR(ReadSeverity(e.value, plugin + ": 'severity'", &step->severity));
    } else {
      auto o = std::find_if(decl.options.begin(), decl.options.end(),
                            [&](const OptionDeclaration& d) { return d.name == e.key; });
      if (o == decl.options.end())
        return ErrorAt(e.key_mark, "unknown option " + Q(e.key) + " for " + plugin +
                                       SuggestionTail(e.key, keys));
      OptionValue v;
      TH_RETURN_IF_ERROR(ReadOption(e.value, *o, plugin + ": option '" + o->name + "'", &v));
      step->options[o->name] = std::move(v);
    }
  }
  for (const OptionDeclaration& o : decl.options)
    if (!step->options.count(o.name)) step->options[o.name] = DefaultOf(o);
  return Ok();
}

Status ReadOutputs(const Node& n, std::vector<OutputSpec>* outputs) {
  if (n.kind == Node::Kind::kNull) return Ok();
  if (n.kind != Node::Kind::kSequence)
    return TypeError(n, "'outputs'", "a list of {type, path} maps");
  static const std::vector<std::string> kKeys = {"type", "path", "min_severity", "max_findings"};
  for (const Node& item : n.items) {
    if (item.kind != Node::Kind::kMap) return TypeError(item, "an output", "a map {type, path}");
    OutputSpec out;
    out.where = FormatMark(item.mark);
    bool has_type = false;
    for (const Entry& e : item.entries) {
      if (e.key == "type") {
        TH_RETURN_IF_ERROR(ReadChoice(e.value, "output 'type'", kPipelineOutputTypes, &out.type));
        has_type = true;
      } else if (e.key == "path") {
        TH_RETURN_IF_ERROR(ReadString(e.value, "output 'path'", &out.path));
      } else if (e.key == "min_severity") {
        TH_RETURN_IF_ERROR(ReadSeverity(e.value, "output 'min_severity'", &out.min_severity));
      } else if (e.key == "max_findings") {
        int64_t m = 0;
        TH_RETURN_IF_ERROR(ReadInt(e.value, "output 'max_findings'", &m));
        if (m < 0) return ErrorAt(e.value.mark, "output 'max_findings' must be 0 or more");
        out.max_findings = m;
      } else {
        return ErrorAt(e.key_mark,
                       "unknown key " + Q(e.key) + " in an output" + SuggestionTail(e.key, kKeys));
      }
    }
    if (!has_type)
      return ErrorAt(item.mark,
                     "an output needs a 'type' (" + JoinList(kPipelineOutputTypes) + ")");
    if (out.type != "terminal" && out.path.empty())
      return ErrorAt(item.mark, "an output of type '" + out.type + "' needs a 'path'");
    outputs->push_back(std::move(out));
  }
  return Ok();
}

Status ReadExecution(const Node& n, Pipeline* p) {
  if (n.kind == Node::Kind::kNull) return Ok();
  if (n.kind != Node::Kind::kMap) return TypeError(n, "'execution'", "a map {backend, threads}");
  static const std::vector<std::string> kKeys = {"backend", "threads"};
  for (const Entry& e : n.entries) {
    if (e.key == "backend") {
      TH_RETURN_IF_ERROR(
          ReadChoice(e.value, "'execution.backend'", kPipelineBackends, &p->backend));
    } else if (e.key == "threads") {
      int64_t t = 0;
      TH_RETURN_IF_ERROR(ReadInt(e.value, "'execution.threads'", &t));
      if (t < 0 || t > INT_MAX)
        return ErrorAt(e.value.mark, "'execution.threads' must be >= 0 (0 = all cores), got " +
                                         Clip(e.value.text));
      p->threads = static_cast<int>(t);
    } else {
      return ErrorAt(e.key_mark,
                     "unknown key " + Q(e.key) + " in 'execution'" + SuggestionTail(e.key, kKeys));
    }
  }
  return Ok();
}

// `kernel_classes:` a list of {match, class, source, ignore_case} rules.
Status ReadKernelClasses(const Node& n, std::vector<KernelClassRule>* rules) {
  rules->clear();
  if (n.kind == Node::Kind::kNull) return Ok();
  if (n.kind != Node::Kind::kSequence)
    return TypeError(n, "'kernel_classes'", "a list of {match, class, source} rules");
  static const std::vector<std::string> kKeys = {"match", "class", "source", "ignore_case"};
  for (const Node& item : n.items) {
    if (item.kind != Node::Kind::kMap)
      return TypeError(item, "a kernel_classes rule", "a map {match, class, source}");
    KernelClassRule rule;
    rule.set = RuleSet::kTracehound;
    rule.source = "pipeline " + FormatMark(item.mark);
    bool has_match = false, has_class = false;
    for (const Entry& e : item.entries) {
      if (e.key == "match") {
        TH_RETURN_IF_ERROR(ReadString(e.value, "kernel_classes 'match'", &rule.match));
        if (rule.match.empty())
          return ErrorAt(e.value.mark,
                         "kernel_classes 'match' is an empty pattern; write a "
                         "glob such as '*my_alltoall*'");
        has_match = true;
      } else if (e.key == "class") {
        std::string c;
        TH_RETURN_IF_ERROR(
            ReadChoice(e.value, "kernel_classes 'class'", kPipelineKernelClasses, &c));
        rule.klass = c == "COMM"  ? KernelClass::kComm
                     : c == "MEM" ? KernelClass::kMem
                                  : KernelClass::kComp;
        has_class = true;
      } else if (e.key == "source") {
        TH_RETURN_IF_ERROR(ReadString(e.value, "kernel_classes 'source'", &rule.source));
      } else if (e.key == "ignore_case") {
        TH_RETURN_IF_ERROR(ReadBool(e.value, "kernel_classes 'ignore_case'", &rule.ignore_case));
      } else {
        return ErrorAt(e.key_mark, "unknown key " + Q(e.key) + " in a kernel_classes rule" +
                                       SuggestionTail(e.key, kKeys));
      }
    }
    if (!has_match)
      return ErrorAt(item.mark,
                     "a kernel_classes rule needs a 'match' (a glob, e.g. '*dispatch*')");
    if (!has_class)
      return ErrorAt(item.mark, "a kernel_classes rule needs a 'class' (" +
                                    JoinList(kPipelineKernelClasses) + ")");
    rules->push_back(std::move(rule));
  }
  return Ok();
}

const std::vector<std::string>& TopLevelKeys() {
  static const std::vector<std::string> kKeys = {
      "version", "include", "inputs",         "execution", "plugin_paths",
      "plugins", "outputs", "kernel_classes", "fail_on",   "baseline"};
  return kKeys;
}

// Orders `steps` so every plugin follows the enabled plugins publishing what
// it reads (Kahn's algorithm, ties in file order); checks every read is met.
Status OrderPlugins(const std::vector<PluginDeclaration>& catalog, std::vector<PluginStep>* steps) {
  const size_t n = steps->size();
  std::vector<const PluginDeclaration*> decl(n);
  for (size_t i = 0; i < n; ++i) decl[i] = FindDecl(catalog, (*steps)[i].id);

  // preds[i]: enabled plugins publishing a table i reads (i runs after them).
  std::vector<std::vector<size_t>> preds(n);
  for (size_t i = 0; i < n; ++i) {
    if (!(*steps)[i].enabled) continue;
    for (const std::string& table : decl[i]->reads) {
      bool met = CoreTableSchema(table) != nullptr;
      for (size_t j = 0; j < n; ++j) {
        if (j == i || !(*steps)[j].enabled) continue;
        if (!decl[j]->Published(table)) continue;
        met = true;
        if (std::find(preds[i].begin(), preds[i].end(), j) == preds[i].end()) preds[i].push_back(j);
      }
      if (met) continue;
      std::string hint;
      for (const PluginDeclaration& d : catalog) {
        if (d.id == decl[i]->id || !d.Published(table)) continue;
        bool listed = std::any_of(steps->begin(), steps->end(),
                                  [&](const PluginStep& s) { return s.id == d.id; });
        hint = listed ? "; '" + d.id + "' publishes it but is disabled"
                      : "; add '" + d.id + ": {}' to plugins, which publishes it";
        break;
      }
      return ErrorAt((*steps)[i].mark, "plugin '" + decl[i]->id + "' reads table '" + table +
                                           "' that no enabled plugin publishes" + hint);
    }
  }

  std::vector<size_t> order;
  std::vector<bool> done(n, false);
  while (order.size() < n) {
    size_t next = n;
    for (size_t i = 0; i < n && next == n; ++i) {
      if (done[i]) continue;
      if (std::all_of(preds[i].begin(), preds[i].end(), [&](size_t j) { return done[j]; }))
        next = i;
    }
    if (next == n) break;
    done[next] = true;
    order.push_back(next);
  }

  if (order.size() < n) {
    // Every plugin left waits on another one left: walk back along the first
    // such predecessor until a plugin repeats; that loop is a cycle.
    size_t u = std::find(done.begin(), done.end(), false) - done.begin();
    std::vector<size_t> walk;
    while (std::find(walk.begin(), walk.end(), u) == walk.end()) {
      walk.push_back(u);
      u = *std::find_if(preds[u].begin(), preds[u].end(), [&](size_t j) { return !done[j]; });
    }
    std::vector<size_t> cycle(std::find(walk.begin(), walk.end(), u), walk.end());
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    std::string what;
    for (size_t k = 0; k < cycle.size(); ++k) {
      size_t reader = cycle[k], publisher = cycle[(k + 1) % cycle.size()];
      std::string table;
      for (const std::string& t : decl[reader]->reads) {
        if (decl[publisher]->Published(t)) {
          table = t;
          break;
        }
      }
      what += (k ? ", " : "") + std::string("'") + decl[reader]->id + "' reads '" + table +
              "' from '" + decl[publisher]->id + "'";
    }
    return ErrorAt((*steps)[cycle[0]].mark, "plugins form a dependency cycle: " + what);
  }

  std::vector<PluginStep> sorted;
  for (size_t i : order) sorted.push_back(std::move((*steps)[i]));
  *steps = std::move(sorted);
  return Ok();
}

// A plugin comparing input groups needs a baseline, and a baseline needs
// such a plugin (no other plugin sees it).
Status CheckInputGroups(const std::vector<PluginDeclaration>& catalog, const Pipeline& p,
                        const std::optional<YamlMark>& baseline_mark) {
  const PluginStep* grouped = nullptr;
  for (const PluginStep& step : p.plugins)
    if (step.enabled && FindDecl(catalog, step.id)->input_groups && !grouped) grouped = &step;
  if (grouped && p.baseline.empty())
    return ErrorAt(grouped->mark, "plugin '" + grouped->id +
                                      "' compares the inputs with a baseline: name the baseline "
                                      "traces under 'baseline:' (docs/pipelines.md)");
  if (!grouped && baseline_mark && !p.baseline.empty())
    return ErrorAt(*baseline_mark,
                   "'baseline:' is read only by plugins that compare input groups (e.g. "
                   "trace-diff), and no enabled plugin does");
  return Ok();
}

Status Validate(const Node& root, const std::vector<PluginDeclaration>& catalog, Pipeline* p) {
  if (root.kind != Node::Kind::kMap)
    return ErrorAt(root.mark,
                   "a pipeline is a map of keys (version, plugins, ...), got " + KindName(root));
  bool has_version = false;
  std::optional<YamlMark> baseline_mark;
  for (const Entry& e : root.entries) {
    const Node& v = e.value;
    if (e.key == "version") {
      int64_t version = 0;
      TH_RETURN_IF_ERROR(ReadInt(v, "'version'", &version));
      if (version != 1)
        return ErrorAt(v.mark, "unsupported pipeline version " + std::to_string(version) +
                                   " (this tracehound reads version 1)");
      p->version = 1;
      has_version = true;
    } else if (e.key == "inputs") {
      TH_RETURN_IF_ERROR(ReadStringList(v, "'inputs'", &p->inputs));
    } else if (e.key == "baseline") {
      TH_RETURN_IF_ERROR(ReadStringList(v, "'baseline'", &p->baseline));
      baseline_mark = v.mark;
    } else if (e.key == "execution") {
      TH_RETURN_IF_ERROR(ReadExecution(v, p));
    } else if (e.key == "plugin_paths") {
      TH_RETURN_IF_ERROR(ReadStringList(v, "'plugin_paths'", &p->plugin_paths));
      p->plugin_paths = ResolvePluginPaths(v, std::move(p->plugin_paths));
    } else if (e.key == "plugins") {
      if (v.kind == Node::Kind::kNull) continue;
      if (v.kind != Node::Kind::kMap)
        return TypeError(v, "'plugins'", "a map of plugin id to options");
      for (const Entry& pe : v.entries) {
        const PluginDeclaration* decl = FindDecl(catalog, pe.key);
        if (!decl) {
          std::string tail = Closest(pe.key, Ids(catalog))
                                 ? SuggestionTail(pe.key, Ids(catalog))
                                 : " (no plugin on the plugin path has this id)";
          return ErrorAt(pe.key_mark, "unknown plugin " + Q(pe.key) + tail);
        }
        PluginStep step;
        TH_RETURN_IF_ERROR(ReadPlugin(pe, *decl, &step));
        p->plugins.push_back(std::move(step));
      }
    } else if (e.key == "outputs") {
      TH_RETURN_IF_ERROR(ReadOutputs(v, &p->outputs));
    } else if (e.key == "kernel_classes") {
      TH_RETURN_IF_ERROR(ReadKernelClasses(v, &p->kernel_classes));
    } else if (e.key == "fail_on") {
      if (v.kind == Node::Kind::kNull) continue;
      TH_RETURN_IF_ERROR(ReadSeverity(v, "'fail_on'", &p->fail_on));
    } else {
      return ErrorAt(e.key_mark, "unknown key " + Q(e.key) + SuggestionTail(e.key, TopLevelKeys()));
    }
  }
  if (!has_version) return ErrorAt(root.mark, "missing 'version: 1'");
  TH_RETURN_IF_ERROR(CheckInputGroups(catalog, *p, baseline_mark));
  return OrderPlugins(catalog, &p->plugins);
}

Getenv EnvOrDefault(const LoadPipelineOptions& options) {
  if (options.getenv) return options.getenv;
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

// Phases 1 and 2.
Status LoadMergedTree(const std::string& path, const LoadPipelineOptions& options, Node* root) {
  Getenv getenv = EnvOrDefault(options);
  std::error_code ec;
  std::string canonical = fs::weakly_canonical(path, ec).string();
  std::vector<OpenFile> stack = {{ec ? path : canonical, path}};
  TH_RETURN_IF_ERROR(LoadTree(path, nullptr, &stack, getenv, root));
  root->mark = {path, 1, 1};
  for (size_t i = 0; i < options.set_overrides.size(); ++i)
    TH_RETURN_IF_ERROR(ApplyOverride(options.set_overrides[i], static_cast<int>(i), getenv, root));
  return Ok();
}

}  // namespace

PipelineDocument::PipelineDocument(std::string path, std::unique_ptr<pipeline_tree::Node> root)
    : path_(std::move(path)), root_(std::move(root)) {}
PipelineDocument::PipelineDocument(PipelineDocument&&) noexcept = default;
PipelineDocument& PipelineDocument::operator=(PipelineDocument&&) noexcept = default;
PipelineDocument::~PipelineDocument() = default;

StatusOr<PipelineDocument> PipelineDocument::Read(const std::string& path,
                                                  const LoadPipelineOptions& options) {
  auto root = std::make_unique<Node>();
  TH_RETURN_IF_ERROR(LoadMergedTree(path, options, root.get()));
  return PipelineDocument(path, std::move(root));
}

StatusOr<std::vector<std::string>> PipelineDocument::PluginPaths() const {
  std::vector<std::string> paths;
  for (const Entry& e : root_->entries) {
    if (e.key != "plugin_paths") continue;
    TH_RETURN_IF_ERROR(ReadStringList(e.value, "'plugin_paths'", &paths));
    paths = ResolvePluginPaths(e.value, std::move(paths));
  }
  return paths;
}

StatusOr<std::vector<PythonPluginRef>> PipelineDocument::PythonPlugins() const {
  std::vector<PythonPluginRef> refs;
  for (const Entry& e : root_->entries) {
    if (e.key != "plugins" || e.value.kind != Node::Kind::kMap) continue;
    for (const Entry& plugin : e.value.entries) {
      if (plugin.value.kind != Node::Kind::kMap) continue;
      for (const Entry& key : plugin.value.entries) {
        if (key.key != "python") continue;
        auto ref = ReadPythonRef(plugin, key.value);
        if (!ref.ok()) return ref.status();
        refs.push_back(std::move(*ref));
      }
    }
  }
  return refs;
}

StatusOr<Pipeline> PipelineDocument::Validate(const std::vector<PluginDeclaration>& catalog) const {
  Pipeline p;
  p.source = path_;
  TH_RETURN_IF_ERROR(th::Validate(*root_, catalog, &p));
  return p;
}

StatusOr<Pipeline> LoadPipeline(const std::string& path,
                                const std::vector<PluginDeclaration>& catalog,
                                const LoadPipelineOptions& options) {
  auto document = PipelineDocument::Read(path, options);
  if (!document.ok()) return document.status();
  return document->Validate(catalog);
}

StatusOr<std::vector<std::string>> ReadPipelinePluginPaths(const std::string& path,
                                                           const LoadPipelineOptions& options) {
  auto document = PipelineDocument::Read(path, options);
  if (!document.ok()) return document.status();
  return document->PluginPaths();
}

Status CheckOutputFolders(const Pipeline& pipeline) {
  for (const OutputSpec& o : pipeline.outputs) {
    if (o.type == "terminal" || o.path.empty() || o.path == "-") continue;
    const fs::path folder = fs::path(o.path).parent_path();
    std::error_code ec;
    if (folder.empty() || fs::is_directory(folder, ec)) continue;
    return InvalidInput((o.where.empty() ? pipeline.source : o.where) + ": output " + o.type + " " +
                        Q(o.path) + ": folder " + Q(folder.string()) +
                        " does not exist (create it first; outputs are written into an existing "
                        "folder)");
  }
  return Ok();
}

}  // namespace th
