#include "core/pipeline/pipeline_schema.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <type_traits>
#include <variant>

#include "core/graph/text_escape.h"
#include "core/pipeline/pipeline.h"

namespace th {
namespace {

// Pretty-printed JSON, two-space indent; the caller nests Begin/End calls.
class JsonWriter {
 public:
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }

  void Key(std::string_view key) {
    Separate();
    Quote(key);
    out_ += ": ";
    after_key_ = true;
  }
  void String(std::string_view s) {
    Separate();
    Quote(s);
  }
  void Int(int64_t v) { Raw(std::to_string(v)); }
  void Bool(bool b) { Raw(b ? "true" : "false"); }
  // Integral values print without a fraction; non-finite ones as null.
  void Number(double d) {
    if (!std::isfinite(d)) return Raw("null");
    if (d == std::trunc(d) && std::fabs(d) < 9e15) return Int(static_cast<int64_t>(d));
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
    Raw(std::string(buf, ec == std::errc() ? end : buf));
  }
  // A short list of strings, on one line.
  void StringArray(const std::vector<std::string>& items) {
    Separate();
    out_ += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out_ += ", ";
      Quote(items[i]);
    }
    out_ += ']';
  }
  void Raw(std::string_view text) {
    Separate();
    out_ += text;
  }

  std::string Take() { return std::move(out_) + "\n"; }

 private:
  void Open(char c) {
    Separate();
    out_ += c;
    first_.push_back(true);
  }
  void Close(char c) {
    bool empty = first_.back();
    first_.pop_back();
    if (!empty) NewLine();
    out_ += c;
  }
  // Before a value: a comma and a new line unless it follows its key.
  void Separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    NewLine();
  }
  void NewLine() {
    out_ += '\n';
    out_.append(2 * first_.size(), ' ');
  }
  void Quote(std::string_view s) { AppendJsonString(&out_, s); }

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

template <typename List>
std::vector<std::string> Strings(const List& list) {
  return std::vector<std::string>(list.begin(), list.end());
}

std::string_view JsonType(OptionType type) {
  switch (type) {
    case OptionType::kBool:
      return "boolean";
    case OptionType::kInt:
      return "integer";
    case OptionType::kDouble:
      return "number";
    case OptionType::kString:
      return "string";
  }
  return "string";
}

void WriteDefault(JsonWriter& w, const OptionDeclaration& o) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          w.Bool(v);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          if (o.type == OptionType::kDouble) {
            w.Number(static_cast<double>(v));
          } else {
            w.Int(v);
          }
        } else if constexpr (std::is_same_v<T, double>) {
          w.Number(v);
        } else {
          w.String(v);
        }
      },
      o.default_value);
}

void WriteOption(JsonWriter& w, const OptionDeclaration& o) {
  w.Key(o.name);
  w.BeginObject();
  w.Key("type");
  w.String(JsonType(o.type));
  if (!o.doc.empty()) {
    w.Key("description");
    w.String(o.doc);
  }
  w.Key("default");
  WriteDefault(w, o);
  if (o.min) {
    w.Key("minimum");
    w.Number(*o.min);
  }
  if (o.max) {
    w.Key("maximum");
    w.Number(*o.max);
  }
  if (!o.choices.empty()) {
    w.Key("enum");
    w.StringArray(o.choices);
  }
  w.EndObject();
}

void WritePlugin(JsonWriter& w, const PluginDeclaration& d) {
  w.Key(d.id);
  w.BeginObject();
  if (!d.summary.empty()) {
    w.Key("description");
    w.String(d.summary);
  }
  w.Key("type");
  w.StringArray({"object", "null"});
  w.Key("additionalProperties");
  w.Bool(false);
  w.Key("properties");
  w.BeginObject();
  w.Key("enabled");
  w.BeginObject();
  w.Key("type");
  w.String("boolean");
  w.Key("description");
  w.String("run this plugin (a plugin named in the pipeline runs unless this is false)");
  w.Key("default");
  w.Bool(true);
  w.EndObject();
  w.Key("severity");
  w.BeginObject();
  w.Key("$ref");
  w.String("#/$defs/severity");
  w.Key("description");
  w.String("override the severity of this plugin's findings");
  w.EndObject();
  for (const OptionDeclaration& o : d.options) WriteOption(w, o);
  w.EndObject();
  w.EndObject();
}

// Any id not in the catalog: a Python plugin, whose options are known only
// once its class is imported.
void WritePythonPlugin(JsonWriter& w) {
  w.BeginObject();
  w.Key("type");
  w.String("object");
  w.Key("required");
  w.StringArray({"python"});
  w.Key("properties");
  w.BeginObject();
  w.Key("python");
  w.BeginObject();
  w.Key("type");
  w.String("string");
  w.Key("description");
  w.String("a Python plugin's class: 'module:Class' or 'file.py:Class' (docs/python.md)");
  w.EndObject();
  w.EndObject();
  w.EndObject();
}

}  // namespace

std::string PipelineJsonSchema(const std::vector<PluginDeclaration>& catalog) {
  std::vector<const PluginDeclaration*> plugins;
  for (const PluginDeclaration& d : catalog) plugins.push_back(&d);
  std::stable_sort(plugins.begin(), plugins.end(),
                   [](const auto* a, const auto* b) { return a->id < b->id; });

  JsonWriter w;
  w.BeginObject();
  w.Key("$schema");
  w.String("https://json-schema.org/draft/2020-12/schema");
  w.Key("title");
  w.String("tracehound pipeline");
  w.Key("description");
  w.String(
      "A tracehound analysis pipeline. Scalars may hold ${env:VAR} or ${env:VAR:-default}, "
      "substituted before typing.");
  w.Key("type");
  w.String("object");
  w.Key("required");
  w.StringArray({"version"});
  w.Key("additionalProperties");
  w.Bool(false);

  w.Key("properties");
  w.BeginObject();
  w.Key("version");
  w.BeginObject();
  w.Key("description");
  w.String("pipeline format version");
  w.Key("const");
  w.Int(1);
  w.EndObject();
  w.Key("include");
  w.BeginObject();
  w.Key("description");
  w.String("files merged under this one (relative to it); this file wins");
  w.Key("$ref");
  w.String("#/$defs/string_or_list");
  w.EndObject();
  w.Key("inputs");
  w.BeginObject();
  w.Key("description");
  w.String("trace files, directories, globs, archives or s3:// URLs");
  w.Key("$ref");
  w.String("#/$defs/string_or_list");
  w.EndObject();
  w.Key("baseline");
  w.BeginObject();
  w.Key("description");
  w.String(
      "the run the inputs are compared with, named as inputs are; read by plugins that compare "
      "input groups (trace-diff)");
  w.Key("$ref");
  w.String("#/$defs/string_or_list");
  w.EndObject();

  w.Key("execution");
  w.BeginObject();
  w.Key("type");
  w.StringArray({"object", "null"});
  w.Key("additionalProperties");
  w.Bool(false);
  w.Key("properties");
  w.BeginObject();
  w.Key("backend");
  w.BeginObject();
  w.Key("description");
  w.String("compute backend for aggregations");
  w.Key("enum");
  w.StringArray(Strings(kPipelineBackends));
  w.Key("default");
  w.String("auto");
  w.EndObject();
  w.Key("threads");
  w.BeginObject();
  w.Key("description");
  w.String("worker threads (0 = all cores)");
  w.Key("type");
  w.String("integer");
  w.Key("minimum");
  w.Int(0);
  w.Key("default");
  w.Int(0);
  w.EndObject();
  w.EndObject();
  w.EndObject();

  w.Key("plugin_paths");
  w.BeginObject();
  w.Key("description");
  w.String("directories searched for plugins (relative to this file)");
  w.Key("$ref");
  w.String("#/$defs/string_or_list");
  w.EndObject();

  w.Key("plugins");
  w.BeginObject();
  w.Key("description");
  w.String("plugin id -> options; run in dependency order (the tables they read and publish)");
  w.Key("type");
  w.StringArray({"object", "null"});
  w.Key("additionalProperties");
  WritePythonPlugin(w);
  w.Key("properties");
  w.BeginObject();
  for (const PluginDeclaration* d : plugins) WritePlugin(w, *d);
  w.EndObject();
  w.EndObject();

  w.Key("outputs");
  w.BeginObject();
  w.Key("type");
  w.StringArray({"array", "null"});
  w.Key("items");
  w.BeginObject();
  w.Key("type");
  w.String("object");
  w.Key("additionalProperties");
  w.Bool(false);
  w.Key("required");
  w.StringArray({"type"});
  w.Key("properties");
  w.BeginObject();
  w.Key("type");
  w.BeginObject();
  w.Key("enum");
  w.StringArray(Strings(kPipelineOutputTypes));
  w.EndObject();
  w.Key("path");
  w.BeginObject();
  w.Key("type");
  w.String("string");
  w.Key("description");
  w.String("file to write (required except for terminal)");
  w.EndObject();
  w.Key("min_severity");
  w.BeginObject();
  w.Key("description");
  w.String("show findings at this severity or worse (default: all)");
  w.Key("$ref");
  w.String("#/$defs/severity");
  w.EndObject();
  w.Key("max_findings");
  w.BeginObject();
  w.Key("type");
  w.String("integer");
  w.Key("minimum");
  w.Int(0);
  w.Key("description");
  w.String("show at most this many causes (groups of findings), the worst first");
  w.EndObject();
  w.EndObject();
  w.EndObject();
  w.EndObject();

  w.Key("kernel_classes");
  w.BeginObject();
  w.Key("description");
  w.String(
      "kernel class rules matched before the built-in ones (tracehound kernel-classes): a GPU "
      "activity whose name matches is communication, computation or memory traffic");
  w.Key("type");
  w.StringArray({"array", "null"});
  w.Key("items");
  w.BeginObject();
  w.Key("type");
  w.String("object");
  w.Key("additionalProperties");
  w.Bool(false);
  w.Key("required");
  w.StringArray({"match", "class"});
  w.Key("properties");
  w.BeginObject();
  w.Key("match");
  w.BeginObject();
  w.Key("type");
  w.String("string");
  w.Key("minLength");
  w.Int(1);
  w.Key("description");
  w.String("glob over the whole name: * is any run of characters, the rest literal");
  w.EndObject();
  w.Key("class");
  w.BeginObject();
  w.Key("enum");
  w.StringArray(Strings(kPipelineKernelClasses));
  w.EndObject();
  w.Key("source");
  w.BeginObject();
  w.Key("type");
  w.String("string");
  w.Key("description");
  w.String("where the rule comes from (default: this file and line)");
  w.EndObject();
  w.Key("ignore_case");
  w.BeginObject();
  w.Key("type");
  w.String("boolean");
  w.Key("default");
  w.Bool(false);
  w.EndObject();
  w.EndObject();
  w.EndObject();
  w.EndObject();

  w.Key("fail_on");
  w.BeginObject();
  w.Key("description");
  w.String("exit with status 3 when a finding reaches this severity");
  w.Key("$ref");
  w.String("#/$defs/severity");
  w.EndObject();
  w.EndObject();  // properties

  w.Key("$defs");
  w.BeginObject();
  w.Key("severity");
  w.BeginObject();
  w.Key("enum");
  w.StringArray(Strings(kPipelineSeverities));
  w.EndObject();
  w.Key("string_or_list");
  w.BeginObject();
  w.Key("oneOf");
  w.BeginArray();
  w.BeginObject();
  w.Key("type");
  w.String("string");
  w.EndObject();
  w.BeginObject();
  w.Key("type");
  w.String("array");
  w.Key("items");
  w.BeginObject();
  w.Key("type");
  w.String("string");
  w.EndObject();
  w.EndObject();
  w.BeginObject();
  w.Key("type");
  w.String("null");
  w.EndObject();
  w.EndArray();
  w.EndObject();
  w.EndObject();  // $defs

  w.EndObject();
  return w.Take();
}

}  // namespace th
