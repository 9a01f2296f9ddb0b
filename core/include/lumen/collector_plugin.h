/* The collector half of a plugin: an event source inside the target process.
 *
 * The runtime (liblumen_collector.so) owns threads, the experiment writer,
 * call-stack capture and the load-object map; an event source only decides
 * *when* to record *what*. Sampling sources arm a timer or counter per thread;
 * tracing sources interpose on library calls (and so must be preloaded, which
 * collect does for every collector half).
 *
 * Contract for every function below: the runtime calls start/stop once, from
 * an ordinary (non-signal) context; thread_begin/thread_end run on the thread
 * concerned, from ordinary context. Services marked [signal-safe] may be
 * called from a signal handler; the others may not.
 *
 * What else the runtime gives a plugin:
 *   options     start() receives every declared option in canonical form
 *               (durations in ns, booleans "1"/"0"), already validated by
 *               collect against the declaration; defaults filled in.
 *   per-thread  thread_begin/thread_end run on each thread the target
 *   state       creates (the main thread too); a plugin keeps per-thread
 *               data in its own `static __thread` variables (initial-exec
 *               TLS: the half is preloaded, so they are safe to touch in a
 *               signal handler, and never allocate).
 *   loading     collect preloads every planned collector half (LD_PRELOAD),
 *               so a half may define libc functions to interpose on them;
 *               the runtime then finds its factory in the loaded object.
 *               Nothing may run before start() but forwarding.
 */
#ifndef LUMEN_COLLECTOR_PLUGIN_H
#define LUMEN_COLLECTOR_PLUGIN_H

#include <lumen/plugin_abi.h>
#include <lumen/record_format.h>
#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int lumen_stream; /* a data file opened for writing; < 0: none */

/* A thread's latest stacks, kept by the runtime for off-CPU samplers
 * (lumen_stack_service.latest_stacks_of_thread). `stack` is the latest captured
 * on the thread by any plugin (a traced call's, a sample's); `sample_stack`
 * the latest captured from a profiling signal's context (clock or counter
 * overflow profiling: where the thread's own code was running), and
 * `sample_ns` its now_ns() time. LUMEN_NO_STACK (sample_ns 0) before the
 * first. A reading racing a sample may pair its stack with the previous
 * sample's time. */
typedef struct lumen_latest_stacks {
  uint64_t stack;
  uint64_t sample_ns;
  uint64_t sample_stack;
} lumen_latest_stacks;

/* A plugin's handler for a signal the runtime dispatches. Returns 1 when the
 * signal was the plugin's own (e.g. its timer's), 0 to pass it on to the
 * handler the target installed, exactly as if the collector were absent. */
typedef int (*lumen_signal_handler)(int signal, siginfo_t* info, void* ucontext);

/* [signal-safe] A frame provider: lets a plugin describe frames the native
 * unwinder cannot (a managed runtime's methods). capture_stack calls it, in
 * the handler, for every stack captured from a signal's `ucontext`, and for
 * a traced call's stack (capture_stack(NULL, ...), in the interposer) with
 * the calling thread's own context; each time with the native frames it unwound (leaf first; the collector's own left out) and
 * `native_in_objects`, how many of them, from the leaf, lie in a loaded
 * object's code (the first that does not is typically generated code: a
 * JIT's or an interpreter's). It writes the stack to record into `frames`
 * (leaf first, at most `capacity`) and returns its depth; 0 records no
 * stack; -1 keeps the native frames as they are. `stack_flags` holds the
 * native stack's LUMEN_STACK_* flags (LUMEN_STACK_TRUNCATED: the native
 * frames were cut at LUMEN_MAX_STACK_DEPTH); the provider says whether the
 * stack it wrote is cut, setting or clearing LUMEN_STACK_TRUNCATED, so that
 * analysis ends a cut stack with <Truncated-stack>. A frame it adds is any
 * 64-bit word the plugin describes to analysis (see docs/architecture.md,
 * "Frames of managed code"). */
typedef int (*lumen_frame_provider)(void* ucontext, const uint64_t* native, int native_count,
                                    int native_in_objects, uint64_t* frames, int capacity, uint32_t* stack_flags);

/* One file of a batch of /proc reads (lumen_thread_service.read_task_files): the
 * caller fills in tid, name, buffer and size; the runtime sets `bytes`. */
typedef struct lumen_task_file {
  uint32_t tid;     /* 0: the process's own /proc/self/NAME; LUMEN_TASK_READER:
                     * the reading thread's own (/proc/thread-self/NAME) */
  const char* name; /* a file name under /proc/self/task/TID: "schedstat" */
  char* buffer;
  size_t size;
  long bytes; /* out: the bytes read, or -1 */
} lumen_task_file;

/* lumen_task_file.tid naming the runtime's reading thread itself: a caller
 * that waits for it learns how much of the wait was that thread's work and
 * its wait for a CPU. */
#define LUMEN_TASK_READER 0xffffffffu

/* What lumen_stack_service.capture_stack_reusing keeps between calls from one
 * call site on one thread: what the unwinding read (registers,
 * stack words) and the stack it gave. The caller zero-fills it once and
 * never writes it again; one per call site per thread, never shared. Its
 * size, fixed: a header and the registers of x86-64 (216 bytes) and the
 * words one unwinding may read to be reused (114 of them, 16 bytes each,
 * address and value): a traced call some 40 frames deep reads about as
 * many words. Too large for initial-exec thread-local storage (a tool that
 * dlopens the collector half would find no room in the static TLS block):
 * keep it in zero-filled memory of the plugin's own, one block a thread. */
#define LUMEN_CAPTURE_CACHE_WORDS 256u
typedef struct lumen_capture_cache {
  uint64_t opaque[LUMEN_CAPTURE_CACHE_WORDS];
} lumen_capture_cache;

/* The runtime's services, grouped by concern. Each group is a sized struct
 * (see plugin_abi.h); every group and member below is present in lumen 1.0
 * on every platform it runs on, unless its comment says it may be absent
 * (then ask with LUMEN_PROVIDES). */

/* The experiment's data files and log. */
typedef struct lumen_recording_service {
  uint32_t size;
  /* Opens (or creates) a data file of the experiment. Not signal-safe. */
  lumen_stream (*open_stream)(const char* data_file_name);
  /* [signal-safe] Appends one record to the calling thread's block of the
   * stream. Never blocks: when the thread's writer is busy (the handler
   * interrupted a write on the same thread) or the disk refuses, the record
   * is dropped, counted, and 0 is returned; 1 on success. While recording
   * is paused nothing is written (0, not a drop). */
  int (*write_record)(lumen_stream stream, uint16_t kind, const void* payload, uint16_t payload_bytes);
  /* [signal-safe] Counts a dropped event under the plugin's name; the count
   * is reported in the experiment log at the end. */
  void (*count_drop)(void);
  /* Writes a line to the experiment log ("note" entries). Not signal-safe. */
  void (*log_note)(const char* text);
  /* The founder experiment's directory, where every process of the
   * collection has its sub-experiment (a parallel job's ranks: _rankN.er).
   * Valid until the process ends. Since SDK 1.3 (ask with LUMEN_PROVIDES). */
  const char* (*founder_directory)(void);
  /* [signal-safe] 1 when events happening now are recorded: this process is
   * collected and recording is neither paused (collect -y), outside its
   * window (collect -t) nor stopped by the size limit (collect -L); 0
   * otherwise. A plugin that buffers events and writes them later asks at
   * each event. Since SDK 1.7 (ask with LUMEN_PROVIDES). */
  int (*recording_now)(void);
  /* [signal-safe] write_record for what was recorded earlier or is not an
   * event: a batch of events that happened while recording_now() was 1, a
   * start or settings record that says how the plugin's other records are
   * read, a name that later events refer to. Written while recording is
   * paused or outside its window too (the size limit still stops it).
   * Since SDK 1.7 (ask with LUMEN_PROVIDES). */
  int (*write_kept_record)(lumen_stream stream, uint16_t kind, const void* payload, uint16_t payload_bytes);
} lumen_recording_service;

/* Call stacks, interned in the experiment's stack table (ids). */
typedef struct lumen_stack_service {
  uint32_t size;
  /* [signal-safe] Captures the calling thread's stack and returns its id in
   * the experiment's stack table. With `ucontext` (a signal handler's third
   * argument) the stack starts at the interrupted instruction; without, at
   * the caller of the function calling capture_stack, skipping `skip` more
   * frames. Returns LUMEN_NO_STACK when nothing could be captured, or while
   * recording is paused. */
  uint64_t (*capture_stack)(void* ucontext, int skip);
  /* Not signal-safe (never from a signal handler, never two calls on one
   * `cache` at once). capture_stack(NULL, skip) for a call site reached
   * over and over: the same stack id, interned the same way, and the
   * thread's latest stack kept the same. The unwinding records in `cache`
   * every register it asked for and every word of memory it read outside
   * loaded objects' read-only segments; the next call from the same thread
   * that finds each of them unchanged (and the load-object map, the stack
   * table and the collector's own objects unchanged) returns the recorded
   * id without unwinding: libunwind's result is a function of what it
   * reads, so the id is the stack an unwinding would give now. A call
   * whose read set is larger than the cache holds, or that reads memory
   * that is not this thread's stack, is unwound every time. LUMEN_NO_STACK
   * inside the collector already, or while recording is paused. */
  uint64_t (*capture_stack_reusing)(lumen_capture_cache* cache, int skip);
  /* Not signal-safe; from one thread at a time (an off-CPU sampler's
   * periodic thread). The stack of another thread of the process, blocked
   * in the kernel, unwound from its registers (`pc`, `sp` as
   * /proc/self/task/TID/syscall gives them; `bp` or 0) without signalling
   * it: every memory read is checked, so a stack changed or unmapped
   * meanwhile gives a wrong or short stack, never a fault. The caller
   * discards it if the thread ran meanwhile. Returns the stack's id, or
   * LUMEN_NO_STACK. `stack_end` receives the end of the stack memory the
   * unwinding read, [sp, *stack_end) (0 when over 64 KiB): the same pc and
   * sp over the same bytes there give the same stack, so a caller may keep
   * a hash of them and reuse the id rather than unwind again. Kept in the
   * runtime though one plugin (states) calls it: only the runtime's unwinder
   * knows the load objects and the collector's own frames to leave out. */
  uint64_t (*capture_stack_of_blocked)(uint64_t pc, uint64_t sp, uint64_t bp, uint64_t* stack_end);
  /* [signal-safe] Where the calling thread's latest stacks are kept
   * (lumen_latest_stacks), until its thread_end returns: another thread
   * (an off-CPU sampler) may read the three words at once. */
  const volatile struct lumen_latest_stacks* (*latest_stacks_of_thread)(void);
  /* Not signal-safe. Installs the process's one frame provider (NULL
   * removes it). Returns 0, or -1 when another plugin's is installed. Kept
   * though one plugin (java) installs one: every capture_stack of every
   * plugin calls it. */
  int (*set_frame_provider)(lumen_frame_provider provider);
  /* [signal-safe] (SDK 1.1) Interns the stack `pcs[0..count)`, leaf first,
   * with its LUMEN_STACK_* `flags`, and returns its id (LUMEN_NO_STACK when
   * the table is full or count is 0; more than LUMEN_MAX_STACK_DEPTH frames
   * are cut and flagged truncated). For calls seen before the unwinder was
   * set up (the heap's allocations before collection starts), whose call
   * site alone is known: one return address, LUMEN_STACK_LEAF_IS_RETURN and
   * LUMEN_STACK_TRUNCATED. */
  uint64_t (*intern_stack)(const uint64_t* pcs, uint32_t count, uint32_t flags);
  /* [signal-safe] (SDK 1.4) capture_stack(ucontext, 0), a signal handler's
   * `ucontext` required, with `leaf_pcs[0..leaf_count)` above the
   * interrupted frame, leaf first: the kernel's frames of a sample taken
   * while the thread ran in the kernel (perf_event's call chain: the
   * interrupted kernel PC, then return addresses), which no unwinding of
   * the thread can see. Frames past LUMEN_MAX_STACK_DEPTH are cut from the
   * root end and the stack flagged truncated. */
  uint64_t (*capture_stack_under)(void* ucontext, const uint64_t* leaf_pcs, uint32_t leaf_count);
} lumen_stack_service;

/* The experiment's clock. */
typedef struct lumen_time_service {
  uint32_t size;
  /* [signal-safe] CLOCK_MONOTONIC in nanoseconds: the experiment's time base,
   * read from the TSC where it is invariant (some 11 ns, where clock_gettime
   * takes 25-50 in a virtual machine), within tens of nanoseconds of
   * clock_gettime; a thread's readings never go back. */
  uint64_t (*now_ns)(void);
  /* The two floors of a plugin that stamps its events with a cheaper,
   * coarser clock of its own, so that its events keep their order against
   * everything the runtime stamps (heap tracing's clock uses both).
   *
   * [signal-safe] Where the calling thread's latest now_ns() reading is
   * kept (0 before the first), for that thread only: never stamping an
   * event earlier than this, an event never precedes, on its thread, an
   * event another plugin stamped with now_ns() before it (an OpenMP task's
   * begin, a lock's grant), and lands inside the intervals that event
   * opened. */
  const volatile uint64_t* (*latest_now_of_thread)(void);
  /* [signal-safe] The word holding the time of the latest change the
   * runtime recorded in the load-object map (0: none yet), stored before
   * the call that made the change returns: never stamping earlier than
   * this, an event follows the map change it follows, so its stack
   * resolves against the objects of its time. */
  const volatile uint64_t* (*map_change_ns)(void);
} lumen_time_service;

/* The program's threads and the collector's own. */
typedef struct lumen_thread_service {
  uint32_t size;
  /* [signal-safe] The kernel thread id of the calling thread. */
  uint32_t (*thread_id)(void);
  /* [signal-safe] For a thread the program created with pthread_create
   * while collecting, the CLOCK_MONOTONIC time (now_ns) at which its
   * creator called it, read just before the runtime called the real
   * pthread_create: before the kernel made the thread, whose counters
   * (CPU time, run delay, context switches) start at zero there. 0 for any
   * other thread (the main thread, a forked child's, one created before
   * collection began). */
  uint64_t (*thread_created_ns)(void);
  /* [signal-safe] Copies the thread ids of the collector's own threads
   * alive now (the runtime's periodic threads, its /proc reading thread,
   * threads of start_thread), at most `capacity`, and returns how many.
   * A sampler weighing the process's CPU-time clock against its threads'
   * subtracts theirs. */
  size_t (*collector_thread_ids)(uint32_t* tids, size_t capacity);
  /* Not signal-safe. Reads each of `count` files /proc/self/task/TID/NAME
   * (lumen_task_file), in order, in one request of the runtime's reading
   * thread, and returns how many were read. The files are opened on that
   * thread, with a descriptor table of its own, so a read never takes a
   * number from the program's range, not even for a moment: a program
   * opening descriptors up to its limit, or counting on which number comes
   * next, sees what it would see without the collector. */
  size_t (*read_task_files)(lumen_task_file* files, size_t count);
  /* Not signal-safe. (SDK 1.4) Runs `work(argument)` on that same thread
   * and returns its result: a descriptor `work` opens takes no number
   * from the program's table, not even for a moment. What it maps stays
   * mapped for every thread; a descriptor it leaves open stays in that
   * thread's table, out of the program's reach. For kernel objects needed
   * through a mapping only (a perf_event ring: opened for a thread of the
   * program, mapped, closed). Returns -1 with errno ENOTSUP, without
   * running `work`, where the thread cannot have a table of its own; the
   * caller then decides whether a moment in the program's table is
   * acceptable. */
  long (*run_in_own_table)(long (*work)(void* argument), void* argument);
} lumen_thread_service;

/* Signals the runtime dispatches. */
typedef struct lumen_signal_service {
  uint32_t size;
  /* Not signal-safe. Routes `signal` to `handler` first. Several handlers
   * may share a signal (each is asked in turn until one takes it). The
   * target keeps its own handler for that signal (its sigaction/signal
   * calls are recorded, not applied, and it runs whenever no handler takes
   * the signal), and it cannot block the signal. Returns 0, or -1 when the
   * signal cannot be claimed. */
  int (*claim_signal)(int signal, lumen_signal_handler handler);
  /* Not signal-safe. Has `observer` run on every delivery of `signal`
   * (a claimed one, such as clock profiling's SIGPROF), before the handlers
   * that claimed it, on the thread it was delivered to; its return value is
   * ignored, so it never takes the signal from them. Observers annotate
   * another plugin's samples (the OpenMP plugin records the thread's OMPT
   * state at each clock sample). Returns 0, or -1 when no slot is left. */
  int (*observe_signal)(int signal, lumen_signal_handler observer);
} lumen_signal_service;

/* Work on collector threads the program never sees: every signal blocked
 * there, nothing they call traced, no thread_begin, named in the
 * experiment log as the collector's (analysis leaves them out of the
 * program's threads). */
typedef struct lumen_work_service {
  uint32_t size;
  /* Not signal-safe. Calls `tick` every `period_ns` of CLOCK_MONOTONIC on a
   * thread of its own. Periodic work that is not CPU-time sampling belongs
   * there: a signal cuts the program's sleeps short. The runtime stops the
   * thread (after a tick in progress) before the plugin's stop, and starts
   * it anew in a collected forked child after fork_child and thread_begin.
   * Returns 0, or -1 when no thread could be started. */
  int (*run_periodic)(uint64_t period_ns, void (*tick)(void));
  /* Not signal-safe. Starts a detached thread running body(argument), for
   * background work that is not periodic (a compressor fed by the
   * program's threads). The runtime does not join it: body returns when the
   * plugin tells it to (in stop, and fork_child in a child, where the
   * thread does not exist). Returns 0, or -1 when no thread could be
   * started. */
  int (*start_thread)(void* (*body)(void*), void* argument);
  /* Not signal-safe. (SDK 1.4) On a thread of run_periodic or start_thread
   * (from its tick or body): gives the calling thread a descriptor table of
   * its own, holding the runtime's descriptors (its data files) and none of
   * the program's. While a collector thread shares the program's table the
   * kernel takes a reference on the file at every read or write the
   * program makes (some 55 ns a call), so a thread that needs no
   * descriptor of the program's, nor one the plugin opened on another
   * thread, should ask. Returns 0, or -1 (the thread still shares the
   * program's table) elsewhere or where the kernel refuses. */
  int (*own_descriptor_table)(void);
} lumen_work_service;

/* The re-entry guard of interposers (lumen::TraceGuard wraps it). */
typedef struct lumen_guard_service {
  uint32_t size;
  /* [signal-safe] 1 while this process is being collected. */
  int (*collecting)(void);
  /* [signal-safe] enter() returns 1 when the calling thread was not already
   * inside the collector (the caller may record, and must call leave()
   * after), 0 when it was (the runtime or another interposer is on this
   * thread's stack: forward without recording, and do not call leave()).
   * The runtime holds the guard while it runs its own code, so its
   * allocations and locks are never traced; a thread's collection ends with
   * its thread_end (enter() returns 0 after). */
  int (*enter)(void);
  void (*leave)(void);
  /* [signal-safe] 1 when collect -P loaded the runtime into this process
   * while it ran (the process's environment, its children and its start
   * are not the collection's: a plugin changes none of them), 0 when the
   * process was started under collect. Since SDK 1.8 (ask with
   * LUMEN_PROVIDES). */
  int (*attached)(void);
} lumen_guard_service;

/* What the runtime provides to an event source: start() receives it, and it
 * stays valid until the process ends. */
typedef struct lumen_runtime {
  uint32_t size;
  uint16_t sdk_major; /* the SDK this runtime offers */
  uint16_t sdk_minor;
  const lumen_recording_service* recording;
  const lumen_stack_service* stacks;
  const lumen_time_service* time;
  const lumen_thread_service* threads;
  const lumen_signal_service* signals;
  const lumen_work_service* work;
  const lumen_guard_service* guard;
} lumen_runtime;

/* Services a collector half offers to collect itself, in collect's process
 * before the target starts (never in the target). A descriptor without them
 * (host_hooks NULL) is treated as if every hook were NULL. */
typedef struct lumen_collector_hooks {
  uint32_t size; /* sizeof(lumen_collector_hooks) as the plugin was built */
  /* Checks the plugin's canonical options against this machine (e.g. that
   * the PMU can count the requested hardware counters together). Returns 0,
   * or non-zero with a message in `error`: collect then refuses to start the
   * target, printing it. Runs after leave_out. May be NULL. */
  int (*check)(const lumen_option_value* options, size_t option_count, char* error, size_t error_size);
  /* What the plugin's collect flag accepts here, for the flag given without
   * a value ("collect -h" alone): calls `line` once per line. May be NULL. */
  void (*describe_values)(void (*line)(void* context, const char* text), void* context);
  /* Leaves out, rather than refuses, what the options ask that this machine
   * cannot do (a hardware counter where there is no PMU), so the target
   * still runs with everything else. Runs first; options it cannot make
   * sense of are left alone for check to refuse. Calls `left_out` once per
   * thing left out (`what`: its name; `reason`: a sentence naming it and
   * why), and `set_option` with the new canonical value of each option it
   * narrows. Returns 0 to collect with what remains, 1 when nothing remains
   * (collect then leaves the plugin out of the plan). collect prints each
   * reason and records it in the experiment's header. May be NULL. */
  int (*leave_out)(const lumen_option_value* options, size_t option_count,
                   void (*set_option)(void* context, const char* name, const char* value),
                   void (*left_out)(void* context, const char* what, const char* reason), void* context);
} lumen_collector_hooks;

/* The lifecycle, in the order the runtime calls it:
 *   start         once, when collection begins in this process
 *   thread_begin  on each thread as it begins (the main thread too)
 *   thread_end    on each thread as it ends
 *   fork_child    in the child of fork(), on the only thread it has, before
 *                 anything else runs there; then, when the child is
 *                 collected (collecting() says so: it writes into its own
 *                 sub-experiment), thread_begin on that thread
 *   stop          once, when collection ends (exit, collector_terminate_expt)
 * Set with designated initializers, LUMEN_SDK_HEAD(lumen_collector_descriptor)
 * first; a NULL member is one the plugin does not use. */
typedef struct lumen_collector_descriptor {
  uint32_t size;              /* LUMEN_SDK_HEAD: sizeof as the plugin was built */
  uint16_t sdk_major;         /* LUMEN_SDK_VERSION_MAJOR it was built against */
  uint16_t sdk_minor;         /* LUMEN_SDK_VERSION_MINOR it was built against */
  const char* name;           /* unique, e.g. "clock" */
  const char* version;        /* the plugin's own version string */
  const char* data_file;      /* e.g. "profile" */
  const char* description;    /* one line */
  const lumen_option_def* options;
  size_t option_count;
  lumen_collect_flag flag;

  /* Starts the source with canonical option values. Returns 0, or non-zero
   * with a message in `error` (the target then runs on without it). */
  int (*start)(const lumen_runtime* runtime, const lumen_option_value* options,
               size_t option_count, char* error, size_t error_size);
  /* Called on every thread the runtime sees begin (the main thread too) and
   * end. May be NULL. */
  void (*thread_begin)(void);
  void (*thread_end)(void);
  /* Stops recording; called at process exit or collection end. */
  void (*stop)(void);

  /* In a forked child, right after fork: what the plugin holds of the
   * parent's threads (timers are not inherited, counters and per-thread
   * buffers count or hold the parent's) is forgotten here, without writing
   * it (the parent writes its own). Only this thread exists; locks other
   * threads of the parent held stay held. May be NULL. */
  void (*fork_child)(void);
  /* Hooks collect runs before the target starts. May be NULL. */
  const lumen_collector_hooks* host_hooks;
  /* SDK 1.5: LUMEN_WORKS_AFTER_ATTACH when the source works in a process
   * collect -P loaded the runtime into while it ran: thread_begin and
   * thread_end are then called on each thread from where collect stopped
   * it, as from a signal handler (they must be signal-safe). 0 (and a
   * plugin built before 1.5): collect -P refuses the plugin.
   * SDK 1.6: with LUMEN_INTERPOSES_AFTER_ATTACH as well, the functions this
   * half exports under a libc name (and version) are its interposers: once
   * every thread has begun, the runtime points the program's bound calls
   * of them (each loaded object's PLT slots, the C library's GOT ones, and
   * those of objects loaded later) at them, and puts the slots back at
   * detach. Without it, no call of the program's is interposed. */
  uint32_t attach;
  /* SDK 1.6, with LUMEN_INTERPOSES_AFTER_ATTACH: [signal-safe] how many of
   * this half's interposers the calling thread is inside (lumen::InterposedCall
   * counts them). The runtime is unloaded after a detach only once every
   * thread is outside all of them. */
  int (*calls_in_progress)(void);
} lumen_collector_descriptor;

#define LUMEN_WORKS_AFTER_ATTACH 1u
#define LUMEN_INTERPOSES_AFTER_ATTACH 2u

typedef const lumen_collector_descriptor* (*lumen_collector_factory)(void);

/* [signal-safe] Defined by the runtime (liblumen_collector.so), callable
 * before any constructor of the process has run: non-zero once the
 * runtime's constructor has begun. A collector half preloaded with the
 * runtime sees the program's calls from the first one on, its libraries'
 * constructors included; until this returns non-zero those are the
 * program's own (from then until start() they are the runtime's setting
 * up), so a half may keep what it sees before then and record it at
 * start(). Reference it weakly (`#pragma weak lumen_runtime_began`): its
 * address is NULL where the runtime is not loaded. */
int lumen_runtime_began(void);

#ifdef __cplusplus
}
#endif

#endif /* LUMEN_COLLECTOR_PLUGIN_H */
