/* lumen plugin ABI: what every plugin shared object exports.
 *
 * The SDK is these headers (installed as include/lumen/) and the CMake
 * package lumenConfig.cmake with lumen_add_plugin(); docs/plugins.md walks
 * through building one out of tree.
 *   plugin_abi.h        descriptors' common parts: options, collect flags,
 *                       metrics, the ABI version
 *   collector_plugin.h  the collector half and the runtime's services
 *                       (which of them a signal handler may call)
 *   analysis_plugin.h   the analysis half: decoding records into events,
 *                       metrics, er_print views
 *   record_format.h     the data-file format records are stored in
 *   collector_support.h C++ helpers for collector halves: the next
 *                       definition of an interposed function, the re-entry
 *                       guard, errno kept, symbol versions
 *
 * A plugin is a directory holding two shared objects:
 *   collector.so  exports  const lumen_collector_descriptor* lumen_collector_plugin(void);
 *   analysis.so   exports  const lumen_analysis_descriptor*  lumen_analysis_plugin(void);
 * Both descriptors carry the plugin's name, its data file's name and
 * LUMEN_PLUGIN_ABI_VERSION as it was when the plugin was built. The loader
 * refuses a descriptor whose abi_version differs from its own, naming the file.
 *
 * ABI rule: any change to a struct in this directory that moves a field or
 * changes a signature bumps LUMEN_PLUGIN_ABI_VERSION. Fields are only ever
 * appended in a new version.
 */
#ifndef LUMEN_PLUGIN_ABI_H
#define LUMEN_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2: lumen_event_sink.artificial_stack.
 * 3: lumen_collector_hooks.leave_out; lumen_view_host.selected.
 * 4: what was looked up by name is a descriptor field (host_hooks,
 *    configure, interval_split, derived_metrics); fork_child; configure
 *    returns one experiment's metrics (lumen_configuration) and receives its
 *    header facts (lumen_experiment_facts); decoder_begin takes the
 *    configuration's decoder context; lumen_event.values points to the
 *    decoder's values (no cap on a plugin's metric count).
 * 5: lumen_view_host.map_epoch, stack_frames_at and table_row_frames: a
 *    view resolves each stack with the load objects of its event's time;
 *    lumen_runtime.set_frame_provider (frames of a managed runtime, such as
 *    Java's, in captured stacks).
 * 6: view modes: lumen_event_sink.stitch (lumen_stitch) and the analysis
 *    descriptor's fold_stack and declares_stitches;
 *    lumen_event_sink.traced_call_stack (the traced call as the leaf);
 *    lumen_runtime.run_periodic, adopt_fd, close_fd,
 *    capture_stack_of_blocked and latest_stack_of_thread: sampling threads
 *    that are off the CPU without signalling them.
 * 7: lumen_event_sink.name_thread: a thread's name, and whether it is a
 *    runtime's own housekeeping thread; and
 *    timelines: lumen_event_sink.span (lumen_span) and level: intervals
 *    and quantities over time that exports and reports draw and no metric
 *    counts.
 * 8: lumen_runtime.read_task_file: a thread's /proc file read without a
 *    descriptor in the program's table; lumen_metric_def.default_flavors
 *    and hidden_by_default: what er_print shows when no metric list is
 *    given, and lumen_experiment_facts.recorded_plugins, so configure may
 *    hide a metric by what else recorded; lumen_analysis_descriptor.
 *    decodes_in_parts: a decoder that keeps nothing across records, so
 *    er_print may decode parts of its file on several threads;
 *    lumen_runtime.observe_signal: a plugin annotates another's samples;
 *    lumen_runtime.start_thread: a plugin's background thread, the
 *    runtime's own.
 * 9: lumen_analysis_descriptor.decoder_merge: a decoder that keeps state
 *    across records (leaks) decoded in parts too, its parts' states merged;
 *    lumen_view_host.for_each_record_in_parts (lumen_record_part) and
 *    record_failed: views read in parts on several threads, and a record a
 *    view cannot read is reported with its file and offset;
 *    lumen_runtime.read_task_files (lumen_task_file): several /proc files
 *    read in one request of the runtime's reading thread;
 *    lumen_analysis_descriptor.process_figures: the process's own figures
 *    that -statistics and -overview compare a plugin's metrics with;
 *    lumen_event_sink.describe_code (lumen_code_description): a decoder
 *    gives the source file and lines of generated code (a managed
 *    runtime's methods), so code-level views place its frames;
 *    lumen_runtime.map_change_ns: the time of the latest load-object map
 *    change, for plugins that stamp events with a clock of their own.
 * 10: lumen_code_description.machine_code, machine_code_bytes and machine:
 *    a decoder gives generated machine code's bytes (a JIT-compiled
 *    method's), which -disasm disassembles at their addresses;
 *    lumen_task_file.tid LUMEN_TASK_READER: the runtime's reading thread's
 *    own /proc/thread-self files.
 * 11: lumen_event_sink.record_thread: the thread that wrote the record a
 *    decoder is decoding (the MPI plugin's compact call record leaves it
 *    out); lumen_runtime.collector_thread_ids: the collector's own threads
 *    alive now (the states sampler subtracts their CPU time from the
 *    process's CPU-time clock).
 * 12: lumen_runtime.latest_now_of_thread: the calling thread's latest
 *    now_ns() reading, which a plugin's coarser clock never stamps before;
 *    lumen_runtime.capture_stack_reusing (lumen_capture_cache): a call
 *    site's stack reused, without unwinding, while everything the last
 *    unwinding read is unchanged.
 * 13: lumen_runtime.thread_created_ns: when the calling thread's creator
 *    asked for it, so a plugin counts a new thread's kernel counters (zero
 *    at its clone) from there without reading them when it begins.
 * 14: lumen_frame_provider's stack_flags: a provider says whether the stack
 *    it wrote is cut (a Java stack deeper than the frames kept).
 * 15: lumen_runtime.latest_stacks_of_thread (lumen_latest_stacks): a
 *    thread's latest sample of its running code and its time, besides its
 *    latest captured stack; lumen_analysis_descriptor.sampled_part
 *    (lumen_sampled_part): a metric that counts a quantity another plugin
 *    samples places that part at the samples; interval_split_count and
 *    lumen_interval_split.span_name, LUMEN_NO_METRIC: several splits, by
 *    spans too, with no metric for the samples outside;
 *    lumen_view_host.stack_lines_at (lumen_frame_line): a view places a
 *    stack's frames at their source lines. */
#define LUMEN_PLUGIN_ABI_VERSION 15u

/* What a plugin's factory functions (and an interposer's definitions) are
 * marked with: plugins are built with hidden visibility, so only these are
 * exported. */
#ifdef __cplusplus
#define LUMEN_EXPORT extern "C" __attribute__((visibility("default")))
#else
#define LUMEN_EXPORT __attribute__((visibility("default")))
#endif

#define LUMEN_COLLECTOR_FACTORY "lumen_collector_plugin"
#define LUMEN_ANALYSIS_FACTORY "lumen_analysis_plugin"

/* ---- options: declared by the collector half, validated by collect ---- */

typedef enum lumen_option_kind {
  LUMEN_OPTION_DURATION = 1, /* canonical value: integer nanoseconds        */
  LUMEN_OPTION_INTEGER = 2,  /* canonical value: decimal integer            */
  LUMEN_OPTION_STRING = 3,   /* canonical value: the string itself          */
  LUMEN_OPTION_BOOLEAN = 4   /* canonical value: "1" or "0"                 */
} lumen_option_kind;

typedef struct lumen_option_def {
  const char* name;          /* key in a profile: plugins: NAME: {key: value} */
  lumen_option_kind kind;
  const char* default_value; /* in the syntax a user would write            */
  int64_t min;               /* inclusive bounds on the canonical value     */
  int64_t max;               /* (ignored for strings and booleans)          */
  int64_t bare_unit_ns;      /* DURATION: unit of a number without suffix   */
  const char* help;
} lumen_option_def;

/* A value alias for the plugin's collect flag: "-p hi" means interval=1ms. */
typedef struct lumen_flag_alias {
  const char* word;
  const char* value;
} lumen_flag_alias;

/* The collect command-line flag a plugin owns (Oracle's -p, -H, -s, ...).
 * "-FLAG off" drops the plugin from the plan; any other value enables it and
 * sets `option` to the alias's value or to the value as given. */
typedef struct lumen_collect_flag {
  const char* flag;               /* without the dash, e.g. "p"; NULL: none */
  const char* option;             /* option the value is assigned to        */
  const lumen_flag_alias* aliases;
  size_t alias_count;
  const char* help;               /* one line for collect --help            */
} lumen_collect_flag;

/* A canonical option value handed to a started plugin. */
typedef struct lumen_option_value {
  const char* name;
  const char* value;
} lumen_option_value;

/* [signal-safe] The value of option `name`, or `fallback` when it is not
 * among `options`. */
static inline const char* lumen_option(const lumen_option_value* options, size_t count, const char* name,
                                       const char* fallback) {
  for (size_t i = 0; i < count; ++i) {
    const char* a = options[i].name;
    const char* b = name;
    while (*a != '\0' && *a == *b) ++a, ++b;
    if (*a == *b) return options[i].value;
  }
  return fallback;
}

/* ---- metrics: declared by the analysis half ---- */

typedef enum lumen_metric_unit {
  LUMEN_UNIT_NANOSECONDS = 1, /* shown as seconds */
  LUMEN_UNIT_COUNT = 2,
  LUMEN_UNIT_BYTES = 3,
  LUMEN_UNIT_RATIO = 4        /* a derived metric: one value per another */
} lumen_metric_unit;

enum {
  LUMEN_FLAVOR_EXCLUSIVE = 1u,
  LUMEN_FLAVOR_INCLUSIVE = 2u,
  LUMEN_FLAVOR_ATTRIBUTED = 4u
};

/* A metric's kind is its unit: time (nanoseconds), a count, or bytes.
 * Keywords are unique across all plugins loaded together (collect and
 * er_print refuse two plugins defining one keyword). */
typedef struct lumen_metric_def {
  const char* keyword;   /* Oracle's keyword where one exists: "user" */
  const char* title;     /* "User CPU Time"                           */
  lumen_metric_unit unit;
  uint32_t flavors;      /* LUMEN_FLAVOR_* bits                        */
  const char* description;
  /* ---- appended in ABI version 8 ---- */
  /* The flavors er_print's default metric list shows (0: all of
   * `flavors`): a count that only makes sense inclusive, such as a heap
   * allocation count, shows inclusive only. */
  uint32_t default_flavors;
  /* Non-zero: left out of the default metric list (a detail of another
   * metric shown there, such as one state of total thread time); named in
   * -metrics it shows as any other. */
  int hidden_by_default;
} lumen_metric_def;

/* A metric computed for every row (function, object, edge, <Total>) as the
 * ratio of two other metrics' values in that row: CPI = cycles / insts. Its
 * flavors are those both operands have; where the denominator is 0 it is 0.
 * Operands are keywords of metrics of the same experiments (any plugin's).
 * Its unit is LUMEN_UNIT_RATIO: the operands' values are divided as they are
 * (nanoseconds, counts, bytes). */
typedef struct lumen_derived_metric_def {
  const char* keyword;     /* "CPI" */
  const char* title;       /* "CPI" */
  const char* numerator;   /* "cycles" */
  const char* denominator; /* "insts"  */
  const char* description;
} lumen_derived_metric_def;

#ifdef __cplusplus
}
#endif

#endif /* LUMEN_PLUGIN_ABI_H */
