// The python-plugins module's entry: the only code of tracehound that calls
// the CPython API. Every call holds the GIL (PyGILState_Ensure), so plugins
// may run from the pipeline's worker threads; the plugins' run functions are
// ctypes callbacks, which take the GIL themselves.
#define PY_SSIZE_T_CLEAN
#include "core/plugin/python_module.h"

#include <Python.h>
#include <unistd.h>

#include <mutex>
#include <sstream>
#include <vector>

namespace {

constexpr size_t kTracebackLines = 4;

// Starts an interpreter unless the process runs one; the GIL is then
// released, to be taken per call. False with *error when it cannot start
// (no standard library, ...): a failure, not Py_FatalError's abort.
bool EnsureInterpreter(std::string* error) {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    if (Py_IsInitialized()) return;
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;  // SIGINT stays the host's
#ifdef TRACEHOUND_PYTHON_EXECUTABLE
    // The interpreter the build found (sys.executable, the paths derived from
    // it), not whichever python3 comes first on PATH.
    if (access(TRACEHOUND_PYTHON_EXECUTABLE, X_OK) == 0)
      PyConfig_SetBytesString(&config, &config.program_name, TRACEHOUND_PYTHON_EXECUTABLE);
#endif
    PyStatus status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
      failure = std::string("cannot start the Python interpreter: ") +
                (status.err_msg ? status.err_msg : "unknown error");
      return;
    }
    PyEval_SaveThread();
  });
  if (!failure.empty()) *error = failure;
  return failure.empty();
}

std::string Utf8(PyObject* s) {
  const char* text = s ? PyUnicode_AsUTF8(s) : nullptr;
  if (!text) PyErr_Clear();
  return text ? text : "";
}

// The pending exception as its traceback's last lines; clears it.
std::string TakeError() {
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (value && tb) PyException_SetTraceback(value, tb);
  std::string text;
  if (PyObject* module = PyImport_ImportModule("traceback")) {
    PyObject* lines = PyObject_CallMethod(module, "format_exception", "O", value ? value : Py_None);
    if (lines && PyList_Check(lines)) {
      for (Py_ssize_t i = 0; i < PyList_Size(lines); ++i) text += Utf8(PyList_GetItem(lines, i));
    }
    Py_XDECREF(lines);
    Py_DECREF(module);
  }
  PyErr_Clear();
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  std::vector<std::string> kept;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) kept.push_back(line);
  if (kept.empty()) return "unknown Python error";
  std::string out;
  for (size_t i = kept.size() > kTracebackLines ? kept.size() - kTracebackLines : 0;
       i < kept.size(); ++i)
    out += (out.empty() ? "" : "\n") + kept[i];
  return out;
}

PyObject* ImportPluginSupport(const std::string& package_dir, std::string* error) {
  PyObject* module = PyImport_ImportModule("tracehound.plugin");
  if (!module && !package_dir.empty()) {
    PyErr_Clear();
    PyObject* path = PySys_GetObject("path");  // borrowed
    PyObject* dir = PyUnicode_FromString(package_dir.c_str());
    if (path && dir) PyList_Append(path, dir);
    Py_XDECREF(dir);
    module = PyImport_ImportModule("tracehound.plugin");
  }
  if (!module) *error = "cannot import tracehound.plugin: " + TakeError();
  return module;
}

bool LoadLocked(const std::string& spec, const std::string& base_dir,
                const std::string& package_dir, const th_plugin_descriptor** descriptor,
                void** handle, std::string* error) {
  PyObject* module = ImportPluginSupport(package_dir, error);
  if (!module) return false;
  PyObject* bound = PyObject_CallMethod(module, "_load", "ss", spec.c_str(), base_dir.c_str());
  Py_DECREF(module);
  if (!bound) {
    *error = TakeError();
    return false;
  }
  PyObject* address = PyObject_GetAttrString(bound, "address");
  void* d = address ? PyLong_AsVoidPtr(address) : nullptr;
  Py_XDECREF(address);
  if (!d) {
    *error = PyErr_Occurred() ? TakeError() : "tracehound.plugin gave no descriptor";
    Py_DECREF(bound);
    return false;
  }
  *descriptor = static_cast<const th_plugin_descriptor*>(d);
  *handle = bound;
  return true;
}

bool Load(const std::string& spec, const std::string& base_dir, const std::string& package_dir,
          const th_plugin_descriptor** descriptor, void** handle, std::string* error) {
  if (!EnsureInterpreter(error)) return false;
  PyGILState_STATE gil = PyGILState_Ensure();
  bool ok = LoadLocked(spec, base_dir, package_dir, descriptor, handle, error);
  PyGILState_Release(gil);
  return ok;
}

// After the interpreter is finalized its objects are gone with it.
void Release(void* handle) {
  if (!handle || !Py_IsInitialized()) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(handle));
  PyGILState_Release(gil);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const th::PythonPluginApi* th_python_module() {
  static const th::PythonPluginApi api{&Load, &Release};
  return &api;
}
