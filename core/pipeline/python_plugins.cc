#include "core/pipeline/python_plugins.h"

#include "core/plugin/python_plugin.h"

namespace th {

Status LoadPipelinePythonPlugins(const PipelineDocument& document, PluginRegistry* registry) {
  auto refs = document.PythonPlugins();
  if (!refs.ok()) return refs.status();
  for (const PythonPluginRef& ref : *refs) {
    const std::string what = ref.where + ": python plugin '" + ref.id + "' (" + ref.spec + ")";
    auto plugin = LoadPythonPlugin(ref.spec, ref.base_dir);
    if (!plugin.ok()) return InvalidInput(what + ": " + plugin.status().message());
    if ((*plugin)->declaration.id != ref.id)
      return InvalidInput(what + ": the class declares id '" + (*plugin)->declaration.id +
                          "', not the plugin's key '" + ref.id + "'");
    Status added = registry->Add(std::move(*plugin));
    if (!added.ok()) return InvalidInput(what + ": " + added.message());
  }
  return Ok();
}

}  // namespace th
