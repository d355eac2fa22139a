// LoadPipeline: YAML pipeline file -> validated Pipeline.
//
// Phase 1: read the file and, depth first, every file it includes (paths
//          relative to the including file); substitute ${env:VAR} and
//          ${env:VAR:-default} in every scalar value; merge the included files
//          under the including one (maps merge key by key, the includer wins;
//          anything else is replaced whole).
// Phase 2: apply the --set overrides to the merged tree.
// Phase 3: validate the whole tree against the plugin catalog, fill defaults
//          and order the plugins by the tables they read and publish.
//
// Nothing runs before all three phases succeed. A failure is the FIRST error
// in file order, as one line "FILE:LINE:COLUMN: what" (1-based); errors about
// the plan as a whole (a table no enabled plugin publishes, a dependency
// cycle) come only once the file is otherwise valid, at the plugin's key.
// An override's errors read "--set:N:COLUMN: what", N its position (1-based).
//
// Scalars are typed as YAML 1.2 core: a plain `4` is an int, `true` a bool,
// `"4"` a string. A scalar that held an ${env:...} reference is typed from its
// substituted text even when quoted, so `threads: "${env:N:-4}"` is an int.
// `$${` writes a literal `${`.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/pipeline/pipeline.h"
#include "core/plugin/plugin_declaration.h"

namespace th {

struct LoadPipelineOptions {
  // "PATH=VALUE" with PATH dot-separated keys (a number indexes an existing
  // list item), e.g. "plugins.stragglers.min_ranks=4"; VALUE is parsed as YAML
  // ("4" is an int, "true" a bool, "[a, b]" a list). Applied in order, after
  // includes; missing keys are added (an option of a plugin the file does not
  // name adds that plugin), then validated like the file.
  std::vector<std::string> set_overrides;
  // Environment lookup for ${env:...}; empty = ::getenv.
  std::function<std::optional<std::string>(const std::string&)> getenv;
};

// A plugin the pipeline names with `python: SPEC` (docs/python.md): the
// class to import before the catalog is complete.
struct PythonPluginRef {
  std::string id;        // the plugin's key under `plugins:`
  std::string spec;      // "module:Class", or "file.py:Class" with the file resolved
  std::string base_dir;  // the folder of the file that names it ("" for --set)
  std::string where;     // FILE:LINE:COLUMN of the `python:` value
};

namespace pipeline_tree {
struct Node;
}

// A pipeline file after phases 1 and 2, read once: what the plugin search
// path needs (its plugin_paths) and, once those plugins are loaded, phase 3
// against their catalog, without reading or parsing the YAML again.
class PipelineDocument {
 public:
  static StatusOr<PipelineDocument> Read(const std::string& path,
                                         const LoadPipelineOptions& options = {});
  // The `plugin_paths`, relative ones resolved against the directory of the
  // file that names them.
  StatusOr<std::vector<std::string>> PluginPaths() const;
  // The Python plugins it names, in file order.
  StatusOr<std::vector<PythonPluginRef>> PythonPlugins() const;
  // Phase 3: the validated, ordered pipeline.
  StatusOr<Pipeline> Validate(const std::vector<PluginDeclaration>& catalog) const;

  PipelineDocument(PipelineDocument&&) noexcept;
  PipelineDocument& operator=(PipelineDocument&&) noexcept;
  ~PipelineDocument();

 private:
  PipelineDocument(std::string path, std::unique_ptr<pipeline_tree::Node> root);
  std::string path_;
  std::unique_ptr<pipeline_tree::Node> root_;
};

// PipelineDocument::Read + Validate.
StatusOr<Pipeline> LoadPipeline(const std::string& path,
                                const std::vector<PluginDeclaration>& catalog,
                                const LoadPipelineOptions& options = {});

// Whether every output can be written: the folder of each output path exists
// (outputs are never written into a folder they would have to create). `run`
// and `validate` check it before reading any trace.
Status CheckOutputFolders(const Pipeline& pipeline);

// PipelineDocument::Read + PluginPaths.
StatusOr<std::vector<std::string>> ReadPipelinePluginPaths(const std::string& path,
                                                           const LoadPipelineOptions& options = {});

}  // namespace th
