/* The analysis half of a plugin: a decoder and a metric provider, on the host.
 *
 * er_print reads every data file of an experiment block by block; for each
 * record of a data file claimed by a plugin it calls that plugin's decode(),
 * which turns the record into zero or more events. An event carries a stack
 * id and one value per metric the plugin declares; the core does the rest
 * (symbols, exclusive/inclusive/attributed aggregation, views).
 */
#ifndef LUMEN_ANALYSIS_PLUGIN_H
#define LUMEN_ANALYSIS_PLUGIN_H

#include <lumen/plugin_abi.h>
#include <lumen/record_format.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lumen_event {
  uint64_t time_ns;   /* CLOCK_MONOTONIC, as recorded */
  uint64_t stack_id;  /* id in the experiment's stack table */
  uint32_t thread_id; /* kernel thread id */
  int32_t cpu;        /* -1 when unknown */
  /* One value per metric in the plugin's declaration order, in the metric's
   * unit (nanoseconds, count, bytes). */
  int64_t values[LUMEN_MAX_PLUGIN_METRICS];
} lumen_event;

typedef struct lumen_event_sink {
  void* context;
  void (*emit)(void* context, const lumen_event* event);
} lumen_event_sink;

typedef struct lumen_analysis_descriptor {
  uint32_t abi_version; /* LUMEN_PLUGIN_ABI_VERSION */
  const char* name;     /* equal to the collector half's name */
  const char* version;
  const char* data_file;
  const lumen_metric_def* metrics;
  size_t metric_count;  /* at most LUMEN_MAX_PLUGIN_METRICS */

  /* Decodes one record. Returns 0, or non-zero with a message in `error`
   * when the record is malformed (the reader then names file and offset). */
  int (*decode)(uint16_t kind, const void* payload, uint16_t payload_bytes,
                const lumen_event_sink* sink, char* error, size_t error_size);
} lumen_analysis_descriptor;

typedef const lumen_analysis_descriptor* (*lumen_analysis_factory)(void);

#ifdef __cplusplus
}
#endif

#endif /* LUMEN_ANALYSIS_PLUGIN_H */
