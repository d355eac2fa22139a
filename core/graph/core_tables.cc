#include "core/graph/core_tables.h"

#include <stdexcept>

namespace th {

namespace {

using T = ColumnType;

TableSchema Table(std::string name, std::string doc, std::vector<ColumnSchema> columns) {
  return {std::move(name), std::move(doc), std::move(columns), ""};
}

// Kineto record_shapes.
TableSchema OpInputsSchema() {
  return Table(
      "op_inputs",
      "Kineto record_shapes: events with args \"Input Dims\", \"Input type\" and/or "
      "\"Concrete Inputs\" (CPU ops), event order",
      {{"event", T::kU32, "", "event row"},
       {"input_dims", T::kStringId, "",
        "the Input Dims JSON without whitespace, e.g. [[4096,4096],[4096,4096]]; empty if "
        "absent"},
       {"input_types", T::kStringId, "",
        "the Input type JSON without whitespace, e.g. [\"c10::BFloat16\",\"float\"]; "
        "empty if absent"},
       {"concrete_inputs", T::kStringId, "",
        "the Concrete Inputs JSON without whitespace (scalar argument values as text, \"\" "
        "for tensors), e.g. [\"\",\"\",\"[14, 14]\",\"1\"]; empty if absent"}});
}

// XProf captures: the HLO modules and their instruction graph.
void AddHloSchemas(std::vector<TableSchema>* out) {
  std::vector<TableSchema>& s = *out;
  s.push_back(Table("hlo_modules", "XProf captures: HLO modules",
                    {{"name", T::kStringId, "", "module name"},
                     {"id", T::kI64, "", "HloModuleProto.id (= program_id on GPU)"}}));
  s.push_back(
      Table("hlo_instructions", "XProf captures: the instructions of all modules, numbered flat",
            {{"module", T::kU32, "", "row of hlo_modules"},
             {"name", T::kStringId, "", "e.g. fusion.3"},
             {"opcode", T::kStringId, "", "e.g. fusion"},
             {"shape", T::kStringId, "", "HLO text with layout, e.g. f32[8,16]{1,0}"},
             {"op_name", T::kStringId, "", "metadata op_name"},
             {"source_file", T::kStringId, "", "metadata source file"},
             {"source_line", T::kI32, "", "0 when unset"},
             {"caller", T::kU32, "", "fusion/call instruction holding this one, 0xFFFFFFFF at top"},
             {"custom_call_target", T::kStringId, "", "empty unless custom-call"},
             {"fusion_kind", T::kStringId, "", "kLoop, kInput, kOutput, kCustom or empty"},
             {"computation", T::kStringId, "", "computation name"},
             {"parameter_number", T::kI32, "", "-1 unless a parameter"},
             {"tuple_index", T::kI32, "", "-1 unless a get-tuple-element"},
             {"in_entry", T::kU8, "", "1 in the module's entry computation"}}));
  s.push_back(Table(
      "hlo_compute_dims",
      "XProf captures: per instruction (row i = hlo_instructions row i), the dimension facts "
      "of dots and convolutions, in HLO text",
      {{"dot_dims", T::kStringId, "",
        "e.g. lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
        "rhs_contracting_dims={1}; from dot_dimension_numbers, or the backend_config of a "
        "__cublas$ GEMM custom-call; empty when none"},
       {"window", T::kStringId, "",
        "e.g. size=3x3 stride=2x2 pad=1_1x1_1 (lhs_dilate, rhs_dilate, rhs_reversal when set); "
        "empty when none"},
       {"dim_labels", T::kStringId, "",
        "convolution dimension numbers, e.g. b01f_01io->b01f; empty when none"},
       {"feature_group_count", T::kI64, "", "1 unless a grouped convolution"},
       {"batch_group_count", T::kI64, "", "1 unless a batch-grouped convolution"},
       {"custom_call_config", T::kStringId, "",
        "the backend_config of TransformerEngine fused-attention custom-calls (te_fused_attn_*: "
        "heads, batch, sequence lengths, head dims, mask type); empty for every other "
        "instruction"}}));
  s.push_back(Table("hlo_operand_offsets",
                    "per instruction, its first row of hlo_operands (one more row at the end)",
                    {{"first", T::kU32, "", "row of hlo_operands"}}));
  s.push_back(Table("hlo_operands", "operands of each instruction (see hlo_operand_offsets)",
                    {{"instruction", T::kU32, "", "row of hlo_instructions"}}));
  s.push_back(Table("hlo_user_offsets",
                    "per instruction, its first row of hlo_users (one more row at the end)",
                    {{"first", T::kU32, "", "row of hlo_users"}}));
  s.push_back(Table("hlo_users", "users of each instruction (see hlo_user_offsets)",
                    {{"instruction", T::kU32, "", "row of hlo_instructions"}}));
}

std::vector<TableSchema> MakeSchemas() {
  std::vector<TableSchema> s;
  s.push_back(
      Table("events", "every event of the trace, in file order",
            {{"ts", T::kI64, "ns", "start on the trace's clock"},
             {"dur", T::kI64, "ns", "duration; 0 for instants"},
             {"name", T::kStringId, "", "event name"},
             {"cat", T::kStringId, "", "category as written"},
             {"track", T::kU32, "", "row of tracks"},
             {"parent", T::kU32, "", "enclosing event on the same track, 0xFFFFFFFF at top"},
             {"depth", T::kU16, "", "nesting depth on the track, 0 at top"},
             {"kind", T::kU8, "", "TH_EVENT_*"},
             {"args_row", T::kU32, "",
              "row of gpu_args (GPU activity, syncs), memory_args (allocator events) or "
              "op_inputs (other kinds), 0xFFFFFFFF if none"}}));
  s.push_back(Table("tracks", "timelines: a (pid, tid) of the file",
                    {{"kind", T::kU32, "", "TH_TRACK_*"},
                     {"pid", T::kI64, "", "process id (0 when a string)"},
                     {"tid", T::kI64, "", "thread id (0 when a string)"},
                     {"pid_string", T::kStringId, "", "the pid when it was a string"},
                     {"tid_string", T::kStringId, "", "the tid when it was a string"},
                     {"process_name", T::kStringId, "", "process_name metadata"},
                     {"thread_name", T::kStringId, "", "thread_name metadata"},
                     {"device", T::kI32, "", "accelerator of a GPU stream track, -1 otherwise"},
                     {"stream", T::kI64, "", "stream of a GPU stream track, -1 otherwise"}}));
  s.push_back(Table("edges", "launch -> GPU activity, and other flows",
                    {{"src", T::kU32, "", "event row"},
                     {"dst", T::kU32, "", "event row"},
                     {"kind", T::kU8, "", "TH_EDGE_*"}}));
  s.push_back(Table("profiler_steps", "ProfilerStep#N windows on the host, by start",
                    {{"number", T::kI64, "", "N of ProfilerStep#N"},
                     {"event", T::kU32, "", "the step's event row"},
                     {"ts", T::kI64, "ns", "start"},
                     {"dur", T::kI64, "ns", "duration"}}));
  s.push_back(
      Table("gpu_args", "kernels, memcpy, memset and syncs: one row per event",
            {{"event", T::kU32, "", "event row"},
             {"device", T::kI32, "", "args.device, -1 if absent"},
             {"stream", T::kI64, "", "args.stream, -1 if absent"},
             {"bytes", T::kI64, "bytes", "memcpy/memset bytes, -1 if absent"},
             {"grid_x", T::kI32, "", "grid size, 0 if absent"},
             {"grid_y", T::kI32, "", "grid size, 0 if absent"},
             {"grid_z", T::kI32, "", "grid size, 0 if absent"},
             {"block_x", T::kI32, "", "block size, 0 if absent"},
             {"block_y", T::kI32, "", "block size, 0 if absent"},
             {"block_z", T::kI32, "", "block size, 0 if absent"},
             {"registers", T::kI32, "", "registers per thread, 0 if absent"},
             {"shared_mem", T::kI32, "bytes", "shared memory per block, 0 if absent"},
             {"occupancy", T::kF32, "%", "est. achieved occupancy as recorded, -1 if absent"}}));
  s.push_back(Table("gpu_hlo",
                    "XProf captures: the HLO instruction of each gpu_args row (no rows "
                    "when the trace was not attributed)",
                    {{"instruction", T::kU32, "", "row of hlo_instructions, 0xFFFFFFFF when none"},
                     {"match", T::kU8, "", "TH_HLO_MATCH_*"}}));
  s.push_back(Table("collective_args", "NCCL/RCCL metadata Kineto copies onto kernels, event order",
                    {{"event", T::kU32, "", "event row"},
                     {"name", T::kStringId, "", "collective, e.g. allreduce"},
                     {"dtype", T::kStringId, "", "e.g. Float"},
                     {"group", T::kStringId, "", "process group name"},
                     {"in_nelems", T::kI64, "", "input elements"},
                     {"out_nelems", T::kI64, "", "output elements"},
                     {"group_size", T::kI32, "", "ranks in the group"}}));
  s.push_back(Table("memory_args", "allocator events ([memory], [OutOfMemory]), event order",
                    {{"event", T::kU32, "", "event row"},
                     {"device_type", T::kI8, "", "c10 DeviceType: 0 CPU, 1 CUDA, 6 HIP, ..."},
                     {"device_id", T::kI16, "", "-1 if absent"},
                     {"addr", T::kI64, "", "0 if absent"},
                     {"bytes", T::kI64, "bytes", "negative = free"},
                     {"total_allocated", T::kI64, "bytes", "after the event, INT64_MIN if absent"},
                     {"total_reserved", T::kI64, "bytes",
                      "reserved by the caching allocator, INT64_MIN if absent"}}));
  s.push_back(OpInputsSchema());
  s.push_back(Table("counters", "counter (C) events: one row per series value",
                    {{"event", T::kU32, "", "event row"},
                     {"series", T::kStringId, "", "the args key"},
                     {"value", T::kF64, "", "the value as written"}}));
  s.push_back(Table("devices", "accelerators as the trace describes them",
                    {{"id", T::kI32, "", "device index"},
                     {"name", T::kString, "", "e.g. NVIDIA H100"},
                     {"total_global_mem", T::kI64, "bytes", "0 if unknown"},
                     {"compute_major", T::kI32, "", "0 if unknown"},
                     {"compute_minor", T::kI32, "", "0 if unknown"},
                     {"num_sms", T::kI32, "", "streaming multiprocessors / compute units"}}));
  AddHloSchemas(&s);
  s.push_back(
      Table("name_classes",
            "per string id, the kernel class rule that decides a GPU activity of that "
            "name (docs/kernel-classes.md)",
            {{"rule", T::kU32, "", "row of class_rules (tracehound set), TH_NO_RULE if none"},
             {"hta_rule", T::kU32, "", "row of class_rules (HTA set), TH_NO_RULE if none"}}));
  s.push_back(Table("class_rules",
                    "the pipeline's kernel class table: its rules, then the built-ins",
                    {{"rule_set", T::kU32, "", "TH_RULES_*"},
                     {"class", T::kU32, "", "TH_CLASS_*"},
                     {"ignore_case", T::kU32, "", "1: ASCII letters match either case"},
                     {"match", T::kString, "", "glob over the whole name"},
                     {"source", T::kString, "", "where the rule comes from"}}));
  s.push_back(
      Table("graph_capture", "CUDA/HIP graph capture seen in the trace: one row",
            {{"dominates", T::kU8, "", "1: the trace records capture, not steady-state execution"},
             {"hip", T::kU8, "", "1: HIP graphs"},
             {"begin_calls", T::kI64, "", "*StreamBeginCapture* calls"},
             {"end_calls", T::kI64, "", "*StreamEndCapture* calls"},
             {"instantiations", T::kI64, "", "*GraphInstantiate* calls"},
             {"graph_launches", T::kI64, "", "*GraphLaunch* calls"},
             {"captured_launches", T::kI64, "", "launch calls whose work never ran"},
             {"executed_launches", T::kI64, "", "launch calls whose work ran"},
             {"kernels", T::kI64, "", "kernels that ran"},
             {"first_ts", T::kI64, "ns", "first capture region's start"},
             {"last_end", T::kI64, "ns", "last capture region's end"}}));
  s.push_back(Table("event_launches",
                    "the launched events by row, each with the host call that launched it (its "
                    "launch edge; the last one when several)",
                    {{"event", T::kU32, "", "launched event row, ascending"},
                     {"launch", T::kU32, "", "event row of its launch call"}}));
  s.push_back(
      Table("gpu_activity",
            "the GPU activity (kernels, memcpy, memset) by row: a plugin visits a "
            "capture's few GPU events without scanning its host events",
            {{"event", T::kU32, "", "event row of a kernel, memcpy or memset, ascending"}}));
  s.push_back(
      Table("track_events",
            "per track (row of tracks), where its events lie in time order: slots "
            "[first, first + count) of track_order, or, when first_row is not "
            "0xFFFFFFFF, the rows first_row, first_row + 1, ... (slots unwritten)",
            {{"first", T::kU32, "", "first slot of track_order"},
             {"count", T::kU32, "", "events of the track (metadata, flows and E ends aside)"},
             {"first_row", T::kU32, "", "first event row when they are consecutive rows"}}));
  s.push_back(Table("track_order",
                    "each track's events by start (ts ascending, the longer first, then the "
                    "lower row), tracks one after another (see track_events)",
                    {{"event", T::kU32, "", "event row"}}));
  s.push_back(Table("event_flags", "per event (row of events), how the importer read it",
                    {{"flags", T::kU8, "", "TH_EVENT_FLAG_* bits"}}));
  s.push_back(Table("xla_labels",
                    "XLA labels the profiler recorded on events (XProf captures), event order",
                    {{"event", T::kU32, "", "event row"},
                     {"hlo_op", T::kStringId, "", "HLO instruction name, empty when absent"},
                     {"hlo_module", T::kStringId, "", "HLO module name, empty when absent"}}));
  s.push_back(
      Table("xla_op_costs",
            "costs the runtime wrote on device ops (TPU XLA Ops: XLA's cost analysis, "
            "per execution; read, not measured), event order",
            {{"event", T::kU32, "", "event row"},
             {"flops", T::kI64, "FLOP", "`flops` stat, -1 when absent"},
             {"model_flops", T::kI64, "FLOP", "`model_flops` stat, -1 when absent"},
             {"bytes_accessed", T::kI64, "bytes", "`bytes_accessed` stat, -1 when absent"}}));
  return s;
}

uint32_t TrackKindValue(TrackKind k) {
  return k == TrackKind::kCpu ? 0u : k == TrackKind::kGpuStream ? 1u : 2u;
}

// track_events and track_order from the graph's per-track time order; no
// rows when the graph has none (a track count that does not match).
void AddTrackOrder(const EventGraph& g, const TableSchema& per_track, const TableSchema& order,
                   TraceTables* out) {
  const size_t tracks = g.track_offsets.size() == g.tracks.size() + 1 ? g.tracks.size() : 0;
  std::vector<uint32_t> first(tracks), count(tracks), first_row(tracks, kNoRow);
  for (size_t t = 0; t < tracks; ++t) {
    first[t] = g.track_offsets[t];
    count[t] = g.track_offsets[t + 1] - g.track_offsets[t];
    if (t < g.track_first_row.size()) first_row[t] = g.track_first_row[t];
  }
  out->Add(
      per_track, tracks,
      {out->Keep(std::move(first)), out->Keep(std::move(count)), out->Keep(std::move(first_row))});
  out->Add(order, tracks ? g.track_offsets.back() : 0, {g.track_order.data()});
}

}  // namespace

const std::vector<TableSchema>& CoreTableSchemas() {
  static const std::vector<TableSchema> kSchemas = MakeSchemas();
  return kSchemas;
}

const TableSchema* CoreTableSchema(std::string_view name) {
  for (const TableSchema& s : CoreTableSchemas())
    if (s.name == name) return &s;
  return nullptr;
}

void AddGraphTables(const Trace& trace, TraceTables* out) {
  auto schema = [](std::string_view name) -> const TableSchema& {
    const TableSchema* s = CoreTableSchema(name);
    if (!s) throw std::logic_error("no core table " + std::string(name));
    return *s;
  };
  const EventGraph& g = trace.graph;
  const EventColumns& e = g.events;
  out->Add(schema("events"), e.size(),
           {e.ts.data(), e.dur.data(), e.name.data(), e.cat.data(), e.track.data(), e.parent.data(),
            e.depth.data(), e.kind.data(), e.args_row.data()});

  std::vector<uint32_t> kind;
  std::vector<int64_t> pid, tid, stream;
  std::vector<StringId> pid_string, tid_string, process_name, thread_name;
  std::vector<int32_t> device;
  for (const Track& t : g.tracks) {
    kind.push_back(TrackKindValue(t.kind));
    pid.push_back(t.pid);
    tid.push_back(t.tid);
    pid_string.push_back(t.pid_str);
    tid_string.push_back(t.tid_str);
    process_name.push_back(t.process_name);
    thread_name.push_back(t.thread_name);
    device.push_back(t.device);
    stream.push_back(t.stream);
  }
  out->Add(schema("tracks"), g.tracks.size(),
           {out->Keep(std::move(kind)), out->Keep(std::move(pid)), out->Keep(std::move(tid)),
            out->Keep(std::move(pid_string)), out->Keep(std::move(tid_string)),
            out->Keep(std::move(process_name)), out->Keep(std::move(thread_name)),
            out->Keep(std::move(device)), out->Keep(std::move(stream))});

  const EdgeTable& ed = g.edges;
  out->Add(schema("edges"), ed.size(), {ed.src.data(), ed.dst.data(), ed.kind.data()});

  std::vector<int64_t> number, ts, dur;
  std::vector<EventId> event;
  for (const Step& st : g.steps) {
    number.push_back(st.number);
    event.push_back(st.event);
    ts.push_back(st.ts);
    dur.push_back(st.dur);
  }
  out->Add(schema("profiler_steps"), g.steps.size(),
           {out->Keep(std::move(number)), out->Keep(std::move(event)), out->Keep(std::move(ts)),
            out->Keep(std::move(dur))});

  const GpuArgsTable& ga = g.gpu_args;
  out->Add(schema("gpu_args"), ga.size(),
           {ga.event.data(), ga.device.data(), ga.stream.data(), ga.bytes.data(), ga.grid[0].data(),
            ga.grid[1].data(), ga.grid[2].data(), ga.block[0].data(), ga.block[1].data(),
            ga.block[2].data(), ga.registers.data(), ga.shared_mem.data(), ga.occupancy.data()});

  const XlaData& x = trace.xla;
  const bool attributed = x.attributed && x.kernel_match.size() == ga.size() &&
                          x.kernel_instruction.size() == ga.size();
  out->Add(schema("gpu_hlo"), attributed ? ga.size() : 0,
           {x.kernel_instruction.data(), x.kernel_match.data()});

  const CollectiveArgsTable& ca = g.collective_args;
  out->Add(schema("collective_args"), ca.size(),
           {ca.event.data(), ca.collective.data(), ca.dtype.data(), ca.group.data(),
            ca.in_nelems.data(), ca.out_nelems.data(), ca.group_size.data()});

  const MemoryArgsTable& ma = g.memory_args;
  out->Add(schema("memory_args"), ma.size(),
           {ma.event.data(), ma.device_type.data(), ma.device_id.data(), ma.addr.data(),
            ma.bytes.data(), ma.total_allocated.data(), ma.total_reserved.data()});

  const OpInputsTable& oi = g.op_inputs;
  out->Add(
      schema("op_inputs"), oi.size(),
      {oi.event.data(), oi.input_dims.data(), oi.input_types.data(), oi.concrete_inputs.data()});

  const CounterTable& co = g.counters;
  out->Add(schema("counters"), co.size(), {co.event.data(), co.series.data(), co.value.data()});

  std::vector<int32_t> id, major, minor, sms;
  std::vector<const char*> name;
  std::vector<int64_t> memory;
  for (const DeviceInfo& d : trace.info.devices) {
    id.push_back(static_cast<int32_t>(d.id));
    name.push_back(d.name.c_str());
    memory.push_back(d.total_global_mem);
    major.push_back(d.compute_major);
    minor.push_back(d.compute_minor);
    sms.push_back(d.num_sms);
  }
  out->Add(schema("devices"), trace.info.devices.size(),
           {out->Keep(std::move(id)), out->Keep(std::move(name)), out->Keep(std::move(memory)),
            out->Keep(std::move(major)), out->Keep(std::move(minor)), out->Keep(std::move(sms))});

  AddTrackOrder(g, schema("track_events"), schema("track_order"), out);
  out->Add(schema("event_flags"), e.size(), {e.flags.data()});
  const XlaLabelTable& xl = g.xla_labels;
  out->Add(schema("xla_labels"), xl.size(),
           {xl.event.data(), xl.hlo_op.data(), xl.hlo_module.data()});
  const XlaOpCostTable& oc = g.xla_op_costs;
  out->Add(schema("xla_op_costs"), oc.size(),
           {oc.event.data(), oc.flops.data(), oc.model_flops.data(), oc.bytes_accessed.data()});

  const HloColumns& h = x.columns;
  out->Add(schema("hlo_modules"), h.module_name.size(), {h.module_name.data(), h.module_id.data()});
  out->Add(schema("hlo_instructions"), h.module.size(),
           {h.module.data(), h.name.data(), h.opcode.data(), h.shape.data(), h.op_name.data(),
            h.source_file.data(), h.source_line.data(), h.caller.data(),
            h.custom_call_target.data(), h.fusion_kind.data(), h.computation.data(),
            h.parameter_number.data(), h.tuple_index.data(), h.in_entry.data()});
  out->Add(schema("hlo_compute_dims"), h.dot_dims.size(),
           {h.dot_dims.data(), h.window.data(), h.dim_labels.data(), h.feature_group_count.data(),
            h.batch_group_count.data(), h.custom_call_config.data()});
  out->Add(schema("hlo_operand_offsets"), h.operand_offsets.size(), {h.operand_offsets.data()});
  out->Add(schema("hlo_operands"), h.operands.size(), {h.operands.data()});
  out->Add(schema("hlo_user_offsets"), h.user_offsets.size(), {h.user_offsets.data()});
  out->Add(schema("hlo_users"), h.users.size(), {h.users.data()});
}

}  // namespace th
