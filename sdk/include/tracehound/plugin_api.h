/* tracehound plugin ABI, version 1.3 (1.1 added the compute primitives, 1.2
 * the HLO modules of XProf captures and the kernel -> instruction attribution,
 * 1.3 kernel classes, graph capture, info findings and skips).
 *
 * The only contract between the tracehound host and a plugin library. Plain C:
 * every struct is POD and starts with its own size (struct_size) so either side
 * can tell an older layout from a newer one; new fields are only ever appended.
 *
 * A plugin library exports one symbol, TH_PLUGIN_ENTRY_SYMBOL, a function
 * returning its descriptor. The host checks api_major == TH_PLUGIN_API_MAJOR and
 * api_minor <= the host's minor before calling anything else. Everything the
 * host hands over (views, strings, the host table) is read-only and valid only
 * during the call that received it. Plugins never see C++ types of the host.
 *
 * Most authors use the C++ layer in <tracehound/sdk.h> instead of this file.
 */
#ifndef TRACEHOUND_PLUGIN_API_H_
#define TRACEHOUND_PLUGIN_API_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TH_PLUGIN_API_MAJOR 1
#define TH_PLUGIN_API_MINOR 3
#define TH_PLUGIN_ENTRY_SYMBOL "tracehound_plugin_entry_v1"

#if defined(_WIN32)
#define TH_PLUGIN_EXPORT __declspec(dllexport)
#else
#define TH_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

typedef enum th_status { TH_STATUS_OK = 0, TH_STATUS_ERROR = 1 } th_status;

typedef enum th_plugin_kind { TH_KIND_ANALYZER = 0, TH_KIND_DETECTOR = 1 } th_plugin_kind;

typedef enum th_value_type {
  TH_TYPE_BOOL = 0,
  TH_TYPE_I64 = 1,
  TH_TYPE_F64 = 2,
  TH_TYPE_STRING = 3, /* const char* (UTF-8, NUL-terminated) */
  TH_TYPE_U32 = 4,
  TH_TYPE_U16 = 5,
  TH_TYPE_U8 = 6,
  TH_TYPE_I32 = 7,
  TH_TYPE_F32 = 8,
  TH_TYPE_I8 = 9, /* 1.2 */
  TH_TYPE_I16 = 10
} th_value_type;

/* How a number was obtained: measured from the trace, read from a spec or
 * the compiler, or inferred by a model. Every reported number carries one. */
typedef enum th_number_kind { TH_MEASURED = 0, TH_READ = 1, TH_INFERRED = 2 } th_number_kind;

/* TH_INFO (1.3): not a problem but what the trace is, e.g. a capture of CUDA
 * graphs rather than steady-state execution; it never makes a verdict
 * NEEDS_ATTENTION nor reaches a pipeline's fail_on. */
typedef enum th_severity { TH_P0 = 0, TH_P1 = 1, TH_P2 = 2, TH_INFO = 3 } th_severity;

/* A read-only column: `length` values of `type` at `data`, contiguous. */
typedef struct th_column {
  const void* data;
  uint64_t length;
  uint32_t type; /* th_value_type */
  uint32_t reserved;
} th_column;

/* Event kinds, as in the event graph (core/graph/event_kind.h). */
enum {
  TH_EVENT_OTHER = 0,
  TH_EVENT_CPU_OP = 1,
  TH_EVENT_USER_ANNOTATION = 2,
  TH_EVENT_GPU_USER_ANNOTATION = 3,
  TH_EVENT_PYTHON_FUNCTION = 4,
  TH_EVENT_RUNTIME = 5,
  TH_EVENT_DRIVER = 6,
  TH_EVENT_KERNEL = 7,
  TH_EVENT_MEMCPY = 8,
  TH_EVENT_MEMSET = 9,
  TH_EVENT_GPU_SYNC = 10,
  TH_EVENT_GPU_EVENT = 11,
  TH_EVENT_MEMORY = 12,
  TH_EVENT_OUT_OF_MEMORY = 13,
  TH_EVENT_INSTANT = 14,
  TH_EVENT_FLOW = 15,
  TH_EVENT_METADATA = 16,
  TH_EVENT_COUNTER = 17
};

/* How a GPU event was tied to an HLO instruction (gpu_hlo_match). */
enum {
  TH_HLO_MATCH_NONE = 0,
  TH_HLO_MATCH_EXACT = 1,
  TH_HLO_MATCH_NAME = 2,
  TH_HLO_MATCH_ORDER = 3
};

enum { TH_TRACK_CPU = 0, TH_TRACK_GPU_STREAM = 1, TH_TRACK_OTHER = 2 };

/* Kernel classes (1.3). TH_CLASS_NONE: the event is no GPU activity. */
enum {
  TH_CLASS_NONE = 0,
  TH_CLASS_COMM = 1, /* communication: collectives, all-to-all, one-sided transfers */
  TH_CLASS_COMP = 2, /* computation */
  TH_CLASS_MEM = 3,  /* memory traffic on one device: memcpy, memset */
  TH_CLASS_OTHER = 4 /* none of these (HTA's syncs and launch records) */
};

/* Rule sets of the kernel class table (1.3). */
enum { TH_RULES_TRACEHOUND = 0, TH_RULES_HTA = 1 };

#define TH_NO_RULE 0xFFFFFFFFu

/* One rule of the kernel class table (1.3): a GPU activity whose name matches
 * `match` (a glob: `*` is any run of characters, the rest literal, the whole
 * name must match) is of class `klass`. The first matching rule of a set wins;
 * with none, the kind decides: under TH_RULES_TRACEHOUND kernels are
 * TH_CLASS_COMP, memcpy/memset TH_CLASS_MEM, syncs TH_CLASS_OTHER. */
typedef struct th_class_rule {
  uint32_t struct_size;
  uint32_t rule_set;    /* TH_RULES_* */
  uint32_t klass;       /* TH_CLASS_* */
  uint32_t ignore_case; /* 1: ASCII letters match either case */
  const char* match;
  const char* source; /* where the rule comes from: "NCCL ...", a pipeline's FILE:LINE */
} th_class_rule;

/* CUDA/HIP graph capture seen in a trace (1.3); all 0 when none. */
typedef struct th_graph_capture {
  uint32_t struct_size;
  uint32_t dominates; /* 1: at least as many launch calls were captured as ran: the
                         trace records capture, not steady-state execution */
  uint32_t hip;       /* 1: HIP graphs (hipStreamBeginCapture ...) */
  uint32_t reserved;
  int64_t begin_calls;        /* *StreamBeginCapture* */
  int64_t end_calls;          /* *StreamEndCapture* */
  int64_t instantiations;     /* *GraphInstantiate* */
  int64_t graph_launches;     /* *GraphLaunch* */
  int64_t captured_launches;  /* launch calls inside a capture region whose work never ran */
  int64_t executed_launches;  /* launch calls whose work ran (graph launches included) */
  int64_t kernels;            /* kernels that ran */
  int64_t first_ts, last_end; /* the capture regions: first start, last end (ns) */
} th_graph_capture;

typedef struct th_track {
  uint32_t struct_size;
  uint32_t kind; /* TH_TRACK_* */
  int64_t pid, tid;
  uint32_t pid_string, tid_string;    /* string ids, 0 when numeric */
  uint32_t process_name, thread_name; /* string ids */
  int32_t device;                     /* accelerator index of a GPU stream track, -1 otherwise */
  int32_t reserved;
  int64_t stream; /* stream id of a GPU stream track, -1 otherwise */
} th_track;

enum { TH_EDGE_LAUNCH = 0, TH_EDGE_FLOW = 1 };

typedef struct th_step {
  int64_t number; /* N of ProfilerStep#N */
  uint32_t event; /* the step's event index */
  uint32_t reserved;
  int64_t ts, dur; /* ns */
} th_step;

/* An accelerator as the trace describes it (Kineto deviceProperties, XSpace
 * device plane stats); 0 / NULL where the trace says nothing. (1.2) */
typedef struct th_device {
  uint32_t struct_size;
  int32_t id;
  const char* name;
  int64_t total_global_mem; /* bytes */
  int32_t compute_major, compute_minor;
  int32_t num_sms; /* streaming multiprocessors / compute units */
  int32_t reserved;
} th_device;

/* One trace (one rank's file) as read-only columns of the event graph.
 * Times are int64 ns on the trace's own clock. */
typedef struct th_trace_view {
  uint32_t struct_size;
  uint32_t reserved;
  const char* path;
  int64_t rank;
  uint64_t event_count;
  th_column ts, dur;   /* I64, ns */
  th_column name, cat; /* U32 string ids */
  th_column track;     /* U32 index into tracks */
  th_column parent;    /* U32 event index, 0xFFFFFFFF at top level */
  th_column depth;     /* U16 */
  th_column kind;      /* U8, TH_EVENT_* */
  th_column args_row;  /* U32 row of gpu_* columns for GPU activity, 0xFFFFFFFF if none */
  uint64_t track_count;
  const th_track* tracks;
  uint64_t gpu_args_count; /* kernels, memcpy, memset, syncs */
  th_column gpu_event;     /* U32 event index */
  th_column gpu_device;    /* I32 */
  th_column gpu_stream;    /* I64 */
  th_column gpu_bytes;     /* I64, memcpy/memset bytes, -1 if absent */
  const void* host_trace;  /* opaque; pass back to host functions */
  uint64_t edge_count;     /* launch -> GPU activity, and other flows */
  th_column edge_src;      /* U32 event index */
  th_column edge_dst;      /* U32 event index */
  th_column edge_kind;     /* U8: TH_EDGE_* */
  uint64_t step_count;     /* ProfilerStep#N windows on the host, by start time */
  const th_step* steps;
  /* 1.2: HLO modules of XProf captures (counts are 0 for other traces). The
   * instructions of all modules are numbered 0..hlo_instruction_count-1. */
  uint64_t hlo_module_count;
  th_column hlo_module_name; /* U32 string id */
  th_column hlo_module_id;   /* I64 HloModuleProto.id (= program_id on GPU) */
  uint64_t hlo_instruction_count;
  th_column hlo_module;          /* U32 module index */
  th_column hlo_name;            /* U32 string id, e.g. "fusion.3" */
  th_column hlo_opcode;          /* U32 string id, e.g. "fusion", "copy" */
  th_column hlo_shape;           /* U32 string id, HLO text with layout: "f32[8,16]{1,0}" */
  th_column hlo_op_name;         /* U32 string id of metadata op_name ("jit(f)/...") */
  th_column hlo_source_file;     /* U32 string id */
  th_column hlo_source_line;     /* I32, 0 when unset */
  th_column hlo_caller;          /* U32: the fusion/call instruction whose computation holds
                                    this one, 0xFFFFFFFF at top level */
  th_column hlo_operand_offsets; /* U32, hlo_instruction_count + 1 (CSR into hlo_operands) */
  th_column hlo_operands;        /* U32 instruction indices */
  th_column hlo_user_offsets;    /* U32, hlo_instruction_count + 1 (CSR into hlo_users) */
  th_column hlo_users;           /* U32 instruction indices */
  th_column gpu_hlo_instruction; /* U32 per gpu_args row, 0xFFFFFFFF when none */
  th_column gpu_hlo_match;       /* U8 per gpu_args row, TH_HLO_MATCH_* (length 0 when the
                                    trace was not attributed) */
  /* 1.2: kernel launch configuration per gpu_args row (0 when absent), and devices. */
  th_column gpu_grid[3];    /* I32 grid x, y, z */
  th_column gpu_block[3];   /* I32 block x, y, z */
  th_column gpu_registers;  /* I32 registers per thread */
  th_column gpu_shared_mem; /* I32 bytes of shared memory per block */
  th_column gpu_occupancy;  /* F32 est. achieved occupancy % as recorded, -1 when absent */
  uint64_t device_count;
  const th_device* devices;
  /* 1.2: collective metadata Kineto copies onto NCCL/RCCL kernels ("Collective
   * name", "dtype", "Process Group Name", "In/Out msg nelems", "Group size"),
   * one row per kernel that carries it, rows in event order. */
  uint64_t collective_count;
  th_column collective_event;      /* U32 event index */
  th_column collective_name;       /* U32 string id, e.g. "allreduce" */
  th_column collective_dtype;      /* U32 string id, e.g. "Float" */
  th_column collective_group;      /* U32 string id of the process group name, e.g. "0" */
  th_column collective_in_nelems;  /* I64 */
  th_column collective_out_nelems; /* I64 */
  th_column collective_group_size; /* I32 */
  /* 1.2: allocator events ([memory] and [OutOfMemory], PyTorch profile_memory=True;
   * kind() of the event tells them apart), one row per event, rows in event order
   * (an event's args_row is its row). Absent values: device -1, addr 0, totals
   * INT64_MIN. */
  uint64_t memory_count;
  th_column memory_event;           /* U32 event index */
  th_column memory_device_type;     /* I8 c10 DeviceType: 0 CPU, 1 CUDA, 6 HIP, ... */
  th_column memory_device_id;       /* I16 */
  th_column memory_addr;            /* I64 */
  th_column memory_bytes;           /* I64, negative = free */
  th_column memory_total_allocated; /* I64 bytes allocated after the event */
  th_column memory_total_reserved;  /* I64 bytes reserved by the caching allocator */
  /* 1.2: more HLO instruction columns (hlo_instruction_count rows). */
  th_column hlo_custom_call_target; /* U32 string id ("" unless custom-call) */
  th_column hlo_fusion_kind;        /* U32 string id: kLoop, kInput, kOutput, kCustom or "" */
  th_column hlo_computation;        /* U32 string id of the computation's name */
  th_column hlo_parameter_number;   /* I32, -1 unless a parameter */
  th_column hlo_tuple_index;        /* I32, -1 unless a get-tuple-element */
  th_column hlo_in_entry;           /* U8, 1 in the module's entry computation */
  /* 1.3: kernel classes. The host matches each distinct name of a GPU activity
   * (kernel, memcpy, memset, sync, CUDA event) once per trace against the
   * pipeline's class table (its `kernel_classes:` rules, then the built-ins;
   * docs/kernel-classes.md). Per string id: the index in class_rules of the
   * first matching rule of each set, TH_NO_RULE when none matched (the kind
   * decides) or the string names no GPU activity. */
  uint64_t string_count;
  th_column name_rule;     /* U32 per string id, TH_RULES_TRACEHOUND */
  th_column name_hta_rule; /* U32 per string id, TH_RULES_HTA (HTA 0.6.1's kernel types) */
  uint64_t class_rule_count;
  const th_class_rule* class_rules;
  /* 1.3: CUDA/HIP graph capture (core/graph/graph_capture.h). */
  th_graph_capture capture;
} th_trace_view;

typedef struct th_option_value {
  const char* name;
  uint32_t type; /* TH_TYPE_BOOL / I64 / F64 / STRING */
  uint32_t reserved;
  int64_t i64; /* also bool (0/1) */
  double f64;
  const char* str;
} th_option_value;

typedef struct th_evidence {
  const char* name;
  double value;
  const char* unit; /* "ns", "%", "bytes", ... */
  uint32_t kind;    /* th_number_kind */
  uint32_t reserved;
} th_evidence;

/* Where a finding or metric applies; -1 = all / not applicable. */
typedef struct th_scope {
  int64_t rank;
  int64_t device;
  int64_t stream;
  int64_t step_first, step_last;
} th_scope;

typedef struct th_finding {
  uint32_t struct_size;
  uint32_t severity; /* th_severity */
  const char* title;
  const char* what;       /* what is happening, in a sentence or two */
  const char* suggestion; /* the change to try; may be NULL */
  double confidence;      /* 0..1 */
  th_scope scope;
  const th_evidence* evidence;
  uint32_t evidence_count;
  uint32_t reserved;
} th_finding;

/* A reconciliation check: something that must hold if the analysis is right
 * (e.g. the parts of a stream's time add up to its span). Reports list them. */
typedef struct th_check {
  uint32_t struct_size;
  uint32_t passed; /* 1 or 0 */
  const char* name;
  const char* detail;
} th_check;

typedef struct th_metric {
  uint32_t struct_size;
  uint32_t kind; /* th_number_kind */
  const char* name;
  double value;
  const char* unit;
  th_scope scope;
} th_metric;

/* A derived table: named columns of equal length. String columns are
 * arrays of const char*. */
typedef struct th_table_column {
  const char* name;
  th_column values;
  const char* unit; /* may be NULL */
} th_table_column;

typedef struct th_table {
  uint32_t struct_size;
  uint32_t column_count;
  const char* name;
  const th_table_column* columns;
  uint64_t row_count;
} th_table;

/* What the host gives a running plugin. `ctx` is opaque and goes back as the
 * first argument of every function. */
typedef struct th_host_api {
  uint32_t struct_size;
  uint32_t api_major, api_minor;
  uint32_t reserved;
  void* ctx;
  void (*log)(void* ctx, int level /* 0 info, 1 warning */, const char* message);
  /* The string with id `id` of a trace; *length receives its byte length. */
  const char* (*string_at)(void* ctx, const th_trace_view* trace, uint32_t id, uint64_t* length);
  /* args.correlation / args["External id"] of an event; INT64_MIN if absent. */
  int64_t (*correlation)(void* ctx, const th_trace_view* trace, uint64_t event);
  int64_t (*external_id)(void* ctx, const th_trace_view* trace, uint64_t event);
  th_status (*add_finding)(void* ctx, const th_finding* finding);
  th_status (*publish_metric)(void* ctx, const th_metric* metric);
  /* Copies the table; the plugin may free its memory after the call. */
  th_status (*publish_table)(void* ctx, const th_table* table);
  /* A table published earlier in the pipeline, or NULL. Valid during run. */
  const th_table* (*find_table)(void* ctx, const char* name);
  th_status (*add_check)(void* ctx, const th_check* check);

  /* Compute primitives (API 1.1), run on the pipeline's backend (oneTBB, or a
   * GPU for large inputs): the plugin gets acceleration without linking CUDA
   * or HIP. Keys and groups are dense ids below num_keys / num_groups; see
   * kernels/include/tracehound/kernels/primitives.h for exact semantics. */
  th_status (*sort_by_key)(void* ctx, int64_t* keys, uint32_t* values, uint64_t n);
  /* op: 0 sum, 1 min, 2 max, 3 count. */
  th_status (*reduce_by_key)(void* ctx, const uint32_t* keys, const int64_t* values, uint64_t n,
                             uint32_t op, int64_t* out, uint64_t num_keys);
  th_status (*segmented_percentiles)(void* ctx, const int64_t* values, const uint64_t* offsets,
                                     uint64_t segments, const double* percentiles,
                                     uint64_t percentile_count, int64_t* out);
  th_status (*interval_union)(void* ctx, const uint32_t* group, const int64_t* begin,
                              const int64_t* end, uint64_t n, int64_t* out, uint64_t num_groups);
  th_status (*interval_overlap)(void* ctx, const uint32_t* group_a, const int64_t* begin_a,
                                const int64_t* end_a, uint64_t n_a, const uint32_t* group_b,
                                const int64_t* begin_b, const int64_t* end_b, uint64_t n_b,
                                int64_t* out, uint64_t num_groups);

  /* 1.3: the plugin left `trace` out, for `reason` (one sentence, e.g. "the
   * trace records CUDA graph capture: its kernels never ran in it"). Reports
   * list it with the plugin's outcome. */
  th_status (*skip_trace)(void* ctx, const th_trace_view* trace, const char* reason);
} th_host_api;

typedef struct th_option_decl {
  const char* name;
  uint32_t type; /* TH_TYPE_BOOL / I64 / F64 / STRING */
  uint32_t has_min, has_max;
  uint32_t choice_count;
  th_option_value default_value;
  double min, max;
  const char* doc;
  const char* const* choices;
} th_option_decl;

typedef struct th_run_input {
  uint32_t struct_size;
  uint32_t trace_count;
  const th_trace_view* const* traces;
  const th_option_value* options;
  uint32_t option_count;
  uint32_t reserved;
} th_run_input;

typedef struct th_plugin_descriptor {
  uint32_t struct_size;
  uint32_t api_major, api_minor;
  uint32_t kind;       /* th_plugin_kind */
  const char* id;      /* kebab-case, stable */
  const char* version; /* semver */
  const char* summary;
  const th_option_decl* options;
  uint32_t option_count;
  uint32_t read_count;
  const char* const* reads;
  uint32_t publish_count;
  uint32_t reserved;
  const char* const* publishes;
  /* Runs the plugin. On failure returns TH_STATUS_ERROR with a message in
   * error[0..error_capacity). Must not throw. */
  th_status (*run)(const th_host_api* host, const th_run_input* input, char* error,
                   uint64_t error_capacity);
} th_plugin_descriptor;

typedef const th_plugin_descriptor* (*th_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* TRACEHOUND_PLUGIN_API_H_ */
