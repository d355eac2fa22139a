// load() and _TraceSet: a TraceSet's traces, their catalog tables as numpy
// views and their trust tables.
#include <pybind11/stl.h>
#include <tbb/global_control.h>

#include <memory>
#include <optional>

#include "core/graph/event_kind.h"
#include "python/src/bindings.h"
#include "python/src/column_arrays.h"
#include "python/src/loaded_traces.h"
#include "python/src/status_error.h"

namespace th::python {

namespace py = pybind11;

namespace {

py::list TrustRows(const TrustTable& trust) {
  py::list out;
  for (const TrustEntry& e : trust.Entries()) {
    py::dict row;
    row["id"] = Text(e.name);
    row["what"] = Text(e.what);
    row["severity"] = Text(SeverityName(e.severity));
    row["count"] = e.count;
    row["example"] = Text(e.example);
    out.append(row);
  }
  return out;
}

py::list Devices(const TraceInfo& info) {
  py::list out;
  for (const DeviceInfo& d : info.devices) {
    py::dict row;
    row["id"] = d.id;
    row["name"] = Text(d.name);
    row["total_global_mem"] = d.total_global_mem;
    row["compute_major"] = d.compute_major;
    row["compute_minor"] = d.compute_minor;
    row["num_sms"] = d.num_sms;
    out.append(row);
  }
  return out;
}

template <typename T>
py::object Optional(const std::optional<T>& v) {
  return v ? py::cast(*v) : py::none();
}

py::dict Info(const Trace& trace) {
  const TraceInfo& info = trace.info;
  py::dict out;
  out["path"] = Text(info.path);
  out["format"] = Text(info.format);
  out["rank"] = info.rank;
  out["rank_source"] = Text(info.rank_source);
  out["devices"] = Devices(info);
  out["base_time_ns"] = Optional(info.base_time_ns);
  out["schema_version"] = Optional(info.schema_version);
  if (info.distributed) {
    py::dict d;
    d["rank"] = Optional(info.distributed->rank);
    d["world_size"] = Optional(info.distributed->world_size);
    d["backend"] = Text(info.distributed->backend);
    d["nccl_version"] = Text(info.distributed->nccl_version);
    out["distributed"] = d;
  } else {
    out["distributed"] = py::none();
  }
  py::dict metadata;
  for (const auto& [key, json] : info.metadata) metadata[Text(key)] = Text(json);
  out["metadata"] = metadata;
  out["file_bytes"] = info.file_bytes;
  out["text_bytes"] = info.text_bytes;
  out["import_seconds"] = info.import_seconds;
  out["graph_bytes"] = trace.graph.bytes();
  out["string_bytes"] = trace.graph.strings.bytes();
  return out;
}

std::shared_ptr<LoadedTraces> Load(std::vector<std::string> inputs, bool keep_truncated,
                                   int64_t chunk_kib, int64_t threads) {
  if (inputs.empty()) throw py::value_error("load: no input given");
  if (chunk_kib <= 0) throw py::value_error("load: chunk_kib must be positive");
  LoadOptions options;
  options.import.keep_truncated = keep_truncated;
  options.import.chunk_bytes = static_cast<size_t>(chunk_kib) << 10;
  StatusOr<std::shared_ptr<LoadedTraces>> loaded = Status(Internal("not loaded"));
  {
    py::gil_scoped_release released;
    std::unique_ptr<tbb::global_control> bound;
    if (threads > 0)
      bound = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                    static_cast<size_t>(threads));
    loaded = LoadedTraces::Load(std::move(inputs), options);
  }
  return ValueOrThrow(std::move(loaded));
}

size_t Checked(const LoadedTraces& t, size_t i) {
  if (i >= t.size()) throw py::index_error("no trace " + std::to_string(i));
  return i;
}

py::list KindNames() {
  py::list out;
  for (int k = 0; k < static_cast<int>(EventKind::kCount); ++k)
    out.append(Text(EventKindName(static_cast<EventKind>(k))));
  return out;
}

}  // namespace

void BindTraceSet(py::module_& m) {
  py::class_<LoadedTraces, std::shared_ptr<LoadedTraces>> c(
      m, "_TraceSet", "The traces of one load(): owns every event graph the frames view");
  c.def("__len__", &LoadedTraces::size)
      .def_property_readonly("inputs", &LoadedTraces::inputs)
      .def(
          "info", [](const LoadedTraces& t, size_t i) { return Info(t.trace(Checked(t, i))); },
          "What trace i is: path, format, rank, devices, bytes read, ...")
      .def(
          "table",
          [](std::shared_ptr<LoadedTraces> t, size_t i, const std::string& name) -> py::object {
            const CatalogTable* table = t->Find(Checked(*t, i), name);
            if (!table) return py::none();
            py::object owner = py::cast(t);
            return py::make_tuple(CatalogArrays(*table, owner), SchemaColumns(*table->schema));
          },
          "({column: array}, [(name, type, unit, doc)]) of catalog table `name`, None if none")
      .def_static("table_names", &LoadedTraces::TableNames, "The catalog's table names")
      .def(
          "strings",
          [](const LoadedTraces& t, size_t i) {
            return PoolStrings(t.trace(Checked(t, i)).graph.strings);
          },
          "Trace i's string pool, id order")
      .def(
          "trust",
          [](const LoadedTraces& t, size_t i) { return TrustRows(t.trace(Checked(t, i)).trust); },
          "Trace i's trust table rows")
      .def(
          "set_trust", [](const LoadedTraces& t) { return TrustRows(t.set().trust); },
          "The set's own trust rows (inputs skipped, duplicate ranks)");
  m.def("load", &Load, py::arg("inputs"), py::arg("keep_truncated") = false,
        py::arg("chunk_kib") = 1024, py::arg("threads") = 0,
        "Reads traces (files, folders, globs, archives) into a _TraceSet");
  m.def("event_kind_names", &KindNames, "EventKind names, by value");
}

}  // namespace th::python
