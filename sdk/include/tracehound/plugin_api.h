/* tracehound plugin ABI, version 2.2.
 *
 * The only contract between the tracehound host and a plugin library. Plain C:
 * every struct is POD and starts with its own size (struct_size) so either side
 * can tell an older layout from a newer one.
 *
 * Data crosses the boundary as tables: named, typed, unit-carrying columns.
 * The host keeps a catalog of every event-graph table of each trace (events,
 * tracks, edges, gpu_args, ..., docs/architecture.md lists them); a plugin
 * declares the tables it reads and the schemas of the tables it publishes.
 * The host hands a plugin only the tables it declared and checks every
 * publish against its schema.
 *
 * A plugin library exports one symbol, TH_PLUGIN_ENTRY_SYMBOL, a function
 * returning its descriptor. The host checks api_major == TH_PLUGIN_API_MAJOR and
 * api_minor <= the host's minor before calling anything else. Everything the
 * host hands over (views, strings, the host table) is read-only and valid only
 * during the call that received it. Plugins never see C++ types of the host.
 *
 * 2.1 (backward compatible: a 2.0 plugin runs unchanged on a 2.1 host) adds
 * input groups: th_trace_view.group, th_plugin_descriptor.flags
 * (TH_PLUGIN_INPUT_GROUPS), th_host_api.find_group_table; the event kinds past
 * TH_EVENT_COUNTER; the event flag bits; the catalog tables event_flags and
 * xla_labels. A 2.1 plugin reads a 2.1 field only when the host's api_minor
 * (th_host_api) is at least 1, or the struct's struct_size covers it.
 *
 * 2.2 (backward compatible) adds th_host_api.column_buffer: a plugin fills a
 * large column in memory the host gives and publishes it without a copy. A
 * plugin calls it only when the host's api_minor is at least 2. It also
 * states what every host has done: string_at's text is NUL-terminated, and
 * the trace reads (string_at, correlation, external_id) may come from any
 * thread, as may column_buffer.
 *
 * Most authors use the C++ layer in <tracehound/sdk.h> instead of this file.
 */
#ifndef TRACEHOUND_PLUGIN_API_H_
#define TRACEHOUND_PLUGIN_API_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TH_PLUGIN_API_MAJOR 2
#define TH_PLUGIN_API_MINOR 2
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
  TH_TYPE_I8 = 9,
  TH_TYPE_I16 = 10,
  TH_TYPE_STRING_ID = 11 /* U32 id into the trace's string pool (host string_at) */
} th_value_type;

/* How a number was obtained: measured from the trace, read from a spec or
 * the compiler, or inferred by a model. Every reported number carries one. */
typedef enum th_number_kind { TH_MEASURED = 0, TH_READ = 1, TH_INFERRED = 2 } th_number_kind;

/* TH_INFO: not a problem but what the trace is, e.g. a capture of CUDA
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
  TH_EVENT_COUNTER = 17,
  TH_EVENT_OVERHEAD = 18,    /* 2.1 */
  TH_EVENT_TRACE_SPAN = 19,  /* 2.1: the profiler's own `Trace` span */
  TH_EVENT_MTIA_DEVICE = 20, /* 2.1 */
  TH_EVENT_MTIA_RUNTIME = 21 /* 2.1 */
};

/* Bits of table event_flags' `flags` column (2.1). */
enum {
  TH_EVENT_FLAG_INVALID_TS = 1,  /* ts missing or not a number */
  TH_EVENT_FLAG_NO_DURATION = 2, /* X without a valid dur */
  TH_EVENT_FLAG_END_MARKER = 16, /* an E event (its B carries the duration) */
  TH_EVENT_FLAG_DERIVED = 32     /* made by the importer, not in the file */
};

/* How a GPU event was tied to an HLO instruction (gpu_hlo_match). */
enum {
  TH_HLO_MATCH_NONE = 0,
  TH_HLO_MATCH_EXACT = 1,
  TH_HLO_MATCH_NAME = 2,
  TH_HLO_MATCH_ORDER = 3
};

enum { TH_TRACK_CPU = 0, TH_TRACK_GPU_STREAM = 1, TH_TRACK_OTHER = 2 };

/* Kernel classes. TH_CLASS_NONE: the event is no GPU activity. */
enum {
  TH_CLASS_NONE = 0,
  TH_CLASS_COMM = 1, /* communication: collectives, all-to-all, one-sided transfers */
  TH_CLASS_COMP = 2, /* computation */
  TH_CLASS_MEM = 3,  /* memory traffic on one device: memcpy, memset */
  TH_CLASS_OTHER = 4 /* none of these (HTA's syncs and launch records) */
};

/* Rule sets of the kernel class table (table class_rules, column rule_set). */
enum { TH_RULES_TRACEHOUND = 0, TH_RULES_HTA = 1 };

/* A rule index of table name_classes that names no rule: the event's kind
 * decides its class. */
#define TH_NO_RULE 0xFFFFFFFFu

enum { TH_EDGE_LAUNCH = 0, TH_EDGE_FLOW = 1 };

/* A column of a table: name, unit, values (`values.length` rows). */
typedef struct th_table_column {
  const char* name;
  th_column values;
  const char* unit; /* may be NULL */
} th_table_column;

/* A table: named columns of equal length. TH_TYPE_STRING columns are arrays
 * of const char*; TH_TYPE_STRING_ID columns hold ids of the trace's strings. */
typedef struct th_table {
  uint32_t struct_size;
  uint32_t column_count;
  const char* name;
  const th_table_column* columns;
  uint64_t row_count;
} th_table;

/* What a column promises: name, type (th_value_type), unit ("ns", "bytes",
 * "%", "" for counts and ids) and a sentence saying what it holds. */
typedef struct th_column_schema {
  const char* name;
  uint32_t type;
  uint32_t reserved;
  const char* unit;
  const char* doc;
} th_column_schema;

/* What a table promises: its columns in order, what it holds and how a report
 * draws it (`view`: a panel of docs/report-panels.md, or NULL for the generic
 * table listing). A published table must match its schema exactly: the same
 * columns, in order, of the same types and units. */
typedef struct th_table_schema {
  uint32_t struct_size;
  uint32_t column_count;
  const char* name;
  const char* doc;
  const th_column_schema* columns;
  const char* view;
} th_table_schema;

/* Input group labels (2.1): a pipeline with `baseline:` has two input sets. */
#define TH_GROUP_BASELINE "baseline"
#define TH_GROUP_INPUTS "inputs"

/* One trace (one rank's file): the catalog tables the plugin declared it
 * reads, by name. Times are int64 ns on the trace's own clock. */
typedef struct th_trace_view {
  uint32_t struct_size;
  uint32_t table_count;
  const char* path;
  int64_t rank;
  const th_table* tables;
  const void* host_trace; /* opaque; pass back to host functions */
  /* 2.1: the input set the trace belongs to: "" when the pipeline has one;
   * TH_GROUP_BASELINE or TH_GROUP_INPUTS when it names a baseline (only a
   * plugin declaring TH_PLUGIN_INPUT_GROUPS sees baseline traces). */
  const char* group;
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
  /* What reports rank, group and place a finding by, beyond its evidence:
   * each has_* flag says whether the plugin states the value. */
  uint32_t has_saving;
  double saving_ns; /* inferred: what the suggested change saves over the capture */
  uint32_t has_time_lost;
  uint32_t has_range;
  double time_lost_ns; /* what the cause costs over the capture */
  const char* group;   /* one cause: the plugin's findings with one group key are one line
                          of a report; NULL = grouped by title */
  int64_t t0, t1;      /* the time range it points at (ns, on the scope rank's clock) */
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

/* What the host gives a running plugin. `ctx` is opaque and goes back as the
 * first argument of every function. Threads (stated by 2.2; true of every
 * host): string_at, correlation, external_id and column_buffer may be called
 * from any thread while run lasts (they read the trace or hand out memory);
 * every other function only from the thread run was called on. */
typedef struct th_host_api {
  uint32_t struct_size;
  uint32_t api_major, api_minor;
  uint32_t reserved;
  void* ctx;
  void (*log)(void* ctx, int level /* 0 info, 1 warning */, const char* message);
  /* The string with id `id` of a trace; *length receives its byte length.
   * The text is NUL-terminated (stated by 2.2; true of every host) and valid
   * during run. */
  const char* (*string_at)(void* ctx, const th_trace_view* trace, uint32_t id, uint64_t* length);
  /* args.correlation / args["External id"] of an event; INT64_MIN if absent. */
  int64_t (*correlation)(void* ctx, const th_trace_view* trace, uint64_t event);
  int64_t (*external_id)(void* ctx, const th_trace_view* trace, uint64_t event);
  th_status (*add_finding)(void* ctx, const th_finding* finding);
  th_status (*publish_metric)(void* ctx, const th_metric* metric);
  /* Copies the table (a column_buffer column is taken over instead); the
   * plugin may free its own memory after the call. Refused
   * (TH_STATUS_ERROR, with a logged reason) unless the table matches a schema
   * the plugin declared. */
  th_status (*publish_table)(void* ctx, const th_table* table);
  /* A table another plugin published earlier in the pipeline: *out is NULL
   * when it published none. TH_STATUS_ERROR when the plugin did not declare
   * that it reads `name`. Valid during run. */
  th_status (*find_table)(void* ctx, const char* name, const th_table** out);
  th_status (*add_check)(void* ctx, const th_check* check);

  /* Compute primitives, run on the pipeline's backend (oneTBB, or a
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

  /* The plugin left `trace` out, for `reason` (one sentence, e.g. "the
   * trace records CUDA graph capture: its kernels never ran in it"). Reports
   * list it with the plugin's outcome. */
  th_status (*skip_trace)(void* ctx, const th_trace_view* trace, const char* reason);

  /* 2.1: find_table within one input group: the table the plugins before
   * this one published over the traces of `group` (TH_GROUP_BASELINE or
   * TH_GROUP_INPUTS; "" is the pipeline's only set). *out is NULL when there
   * is none (no such group, or nothing published). */
  th_status (*find_group_table)(void* ctx, const char* group, const char* name,
                                const th_table** out);

  /* 2.2: memory for a column the plugin will publish: `count` values of
   * `type` (TH_TYPE_I64 or TH_TYPE_F64), zeroed, the host's, valid until
   * run returns. A published column whose values.data is this address and
   * whose length is `count` is taken over without a copy (once: a second
   * table publishing it gets a copy). NULL for count 0, another type, or no
   * memory; the plugin then uses memory of its own. */
  void* (*column_buffer)(void* ctx, uint32_t type, uint64_t count);
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

/* th_plugin_descriptor.flags (2.1; a 2.0 descriptor has 0 there). */
enum {
  /* The plugin runs once over every input group: with a `baseline:` in the
   * pipeline it sees the baseline's traces beside the inputs' (th_trace_view
   * group) and reads each group's tables with find_group_table. */
  TH_PLUGIN_INPUT_GROUPS = 1
};

typedef struct th_plugin_descriptor {
  uint32_t struct_size;
  uint32_t api_major, api_minor;
  uint32_t kind;       /* th_plugin_kind */
  const char* id;      /* kebab-case, stable */
  const char* version; /* semver */
  const char* summary;
  const th_option_decl* options;
  uint32_t option_count;
  uint32_t read_count; /* catalog tables and other plugins' tables it reads */
  const char* const* reads;
  uint32_t publish_count;
  uint32_t flags; /* 2.1: TH_PLUGIN_* bits (was `reserved`, always 0, in 2.0) */
  const th_table_schema* publishes;
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
