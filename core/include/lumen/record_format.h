/* The experiment's data-file format, declared once for writer and reader.
 *
 * A data file is a sequence of blocks. Each block belongs to one thread of the
 * target and starts with a block header; records follow back to back, each a
 * 4-byte record word (kind in the low 16 bits, payload bytes in the high 16)
 * and its payload padded to 4 bytes. The writer stores the payload first and
 * the record word last (release), so a reader that meets a zero word has
 * reached the end of what this block holds: a torn tail after a crash, or
 * space the thread never used. Every record is valid on its own. Kind 0 is
 * reserved (a writer refuses it), so a record word is never zero.
 *
 * Format versions: every block header, and the experiment's header.yaml,
 * state the format version. A reader refuses any major version but its own,
 * older or newer. A minor version only appends record kinds or trailing
 * fields: a reader reads the fields it knows, and a plugin's decoder
 * refuses a kind it does not know, naming it.
 */
#ifndef LUMEN_RECORD_FORMAT_H
#define LUMEN_RECORD_FORMAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LUMEN_FORMAT_MAJOR 1u
#define LUMEN_FORMAT_MINOR 2u  /* 1: the states plugin's intervals say when each stack describes the thread;
                                  2: a dynamic-code record may name the object holding its code */

#define LUMEN_BLOCK_MAGIC 0x424d554cu /* "LUMB" little-endian */
#define LUMEN_BLOCK_BYTES (64u * 1024u)
#define LUMEN_RECORD_ALIGN 4u
#define LUMEN_NO_STACK UINT64_MAX
#define LUMEN_MAX_STACK_DEPTH 256u

typedef struct lumen_block_header {
  uint32_t magic;
  uint16_t format_major;
  uint16_t format_minor;
  uint32_t block_bytes; /* including this header */
  uint32_t thread_id;   /* kernel tid of the writing thread */
} lumen_block_header;

static inline uint32_t lumen_record_word(uint16_t kind, uint16_t payload_bytes) {
  return (uint32_t)kind | ((uint32_t)payload_bytes << 16);
}
static inline uint16_t lumen_record_kind(uint32_t word) { return (uint16_t)(word & 0xffffu); }
static inline uint16_t lumen_record_payload_bytes(uint32_t word) { return (uint16_t)(word >> 16); }
static inline uint32_t lumen_record_span(uint16_t payload_bytes) {
  return 4u + (((uint32_t)payload_bytes + LUMEN_RECORD_ALIGN - 1u) & ~(LUMEN_RECORD_ALIGN - 1u));
}

/* ---- the runtime's own data files ---- */

#define LUMEN_STACKS_FILE "stacks"
#define LUMEN_LOADOBJECTS_FILE "loadobjects"
#define LUMEN_SAMPLES_FILE "samples"

enum {
  LUMEN_RECORD_STACK = 1,      /* in "stacks"      */
  LUMEN_RECORD_LOADOBJECT = 2, /* in "loadobjects" */
  LUMEN_RECORD_SAMPLE = 3,     /* in "samples"     */
  LUMEN_RECORD_DYNAMIC_CODE = 4 /* in "loadobjects": collector_func_load/unload */
};

/* Code the program generated at run time and described with
 * collector_func_load (size > 0) or withdrew with collector_func_unload
 * (size == 0); also the kernel's functions in er_kernel's experiments.
 * Followed by `name_bytes` bytes of the function's name, then
 * `object_bytes` bytes of the name of the object holding it ("<Kernel>", a
 * module); without one (0, as before format 1.2) it is "<dynamic code>". */
typedef struct lumen_dynamic_code_record {
  uint64_t time_ns;
  uint64_t start;
  uint64_t size;
  uint32_t name_bytes;
  uint32_t object_bytes;
} lumen_dynamic_code_record;

/* Why a sample point was recorded. */
enum {
  LUMEN_SAMPLE_START = 1,    /* collection began          */
  LUMEN_SAMPLE_PERIODIC = 2, /* collect -S                */
  LUMEN_SAMPLE_SIGNAL = 3,   /* collect -l SIGNAL         */
  LUMEN_SAMPLE_API = 4,      /* collector_sample(name)    */
  LUMEN_SAMPLE_END = 5       /* collection ended          */
};

/* Process-wide figures at a sample point, cumulative since the process
 * started (the reader takes differences). Followed by `name_bytes` bytes of
 * the sample's name (API samples). */
typedef struct lumen_sample_record {
  uint64_t time_ns;
  uint64_t user_ns;
  uint64_t system_ns;
  uint64_t minor_faults;
  uint64_t major_faults;
  uint64_t voluntary_switches;
  uint64_t involuntary_switches;
  uint64_t blocks_in;
  uint64_t blocks_out;
  uint64_t resident_bytes; /* at the sample point, not cumulative */
  uint32_t reason;         /* LUMEN_SAMPLE_* */
  uint32_t name_bytes;
} lumen_sample_record;

enum {
  LUMEN_STACK_TRUNCATED = 1u,      /* deeper than LUMEN_MAX_STACK_DEPTH */
  LUMEN_STACK_LEAF_IS_RETURN = 2u  /* leaf is a return address, not the PC */
};

/* Followed by `depth` uint64_t program counters, leaf first. Frames after
 * the leaf are return addresses; so is the leaf with LUMEN_STACK_LEAF_IS_RETURN
 * (a stack captured in an interposer rather than by a signal). */
typedef struct lumen_stack_record {
  uint64_t stack_id;
  uint32_t depth;
  uint32_t flags; /* LUMEN_STACK_* */
} lumen_stack_record;

enum { LUMEN_LOADOBJECT_MAPPED = 1, LUMEN_LOADOBJECT_UNMAPPED = 2 };

/* Followed by `path_bytes` bytes of path (no terminating NUL). */
typedef struct lumen_loadobject_record {
  uint64_t time_ns;
  uint64_t load_bias; /* address minus file virtual address */
  uint64_t start;     /* lowest mapped address of its PT_LOAD segments */
  uint64_t end;       /* one past the highest */
  uint32_t event;     /* LUMEN_LOADOBJECT_* */
  uint32_t path_bytes;
} lumen_loadobject_record;

#ifdef __cplusplus
}
static_assert(sizeof(lumen_block_header) == 16, "block header layout");
static_assert(sizeof(lumen_stack_record) == 16, "stack record layout");
static_assert(sizeof(lumen_loadobject_record) == 40, "load-object record layout");
static_assert(sizeof(lumen_sample_record) == 88, "sample record layout");
static_assert(sizeof(lumen_dynamic_code_record) == 32, "dynamic code record layout");
static_assert(LUMEN_BLOCK_BYTES % 4096u == 0, "blocks are mapped page by page");
#endif

#endif /* LUMEN_RECORD_FORMAT_H */
