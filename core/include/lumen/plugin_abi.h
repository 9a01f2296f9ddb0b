/* lumen plugin SDK 1: what every plugin shared object exports.
 *
 * The SDK is these headers (installed as include/lumen/) and the CMake
 * package lumenConfig.cmake with lumen_add_plugin(); docs/plugins.md walks
 * through building one out of tree.
 *   plugin_abi.h        the SDK version, the size rule, and what both
 *                       descriptors share: options, collect flags, metrics
 *   collector_plugin.h  the collector half and the runtime's services,
 *                       grouped by concern (which a signal handler may call)
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
 *
 * Build once, load in every 1.x. Each descriptor begins with LUMEN_SDK_HEAD:
 * its own size and the SDK version the plugin was built against. A lumen
 * offering SDK M.n loads a plugin built against M.m when m <= n, and refuses
 * one built against another major or a newer minor, naming the plugin, the
 * version it needs and the one it offers.
 *
 * How the structs grow within a major version:
 *  * a struct that begins with `uint32_t size` grows only at its end; its
 *    producer sets `size` to sizeof the struct as it was built. The reader
 *    reads only the members `size` covers and treats the rest as absent
 *    (NULL, 0). The host does this for what plugins hand it (descriptors,
 *    hooks, code descriptions); a plugin asks with LUMEN_PROVIDES for what
 *    the host hands it (runtime services, sinks, view hosts).
 *  * every other struct here (array elements, values passed by pointer to
 *    a call) keeps its layout for all of 1.x: what a later minor adds to it
 *    comes as a new member of a sized struct, a new function taking a new
 *    type.
 *  * a member of a sized struct may also be NULL where a host cannot
 *    provide it (a reader that draws no timeline has no `span`); the
 *    header says which.
 */
#ifndef LUMEN_PLUGIN_ABI_H
#define LUMEN_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The SDK version a plugin is built against: the only place it is set. */
#define LUMEN_SDK_VERSION_MAJOR 1u
#define LUMEN_SDK_VERSION_MINOR 10u

/* The first members of each descriptor, set with LUMEN_SDK_HEAD(type) in
 * its designated initializer; every major version keeps them first. */
#define LUMEN_SDK_HEAD(type) \
  .size = (uint32_t)sizeof(type), .sdk_major = LUMEN_SDK_VERSION_MAJOR, .sdk_minor = LUMEN_SDK_VERSION_MINOR

/* [signal-safe] Whether the sized struct `table` (a pointer, NULL for
 * absent) has member `member` set: its `size` covers the member and the
 * member is not NULL. A plugin asks before calling what a host may lack. */
#define LUMEN_PROVIDES(table, member)                                                               \
  ((table) != NULL &&                                                                               \
   (table)->size >= (size_t)((const char*)&(table)->member - (const char*)(table)) + sizeof((table)->member) && \
   (table)->member != NULL)


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
