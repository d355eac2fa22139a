#include "core/pipeline/pipeline.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <type_traits>

namespace th {
namespace {

// `${` would be substituted again on reload; `$${` reads back as `${`.
std::string EscapeEnv(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "${") == 0) out += '$';
    out += s[i];
  }
  return out;
}

// Shortest text that reads back as the same double, and as a double (not an int).
std::string DoubleText(double d) {
  if (std::isnan(d)) return ".nan";
  if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// Strings are always quoted so that "4" or "true" stay strings on reload.
void EmitString(YAML::Emitter& out, const std::string& s) {
  out << YAML::DoubleQuoted << EscapeEnv(s);
}

void EmitOption(YAML::Emitter& out, const OptionValue& value) {
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          out << (v ? "true" : "false");
        } else if constexpr (std::is_same_v<T, int64_t>) {
          out << std::to_string(v);
        } else if constexpr (std::is_same_v<T, double>) {
          out << DoubleText(v);
        } else {
          EmitString(out, v);
        }
      },
      value);
}

void EmitStringList(YAML::Emitter& out, const std::vector<std::string>& list) {
  if (list.empty()) out << YAML::Flow;
  out << YAML::BeginSeq;
  for (const std::string& s : list) EmitString(out, s);
  out << YAML::EndSeq;
}

}  // namespace

std::string FormatMark(const YamlMark& mark) {
  return mark.file + ":" + std::to_string(mark.line) + ":" + std::to_string(mark.column);
}

std::string_view OptionTypeName(OptionType type) {
  switch (type) {
    case OptionType::kBool:
      return "bool";
    case OptionType::kInt:
      return "int";
    case OptionType::kDouble:
      return "double";
    case OptionType::kString:
      return "string";
  }
  return "string";
}

std::string DumpEffectivePipeline(const Pipeline& p) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << std::to_string(p.version);
  out << YAML::Key << "inputs" << YAML::Value;
  EmitStringList(out, p.inputs);
  if (!p.baseline.empty()) {
    out << YAML::Key << "baseline" << YAML::Value;
    EmitStringList(out, p.baseline);
  }
  out << YAML::Key << "execution" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "backend" << YAML::Value << p.backend;
  out << YAML::Key << "threads" << YAML::Value << std::to_string(p.threads);
  out << YAML::EndMap;
  out << YAML::Key << "plugin_paths" << YAML::Value;
  EmitStringList(out, p.plugin_paths);
  out << YAML::Key << "plugins" << YAML::Value;
  if (p.plugins.empty()) out << YAML::Flow;
  out << YAML::BeginMap;
  for (const PluginStep& step : p.plugins) {
    out << YAML::Key << step.id << YAML::Value << YAML::BeginMap;
    if (!step.python.empty()) out << YAML::Key << "python" << YAML::Value << step.python;
    out << YAML::Key << "enabled" << YAML::Value << (step.enabled ? "true" : "false");
    if (step.severity)
      out << YAML::Key << "severity" << YAML::Value << std::string(SeverityLabel(*step.severity));
    for (const auto& [name, value] : step.options) {
      out << YAML::Key << name << YAML::Value;
      EmitOption(out, value);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "outputs" << YAML::Value;
  if (p.outputs.empty()) out << YAML::Flow;
  out << YAML::BeginSeq;
  for (const OutputSpec& o : p.outputs) {
    out << YAML::BeginMap << YAML::Key << "type" << YAML::Value << o.type;
    if (!o.path.empty()) {
      out << YAML::Key << "path" << YAML::Value;
      EmitString(out, o.path);
    }
    if (o.min_severity)
      out << YAML::Key << "min_severity" << YAML::Value
          << std::string(SeverityLabel(*o.min_severity));
    if (o.max_findings) out << YAML::Key << "max_findings" << YAML::Value << *o.max_findings;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "kernel_classes" << YAML::Value;
  if (p.kernel_classes.empty()) out << YAML::Flow;
  out << YAML::BeginSeq;
  for (const KernelClassRule& r : p.kernel_classes) {
    out << YAML::BeginMap << YAML::Key << "match" << YAML::Value;
    EmitString(out, r.match);
    out << YAML::Key << "class" << YAML::Value << std::string(KernelClassName(r.klass));
    out << YAML::Key << "source" << YAML::Value;
    EmitString(out, r.source);
    out << YAML::Key << "ignore_case" << YAML::Value << (r.ignore_case ? "true" : "false");
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (p.fail_on)
    out << YAML::Key << "fail_on" << YAML::Value << std::string(SeverityLabel(*p.fail_on));
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace th
