/* The analysis half of a plugin: a decoder and a metric provider, on the host.
 *
 * er_print reads every data file of an experiment block by block; for each
 * record of a data file claimed by a plugin it calls that plugin's decode(),
 * which turns the record into zero or more events. An event carries a stack
 * id and one value per metric the plugin declares; the core does the rest
 * (symbols, exclusive/inclusive/attributed aggregation, views).
 *
 * Everything here runs on the host, in er_print, in ordinary context (no
 * signal-safety rules). Records come from a file a crash may have cut short
 * or a disk may have damaged: decode() checks sizes and returns an error
 * rather than trusting a payload. Views (lumen_view_def) are er_print
 * commands the plugin adds; er_print finds them in the descriptor, so
 * `er_print -help` lists them.
 */
#ifndef LUMEN_ANALYSIS_PLUGIN_H
#define LUMEN_ANALYSIS_PLUGIN_H

#include <lumen/plugin_abi.h>
#include <lumen/record_format.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lumen_event {
  uint64_t time_ns;   /* CLOCK_MONOTONIC, as recorded */
  uint64_t stack_id;  /* id in the experiment's stack table */
  uint32_t thread_id; /* kernel thread id */
  int32_t cpu;        /* -1 when unknown */
  /* One value per metric of the experiment's configuration (the
   * descriptor's metrics, or those configure declared), in their order and
   * unit (nanoseconds, count, bytes); the decoder's own array, read before
   * emit returns. */
  const int64_t* values;
} lumen_event;

struct lumen_stitch;
struct lumen_span;
struct lumen_code_description;

/* What a decoder hands its events to. Given by the reader (er_print, an
 * export, a test); a sized struct (plugin_abi.h): the members below
 * `artificial_stack` may be absent where a reader has no use for them, and
 * the lumen_* helpers below ask before calling them. */
typedef struct lumen_event_sink {
  uint32_t size;
  void* context;
  /* ---- events ---- */
  void (*emit)(void* context, const lumen_event* event);
  /* A stack id standing for a one-frame stack of the artificial function
   * `function` (e.g. "collector_final_counters": counts no recorded stack
   * explains), to put in lumen_event.stack_id. The same name gives the same
   * id within an experiment. */
  uint64_t (*artificial_stack)(void* context, const char* function);
  /* A stack id standing for `stack_id` with a call of `function` as its
   * leaf: a tracing plugin's event shows the traced call itself (malloc,
   * pthread_mutex_lock, MPI_Send) as the leaf, its interposer never. er_print
   * places it at the definition the program's call reached: the first
   * loaded object, other than the collector's, that defines `function`
   * (else an artificial function of that name). Use
   * lumen_traced_call_stack. */
  uint64_t (*traced_call_stack)(void* context, uint64_t stack_id, const char* function);
  /* While decode() runs: the kernel thread id of the thread that wrote the
   * record being decoded (its block's), so that a record need not carry it
   * (the MPI plugin's compact call records do not). */
  uint32_t (*record_thread)(void* context);
  /* ---- view modes ---- */
  /* Declares a stitch (below): how the stacks of events of its thread in
   * its time are shown in some view modes (the OpenMP plugin's regions).
   * The descriptor's declares_stitches must be set. */
  void (*stitch)(void* context, const struct lumen_stitch* stitch);
  /* ---- threads ---- */
  /* Names kernel thread `thread_id` (e.g. its Java name); `role` says
   * whether it is the program's or a runtime's own housekeeping thread (a
   * JVM's GC, compiler and VM threads). -thread_list shows them. Use
   * lumen_name_thread. */
  void (*name_thread)(void* context, uint32_t thread_id, const char* name, int role);
  /* ---- timelines ----
   * What a timeline draws beside the events and no metric counts. A span is
   * an interval of one thread's time (an OpenMP parallel region as each
   * thread of its team was in it); a level is a quantity of the whole
   * process from time_ns on (heap bytes in use), `name` naming the
   * quantity. Names are static strings or ones valid while the plugin is
   * loaded. Absent where the reader draws no timeline: use lumen_emit_span
   * and lumen_emit_level. */
  void (*span)(void* context, const struct lumen_span* span);
  void (*level)(void* context, const char* name, lumen_metric_unit unit, uint64_t time_ns, int64_t value);
  /* ---- generated code ---- */
  /* Describes the source of generated code (lumen_code_description).
   * Absent where the reader places no code at lines: use
   * lumen_describe_code. */
  void (*describe_code)(void* context, const struct lumen_code_description* code);
} lumen_event_sink;

#define LUMEN_THREAD_PROGRAM 0
#define LUMEN_THREAD_RUNTIME_SYSTEM 1

/* Names a thread where er_print offers it. */
static inline void lumen_name_thread(const lumen_event_sink* sink, uint32_t thread_id, const char* name, int role) {
  if (LUMEN_PROVIDES(sink, name_thread)) sink->name_thread(sink->context, thread_id, name, role);
}

/* An interval of a thread's time on a timeline. `stack_id` is where it
 * was entered (LUMEN_NO_STACK: unknown); a timeline names the span by
 * `name` and that stack's leaf function. */
typedef struct lumen_span {
  uint32_t thread_id;
  uint32_t reserved;
  uint64_t begin_ns;
  uint64_t end_ns;
  uint64_t stack_id;
  const char* name;
} lumen_span;

static inline void lumen_emit_span(const lumen_event_sink* sink, const char* name, uint32_t thread_id,
                                   uint64_t begin_ns, uint64_t end_ns, uint64_t stack_id) {
  lumen_span span;
  if (!LUMEN_PROVIDES(sink, span)) return;
  span.thread_id = thread_id;
  span.reserved = 0;
  span.begin_ns = begin_ns;
  span.end_ns = end_ns;
  span.stack_id = stack_id;
  span.name = name;
  sink->span(sink->context, &span);
}

static inline void lumen_emit_level(const lumen_event_sink* sink, const char* name, lumen_metric_unit unit,
                                    uint64_t time_ns, int64_t value) {
  if (LUMEN_PROVIDES(sink, level)) sink->level(sink->context, name, unit, time_ns, value);
}

/* ---- the source of generated code ----
 *
 * Code no loaded object holds (a managed runtime's methods, described to
 * the load-object map as dynamic code: bit 63 set) has no debug
 * information er_print could read. The decoder that knows it describes it:
 * the recorded code addresses [start, end) are code of `source_file`, at
 * line lines[i].line from lines[i].address up to the next entry's address
 * (line 0: no line), and (optionally) its instructions as text. -lines,
 * -source and -disasm then place such frames at their lines and
 * instructions. A later description of the same start replaces an earlier
 * one. lumen_code_description is sized: set `size` to its sizeof. */
typedef struct lumen_code_line {
  uint64_t address;
  int32_t line;
  uint32_t reserved;
} lumen_code_line;

typedef struct lumen_code_instruction {
  uint64_t address;
  const char* text;
} lumen_code_instruction;

typedef struct lumen_code_description {
  uint32_t size;
  uint32_t reserved;
  uint64_t start;
  uint64_t end;
  /* Where er_print looks for the file under its source paths (-setpath,
   * -addpath): a path relative to a source directory
   * ("com/acme/App.java"), or absolute. NULL: unknown. */
  const char* source_file;
  const lumen_code_line* lines; /* ascending addresses */
  size_t line_count;
  /* Non-zero: a caller's frame in this code holds the calling instruction
   * itself (a bytecode index), not a return address, so er_print does not
   * move it back into the call. */
  int exact_call_sites;
  /* The code's instructions as -disasm lists them ("7: ifge 20"), at
   * ascending addresses; each holds the addresses up to the next one's.
   * None (0): -disasm shows the function's lines only. */
  const struct lumen_code_instruction* instructions;
  size_t instruction_count;
  /* Machine code at [start, end) (a JIT-compiled method's), of ELF
   * machine `machine` (EM_X86_64): the first machine_code_bytes of it, as
   * the decoder's record holds them (untrusted: er_print only disassembles
   * them). -disasm lists its instructions at their addresses, each with the
   * metrics of its addresses. With it, `instructions` are notes, not
   * instructions: each text ("bci 12") annotates the machine instructions
   * from its address up to the next one's. NULL: none. */
  const uint8_t* machine_code;
  size_t machine_code_bytes;
  uint32_t machine;
} lumen_code_description;

static inline void lumen_describe_code(const lumen_event_sink* sink, const lumen_code_description* code) {
  if (LUMEN_PROVIDES(sink, describe_code)) sink->describe_code(sink->context, code);
}

/* The stack id of an event of the traced call `function` captured at
 * `stack_id`: traced_call_stack where er_print offers it. */
static inline uint64_t lumen_traced_call_stack(const lumen_event_sink* sink, uint64_t stack_id,
                                               const char* function) {
  if (!LUMEN_PROVIDES(sink, traced_call_stack) || stack_id == LUMEN_NO_STACK) return stack_id;
  return sink->traced_call_stack(sink->context, stack_id, function);
}

/* ---- view modes ----
 *
 * er_print shows stacks in one of three modes (-viewmode): user, the
 * program as its author wrote it (the default); expert, with the code a
 * compiler or runtime generated for it; machine, native stacks as
 * recorded. A plugin whose data changes what a stack means (a managed
 * runtime's frames, an OpenMP runtime's threads) drives the rewriting with
 * two mechanisms, both optional:
 *
 *  * stitches, declared by its decoder for an interval of a thread's time:
 *    the stack of every event (of any plugin) of that thread in that
 *    interval is rewritten, e.g. an OpenMP worker's stack is cut at the
 *    region's body and continued with the stack of the call that started
 *    the region;
 *  * fold_stack, a function of the descriptor, called once per unique
 *    (stitched) stack of an experiment that recorded the plugin: it says
 *    which frames the mode keeps, and which become artificial functions
 *    (runtime frames hidden, or folded into <JVM-System>). */

typedef enum lumen_view_mode {
  LUMEN_VIEW_USER = 0,
  LUMEN_VIEW_EXPERT = 1,
  LUMEN_VIEW_MACHINE = 2
} lumen_view_mode;

/* lumen_stitch.anchor_pc: keep every recorded frame (and add `leaf`). */
#define LUMEN_STITCH_KEEP_FRAMES UINT64_MAX

/* Events of thread `thread_id` with begin_ns <= time_ns < end_ns, in the
 * modes of `modes` (bits 1 << lumen_view_mode), are shown with:
 *   anchor_pc 0: no recorded frame; `leaf` (when not NULL) above the frames
 *     of `parent_stack_id` (none when LUMEN_NO_STACK);
 *   LUMEN_STITCH_KEEP_FRAMES: the recorded frames under `leaf`;
 *   otherwise: the recorded frames from the leaf to the first frame in the
 *     function holding anchor_pc, then the frames of `parent_stack_id`
 *     (events whose stack has no such frame are left as they are).
 * Stitches nest: the innermost (latest begin; of equal times, the one declared last) applies first; one that
 * keeps frames lets the next outer one apply to the whole stack, one that continues with parent_stack_id to
 * that stack's frames only (a nested region's call). `leaf` is static or valid while the plugin is loaded. */
typedef struct lumen_stitch {
  uint32_t thread_id;
  uint32_t modes;
  uint64_t begin_ns;
  uint64_t end_ns;
  uint64_t anchor_pc;
  uint64_t parent_stack_id;
  const char* leaf;
} lumen_stitch;

/* A frame as fold_stack sees it: pc 0 for an artificial function. */
typedef struct lumen_view_frame {
  uint64_t pc;              /* as recorded (bit 63: managed code) */
  const char* function;     /* demangled, with parameters */
  const char* load_object;  /* file name, "<dynamic code>" for managed code */
} lumen_view_frame;

/* What fold_stack makes of a stack: input frame `frame`, or (frame < 0)
 * the artificial function `artificial`. */
typedef struct lumen_folded_frame {
  int32_t frame;
  const char* artificial;
} lumen_folded_frame;

/* Writes the stack as `mode` shows it (leaf first) into `out` (room for
 * count + 1 frames) and returns how many; returning `count` with every
 * frame kept in order leaves the stack unchanged. */
typedef size_t (*lumen_fold_stack)(lumen_view_mode mode, const lumen_view_frame* frames, size_t count,
                                   lumen_folded_frame* out);

/* Emits one event through `sink` (cpu -1 when unknown). */
static inline void lumen_emit_event(const lumen_event_sink* sink, uint64_t time_ns, uint64_t stack_id,
                                    uint32_t thread_id, int32_t cpu, const int64_t* values) {
  lumen_event event;
  event.time_ns = time_ns;
  event.stack_id = stack_id;
  event.thread_id = thread_id;
  event.cpu = cpu;
  event.values = values;
  sink->emit(sink->context, &event);
}

/* total + value, held at the nearest end of int64_t instead of
 * overflowing: views and decoders add up values read from records, and a
 * damaged record's may be anything. */
static inline int64_t lumen_saturating_add(int64_t total, int64_t value) {
  int64_t sum;
  if (__builtin_add_overflow(total, value, &sum)) return value > 0 ? INT64_MAX : INT64_MIN;
  return sum;
}

/* An unsigned figure read from a record (bytes, a duration) as a metric
 * value: one above INT64_MAX, which only a damaged or crafted record
 * holds, is held at INT64_MAX rather than read as a negative. */
static inline int64_t lumen_value_of(uint64_t figure) {
  return figure > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)figure;
}

/* What decode() returns for a record kind the plugin does not read (none of
 * its collector's): an error naming the kind, which the reader places at
 * the record's file and offset. Skipping it instead would leave its
 * figures out of every view unsaid. `plugin` names the records ("heap"). */
static inline int lumen_unknown_record_kind(const char* plugin, uint16_t kind, char* error, size_t error_size) {
  snprintf(error, error_size, "%s record of kind %u is not one this lumen reads (experiment format %u.%u)", plugin,
           (unsigned)kind, LUMEN_FORMAT_MAJOR, LUMEN_FORMAT_MINOR);
  return 1;
}

/* ---- views a plugin adds to er_print (e.g. -leaks, -syncobjects) ---- */

typedef struct lumen_view_column {
  const char* key;    /* in CSV and JSON: "count", "bytes" */
  const char* title;  /* in text: "Leaked bytes" */
  lumen_metric_unit unit;
} lumen_view_column;

typedef struct lumen_frame_name {
  const char* function;    /* valid until the view returns */
  const char* load_object;
} lumen_frame_name;

/* A frame's source line (lumen_view_host.stack_lines_at): `file` as the
 * debug information names it, valid until the view returns; NULL (line 0)
 * where it has none. */
typedef struct lumen_frame_line {
  const char* file;
  int32_t line;
  int32_t reserved;
} lumen_frame_line;

/* A part of lumen_view_host.for_each_record_in_parts. */
typedef struct lumen_record_part {
  size_t index;        /* parts are numbered in file order from 0 */
  size_t experiment;   /* the experiment it belongs to, in reading order */
  /* Replaces lumen_view_host.context for selected, map_epoch and
   * record_failed about the part's records, from its visit on any thread;
   * and after for_each_record_in_parts returned, until the view returns,
   * for selected, map_epoch and stack_frames_at (on the view's thread) about
   * anything the part read. */
  void* context;
} lumen_record_part;

/* What er_print provides to a plugin's view. Records are those of the
 * plugin's data file in every selected experiment, in file order. Output is
 * any number of tables (each row may carry a stack, printed under it) and
 * summary lines; er_print renders them as text, CSV or JSON. */
typedef struct lumen_view_host {
  uint32_t size;
  void* context;
  /* ---- reading the records ---- */
  void (*for_each_record)(void* context, void (*visit)(void* arg, uint16_t kind, const void* payload,
                                                       uint16_t payload_bytes, uint32_t thread_id),
                          void* arg);
  /* The records for_each_record visits, in parts: runs of whole blocks of
   * one data file. begin_part(arg, part) is called for every part, in file
   * order, on the view's thread, before any record is read, and returns the
   * part's state; then each part's records are visited in file order by
   * visit(state, ...), several parts at once on er_print's analysis threads
   * (er_print --threads). Returns when every part is read. A view that
   * merges its parts' results in part order reads what one pass would. */
  void (*for_each_record_in_parts)(void* context,
                                   void* (*begin_part)(void* arg, const struct lumen_record_part* part),
                                   void (*visit)(void* state, uint16_t kind, const void* payload,
                                                 uint16_t payload_bytes, uint32_t thread_id),
                                   void* arg);
  /* Called while a record is visited (by for_each_record, or by a part's
   * visit with the part's context) when the view cannot read it: the
   * remaining records of that pass or part are not visited, and the view's
   * failure is reported as `message` with the record's file and offset
   * (when several parts fail, the first in the file). */
  void (*record_failed)(void* context, const char* message);
  /* Whether something that happened at `time_ns` on kernel thread
   * `thread_id`, in the experiment whose record is being visited, is in the
   * user's selection (-rank_select, -thread_select, -sample_select, the
   * time and thread clauses of -filters); a view counts only what is, so it
   * shows the events the function views count. Records carry no CPU, so
   * -cpu_select does not apply (er_print says so), and a function filter
   * is refused by name. */
  int (*selected)(void* context, uint64_t time_ns, uint32_t thread_id);

  /* ---- resolving stacks and addresses ---- */
  /* A library unloaded with dlclose leaves its addresses to the next one
   * loaded there, so a stack resolves against the load objects mapped when
   * its event happened (as the function views do). The load-object map of
   * the experiment whose record is being visited changes only at loads and
   * unloads; map_epoch numbers its states, so equal (stack id, epoch) pairs
   * resolve to equal frames and a view may resolve each pair once. */
  uint32_t (*map_epoch)(void* context, uint64_t time_ns);
  /* The frames of a stack as resolved at `time_ns`, leaf first; returns
   * how many were written. */
  size_t (*stack_frames_at)(void* context, uint64_t stack_id, uint64_t time_ns, lumen_frame_name* frames,
                            size_t max_frames);
  /* The source line of each frame of a stack as resolved at `time_ns`,
   * leaf first, where stack_frames_at names its function: a return
   * address at the line of its call. Returns how many were written. */
  size_t (*stack_lines_at)(void* context, uint64_t stack_id, uint64_t time_ns, lumen_frame_line* lines,
                           size_t max_lines);
  /* The data symbol (global or static variable) holding `address` in the
   * target, or NULL. */
  const char* (*data_symbol)(void* context, uint64_t address);

  /* ---- output ---- */
  void (*summary)(void* context, const char* key, const char* label, double value, lumen_metric_unit unit);
  void (*table_begin)(void* context, const char* title, const lumen_view_column* columns, size_t column_count);
  /* A row under the stack `stack_id`, which er_print resolves with the
   * final load-object map; LUMEN_NO_STACK for a row without a stack. */
  void (*table_row)(void* context, const char* name, const double* values, uint64_t stack_id);
  /* A row whose stack the view resolved itself (frames from
   * stack_frames_at, copied: they need stay valid only during the call). */
  void (*table_row_frames)(void* context, const char* name, const double* values, const lumen_frame_name* frames,
                           size_t frame_count);
  /* The row limit the user asked for (-limit), 0 for none. */
  size_t row_limit;

  /* ---- what the session decoded already (SDK 1.2) ---- */
  /* The sums of this plugin's metrics `metrics` (names from its metric
   * list) over the events the selection takes, per call stack, from the
   * events the session decoded for an earlier view: no record is read.
   * visit(arg, frames, frame_count, sums) once per stack the plugin's
   * events were recorded at and load-object map state, with any sum not
   * zero: its frames as stack_frames_at resolves them at the events' time
   * (the recorded stack, without a traced call the decoder put at its
   * leaf) and the sums in the order of `metrics`; stacks in the order of
   * their first event. Returns 0 without visiting when the session holds no
   * such events for the current selection: the view reads the records. */
  int (*stack_sums)(void* context, const char* const* metrics, size_t metric_count,
                    void (*visit)(void* arg, const lumen_frame_name* frames, size_t frame_count, const double* sums),
                    void* arg);
  /* Nanoseconds to add to a time of the experiment whose records are being
   * visited (its host's CLOCK_MONOTONIC) to place it on the clock shared by
   * the experiments open together: 0 but for a rank recorded on another
   * host than its job's first. A view that sets times of several
   * experiments side by side (a timeline of ranks) adds it; selected and
   * map_epoch take the experiment's own times. (SDK 1.2) */
  int64_t (*clock_shift_ns)(void* context);

  /* ---- what the plugin read already (SDK 1.9) ---- */
  /* An object the plugin built from its records under the current
   * selection and view mode, kept by the session until they change, so
   * that its views read the records once between them: the object kept
   * under `key` (a name of the plugin's own) if there is one; else what
   * build(arg) returns, read through this host (NULL: nothing to keep, and
   * kept returns NULL). The session owns what kept returns and frees it
   * with release(object), never while a view runs; an object whose
   * reading failed (record_failed) is not kept for later views. A view
   * must not change it. */
  void* (*kept)(void* context, const char* key, void* (*build)(void* arg), void (*release)(void* object),
                void* arg);

  /* ---- the experiment whose records are visited (SDK 1.10) ---- */
  /* Its number as selections name it (EXPID in -filters, from 1), and when
   * it started on its own clock: a record's time minus that start is the
   * TSTAMP a selection names it by. Each 0 outside a visit. */
  uint32_t (*experiment_number)(void* context);
  uint64_t (*experiment_start_ns)(void* context);
} lumen_view_host;


typedef struct lumen_view_def {
  const char* command;  /* er_print command name, without the dash */
  const char* help;
  /* Returns 0, or non-zero with a message in `error`. */
  int (*run)(const lumen_view_host* host, char* error, size_t error_size);
} lumen_view_def;

/* What er_print knows of one experiment, from its header, for configure:
 * a plugin never reads the experiment's files itself. */
typedef struct lumen_experiment_facts {
  uint32_t size;
  const char* directory;       /* the experiment, for messages */
  double clock_mhz;            /* the CPU's clock rate collect recorded; 0: unknown */
  /* The canonical options this plugin collected with, as recorded. */
  const lumen_option_value* options;
  size_t option_count;
  /* The plugins whose data files this experiment holds (this one among
   * them), by name: a metric that details another plugin's (one state of
   * clock profiling's time) may be hidden by default only where that
   * plugin recorded. */
  const char* const* recorded_plugins;
  size_t recorded_plugin_count;
} lumen_experiment_facts;

/* One experiment's metrics. er_print fills it from the descriptor
 * (metrics, derived_metrics, decoder_context NULL) before it calls
 * configure, which may replace any of it. What it points to stays valid
 * while the plugin is loaded (a plugin may hand out one configuration for
 * experiments with equal options). */
typedef struct lumen_configuration {
  uint32_t size; /* er_print's; configure may set any member it covers */
  const lumen_metric_def* metrics;
  size_t metric_count;
  const lumen_derived_metric_def* derived_metrics;
  size_t derived_metric_count;
  void* decoder_context; /* handed to decoder_begin for this experiment's data file */
} lumen_configuration;

/* A plugin whose events are intervals of their thread's time (an MPI call,
 * from entry to exit) may split the time another plugin samples (clock
 * profiling's CPU time) by those intervals. An event of this plugin covers
 * [time_ns - values[duration_metric], time_ns] of its thread. In every
 * experiment that recorded this plugin, er_print gives the value of
 * `sampled_metric` (a keyword of another plugin, whose events are samples
 * taken at time_ns on their thread) to `inside_metric` when the sample
 * falls in one of its thread's intervals and to `outside_metric` otherwise,
 * on the sample's own stack: inside + outside is the sampled metric's
 * total. Both are metrics of this plugin that its decoder leaves at zero.
 * A plugin may declare several splits (interval_split_count): of several
 * sampled metrics into one pair, say. An `outside_metric` of
 * LUMEN_NO_METRIC counts the samples outside in none of this plugin's
 * metrics; `span_name`, when set, adds this plugin's spans of that name
 * (lumen_span) to the intervals. */
#define LUMEN_NO_METRIC ((size_t)-1)
typedef struct lumen_interval_split {
  size_t duration_metric;     /* index in this plugin's metrics */
  const char* sampled_metric; /* keyword, e.g. "user" */
  size_t inside_metric;       /* index in this plugin's metrics */
  size_t outside_metric;      /* index in this plugin's metrics, or LUMEN_NO_METRIC */
  const char* span_name;      /* NULL: no spans */
} lumen_interval_split;

/* A metric of this plugin counting, among other time, a quantity another
 * plugin samples with stacks (Total Thread Time counts the time on a CPU,
 * which clock profiling samples): this plugin's events carry that part in
 * `part_metric` as well. In every experiment where `sampled_metric` was
 * recorded, the views built on stacks (functions, callers and callees,
 * lines, instructions, threads) count as that part, on each thread with
 * samples of it, the samples' values on their own stacks, in `metric` and
 * `part_metric` alike, in place of this plugin's: the part lies where the
 * samples do, and `metric` holds at least the sampled quantity in every
 * row. A thread never sampled keeps this plugin's own part, and views of
 * events one by one (index objects, exports) keep it everywhere. */
typedef struct lumen_sampled_part {
  size_t metric;              /* index in this plugin's metrics */
  size_t part_metric;         /* index in this plugin's metrics */
  const char* sampled_metric; /* keyword of another plugin's metric, e.g. "totalcpu" */
} lumen_sampled_part;

/* Set with designated initializers, LUMEN_SDK_HEAD(lumen_analysis_descriptor)
 * first; a NULL (0) member is one the plugin does not use. Members used by
 * one plugin today (declares_stitches, decoder_merge, process_figures,
 * sampled_part) are here because what they ask of er_print, reading the
 * whole experiment, no plugin can do on its own. */
typedef struct lumen_analysis_descriptor {
  uint32_t size;      /* LUMEN_SDK_HEAD: sizeof as the plugin was built */
  uint16_t sdk_major; /* LUMEN_SDK_VERSION_MAJOR it was built against */
  uint16_t sdk_minor; /* LUMEN_SDK_VERSION_MINOR it was built against */
  const char* name;   /* equal to the collector half's name */
  const char* version;
  const char* data_file;

  /* ---- metrics ---- */
  /* The metrics of every experiment, unless configure says otherwise. */
  const lumen_metric_def* metrics;
  size_t metric_count;
  /* Metrics er_print computes per row as the ratio of two others
   * (lumen_derived_metric_def), shown beside the plugin's metrics; an
   * operand no experiment of the session declares is an error naming it.
   * configure may replace them per experiment. */
  const lumen_derived_metric_def* derived_metrics;
  size_t derived_metric_count;
  /* For a plugin whose metrics depend on how it collected (one metric per
   * hardware counter): declares one experiment's metrics from its facts.
   * er_print calls it once per experiment that recorded the plugin, before
   * reading its data file; experiments configured differently are analysed
   * together (a metric keyword shared by two configurations is one metric).
   * Returns 0, or non-zero with a message in `error`. May be NULL. */
  int (*configure)(const lumen_experiment_facts* experiment, lumen_configuration* configuration, char* error,
                   size_t error_size);

  /* ---- decoding ---- */
  /* Decoding one data file: begin() returns the decoder's state (NULL is a
   * valid state) from the configuration's decoder_context; decode() is
   * called for every record in file order (blocks of different threads
   * interleave, so time order is not guaranteed); end() may emit events
   * that need the whole file (e.g. leaks: allocations never freed) and
   * frees the state; its sink is NULL when decoding was abandoned (a
   * malformed record), and then it only frees. begin and end may be NULL
   * (the state is then the decoder context). Each returns 0, or non-zero
   * with a message in `error` (for decode, the reader then names file and
   * offset). Records are decoded in one pass unless decodes_in_parts
   * says otherwise. */
  void* (*decoder_begin)(void* decoder_context);
  int (*decode)(void* state, uint16_t kind, const void* payload, uint16_t payload_bytes,
                const lumen_event_sink* sink, char* error, size_t error_size);
  int (*decoder_end)(void* state, const lumen_event_sink* sink, char* error, size_t error_size);
  /* Non-zero when decode keeps nothing across records (no decoder_end, no
   * stitches, no pairing of records, nothing shared changed by decode; a
   * state from decoder_begin that decode only reads is fine): er_print may
   * then decode parts of the data file (runs of whole blocks) on several
   * threads at once, each part with a state of its own from decoder_begin,
   * and merge the parts in file order. The sink's calls stay in order
   * within a part; the ids artificial_stack and traced_call_stack return
   * and the names name_thread gives are made the file's as if decoded in
   * one pass. Zero: one pass over the file on one thread. A decoder with
   * decoder_end (or one that pairs records) needs decoder_merge as well. */
  int decodes_in_parts;
  /* Lets a decoder that keeps state across records (decoder_end emits what
   * needs the whole file) be decoded in parts too, with decodes_in_parts
   * set: each part's state decodes its records (what decode emits is
   * aggregated per part as above); then, in file order, merge(state,
   * later) takes into the first part's state what the next part's kept, as
   * if `state` had decoded that part's records after its own (er_print then
   * ends `later` with a NULL sink, which only frees it); decoder_end runs
   * once, on the merged state, for the whole file. Returns 0, or non-zero
   * with a message in `error`. May be NULL. */
  int (*decoder_merge)(void* state, void* later, char* error, size_t error_size);
  /* Non-zero when the decoder declares stitches (sink->stitch): er_print
   * decodes this plugin's data file first in the modes that need them. */
  int declares_stitches;

  /* ---- views ---- */
  const lumen_view_def* views;
  size_t view_count;
  /* How this plugin's frames show in each view mode (see lumen_view_mode).
   * May be NULL. */
  lumen_fold_stack fold_stack;

  /* ---- other plugins' samples ---- */
  /* Splitting another plugin's samples by this plugin's intervals
   * (lumen_interval_split): interval_split_count of them. May be NULL. */
  const lumen_interval_split* interval_splits;
  size_t interval_split_count;
  /* A metric whose part another plugin samples on stacks (lumen_sampled_part). May be NULL. */
  const struct lumen_sampled_part* sampled_part;

  /* ---- the process's own figures ---- */
  /* The process's own figures (the kernel's counts, not samples) that some
   * of this plugin's metrics may be compared with: -statistics and
   * -overview show each beside its metric's <Total>, as they show the
   * process's rusage beside CPU time. Called for every record of the
   * plugin's data file of an experiment (without the user's filters: the
   * figures are the process's); it calls `figure` for each figure the
   * record carries, with the keyword of one of its metrics, a title, and
   * an amount in that metric's unit; amounts of one keyword add up over
   * the experiment's records. Returns 0, or non-zero for a record it
   * cannot read (then nothing of that file is shown). May be NULL. */
  int (*process_figures)(uint16_t kind, const void* payload, uint16_t payload_bytes,
                         void (*figure)(void* context, const char* metric, const char* title, double amount),
                         void* context);
} lumen_analysis_descriptor;

typedef const lumen_analysis_descriptor* (*lumen_analysis_factory)(void);

#ifdef __cplusplus
}
#endif

#endif /* LUMEN_ANALYSIS_PLUGIN_H */
