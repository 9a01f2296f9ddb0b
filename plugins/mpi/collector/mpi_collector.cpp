// MPI tracing: the plugin's lifecycle, the trace budget and the records.
//
// start() settles VampirTrace's settings (plugin options, then VT_*
// variables), opens the data file and publishes g_active; the wrappers
// (mpi_wrappers.cpp, generated from mpi_functions.def) then record every
// MPI call made outside MPI itself. A process without an MPI library (the
// launcher, its daemons) starts the plugin but writes nothing.
#include "mpi_collector.h"

#include <lumen/collector_support.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "vt_settings.h"

namespace lumen::mpi {

namespace {

// Written by start() before g_active is published (release).
const lumen_runtime* g_runtime = nullptr;
lumen_stream g_stream = -1;
VtSettings g_settings;

std::atomic<bool> g_active{false};
std::atomic<int32_t> g_rank{-1};
// The trace budget: bytes of records so far, against VT_MAX_FLUSHES buffers
// of VT_BUFFER_SIZE bytes. Once exceeded, tracing stops for good.
std::atomic<uint64_t> g_recorded_bytes{0};
std::atomic<bool> g_incomplete{false};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "touched on every traced call");

// Calls MPI makes inside a traced call are not traced again. Not the
// runtime's re-entry guard: that would also hide what other plugins trace
// inside MPI (its allocations, its locks) for the whole call.
// Initial-exec: the half is preloaded, and a general-dynamic access would
// call __tls_get_addr on every MPI call.
__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;

// A thread's unwinding caches for its calls' stacks (capture_stack_reusing),
// one per MPI function by its number modulo kCallSites: a loop's calls of
// MPI_Isend, MPI_Irecv and MPI_Waitall each come from one place, and their
// stacks are taken again only when what the last unwinding read changed.
// Two functions sharing a cache cost each an unwinding, as without one.
// Mapped at the thread's first traced call (64 KiB: too much for
// initial-exec TLS in an object that may be dlopened); kReleased after its
// thread_end.
constexpr int kCallSites = 32;
struct CallSites {
  lumen_capture_cache sites[kCallSites];
};
CallSites* const kReleased = reinterpret_cast<CallSites*>(uintptr_t{1});
__attribute__((tls_model("initial-exec"))) thread_local CallSites* t_call_sites = nullptr;

// The calling thread's cache for `function`, nullptr when none can be had.
lumen_capture_cache* call_site(uint16_t function) {
  CallSites* sites = t_call_sites;
  if (sites == kReleased) return nullptr;
  if (sites == nullptr) {
    // Straight to the kernel: a tracer of mmap must not see the plugin's.
    void* block = reinterpret_cast<void*>(syscall(SYS_mmap, nullptr, sizeof(CallSites), PROT_READ | PROT_WRITE,
                                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (block == MAP_FAILED) return nullptr;
    sites = t_call_sites = static_cast<CallSites*>(block);
  }
  return &sites->sites[function % kCallSites];
}

void thread_end() {
  CallSites* sites = t_call_sites;
  t_call_sites = kReleased;
  if (sites != nullptr && sites != kReleased) syscall(SYS_munmap, sites, sizeof(CallSites));
}

void print_message(const char* text) {
  // stderr without stdio: the program's own buffered output stays untouched.
  const ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void mark_incomplete() {
  if (g_incomplete.exchange(true, std::memory_order_acq_rel)) return;
  const uint64_t recorded = g_recorded_bytes.load(std::memory_order_relaxed);
  MpiIncomplete incomplete{g_runtime->time->now_ns(), g_settings.max_flushes, recorded};
  // Past the budget on purpose: the reader must learn that the trace stops here.
  lumen::write_kept_record(g_runtime, g_stream, kIncompleteRecord, &incomplete, sizeof incomplete);
  char note[256];
  std::snprintf(note, sizeof note,
                "mpi: trace incomplete: rank %d filled VT_MAX_FLUSHES=%llu buffers of VT_BUFFER_SIZE=%llu bytes; "
                "later MPI calls are not recorded",
                g_rank.load(std::memory_order_relaxed), static_cast<unsigned long long>(g_settings.max_flushes),
                static_cast<unsigned long long>(g_settings.buffer_bytes));
  g_runtime->recording->log_note(note);
  if (g_settings.verbose >= 1) {
    char line[320];
    std::snprintf(line, sizeof line, "lumen: %s\n", note);
    print_message(line);
  }
}

// Writes one record if the budget allows, charging it `charged` bytes
// (its own span when 0). Each is kept (written while recording is paused
// too): a call's, as it was entered while recording; the settings and the
// process's, as every other record is read by them.
bool write_budgeted(uint16_t kind, const void* payload, uint16_t bytes, uint64_t charged = 0) {
  if (g_settings.max_flushes != 0) {
    const uint64_t span = charged != 0 ? charged : lumen_record_span(bytes);
    const uint64_t limit = g_settings.max_flushes * g_settings.buffer_bytes;
    if (g_recorded_bytes.fetch_add(span, std::memory_order_relaxed) + span > limit) {
      g_recorded_bytes.fetch_sub(span, std::memory_order_relaxed);
      mark_incomplete();
      return false;
    }
  }
  return lumen::write_kept_record(g_runtime, g_stream, kind, payload, bytes) != 0;
}

// The rank a parallel job's launcher gave this process, or -1.
int32_t launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    const long rank = std::strtol(value, &end, 10);
    if (*end == '\0' && rank >= 0 && rank <= INT32_MAX) return static_cast<int32_t>(rank);
  }
  return -1;
}

int start(const lumen_runtime* runtime, const lumen_option_value* options, size_t count, char* error,
          size_t error_size) {
  g_runtime = runtime;
  for (size_t i = 0; i < count; ++i)
    if (!apply_vt_setting(g_settings, options[i].name, options[i].value, error, error_size)) return 1;
  if (!apply_vt_environment(g_settings, error, error_size)) {
    // A critical message (VT_VERBOSE >= 1 by default): the program runs untraced.
    char line[512];
    std::snprintf(line, sizeof line, "lumen: mpi: %s; MPI tracing is off in process %d\n", error, getpid());
    print_message(line);
    return 1;
  }
  const MpiLibrary library = mpi_library();
  if (library == MpiLibrary::kNone) {
    runtime->recording->log_note("mpi: no MPI library in this process (a launcher or daemon): nothing to trace");
    return 0;
  }
  if (library == MpiLibrary::kOther) {
    // Calls are still forwarded unchanged; only tracing is off.
    std::snprintf(error, error_size, "the process's MPI library is not the implementation this collector half "
                                     "was built for (see collector-variants); not traced");
    char line[512];
    std::snprintf(line, sizeof line, "lumen: mpi: %s (process %d)\n", error, getpid());
    print_message(line);
    return 1;
  }
  g_stream = runtime->recording->open_stream(kDataFile);
  if (g_stream < 0) {
    std::snprintf(error, error_size, "cannot create the data file '%s'", kDataFile);
    return 1;
  }
  MpiSettings settings{};
  settings.buffer_bytes = g_settings.buffer_bytes;
  settings.max_flushes = static_cast<uint32_t>(g_settings.max_flushes);
  settings.stacks = g_settings.stacks ? 1 : 0;
  settings.verbose = static_cast<uint32_t>(g_settings.verbose);
  settings.launcher_rank = launcher_rank();
  write_budgeted(kSettingsRecord, &settings, sizeof settings);
  g_active.store(true, std::memory_order_release);
  return 0;
}

void stop() {
  g_active.store(false, std::memory_order_release);
}

const lumen_option_def kOptions[] = {
    {"stacks", LUMEN_OPTION_BOOLEAN, "on", 0, 1, 0, "record the caller's stack of each MPI call (VT_STACKS)"},
    {"buffer_size", LUMEN_OPTION_STRING, "64M", 0, 0, 0,
     "trace buffer per process in bytes, with K, M or G (VT_BUFFER_SIZE)"},
    {"max_flushes", LUMEN_OPTION_INTEGER, "0", 0, 1000000000, 0,
     "stop tracing after this many full buffers; 0: never (VT_MAX_FLUSHES)"},
    {"verbose", LUMEN_OPTION_INTEGER, "1", 0, 9, 0, "messages on stderr: 0 none, 1 critical, 2 more (VT_VERBOSE)"},
    {"clock_sync", LUMEN_OPTION_BOOLEAN, "on", 0, 1, 0,
     "measure each host's clock against rank 0's at MPI_Init and MPI_Finalize, to show the job on one clock "
     "(when every rank's experiment is in the founder)"},
};

const lumen_flag_alias kFlagAliases[] = {{"on", "1"}};

const lumen_collector_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_collector_descriptor),
    .name = "mpi",
    .version = "1.0",
    .data_file = kDataFile,
    .description = "MPI tracing: every call of the MPI API through the PMPI profiling interface, with "
                   "point-to-point messages",
    .options = kOptions,
    .option_count = std::size(kOptions),
    .flag = {"m", "stacks", kFlagAliases, std::size(kFlagAliases),
             "-m on|off     MPI tracing (ranks of mpirun as sub-experiments)"},
    .start = start,
    .thread_end = thread_end,
    .stop = stop,
};

}  // namespace

uint64_t now_ns() { return g_runtime->time->now_ns(); }

int32_t world_rank() { return g_rank.load(std::memory_order_relaxed); }

bool open_call(CallState& state, Function function) {
  if (!g_active.load(std::memory_order_acquire) || t_depth != 0) return false;
  // MPI_Init and MPI_Finalize run their hooks past the budget and while
  // recording is paused (their records are then not written): every rank
  // measures its clock there, together, and one left out would leave the
  // others waiting.
  if ((g_incomplete.load(std::memory_order_relaxed) || !g_runtime->guard->collecting()) &&
      function != Function::kInit && function != Function::kInit_thread && function != Function::kFinalize)
    return false;
  ++t_depth;
  state.call.function = static_cast<uint16_t>(function);
  state.call.rank = g_rank.load(std::memory_order_relaxed);
  state.call.peer = -1;
  state.call.tag = -1;
  state.call.stack_id = LUMEN_NO_STACK;
  state.call.enter_ns = g_runtime->time->now_ns();
  state.recorded = lumen::recording_now(g_runtime);
  return true;
}

// The call's record: compact with its messages when it fits, else the full
// layout with a message record per message (those not yet spilled).
void write_call(CallState& state) {
  MpiCall& call = state.call;
  if (!state.spilled && packable(call.exit_ns - call.enter_ns, call.stack_id, state.message_count)) {
    unsigned char packed[kMaxPackedBytes];
    // Charged as the full layout, so that VT_BUFFER_SIZE x VT_MAX_FLUSHES
    // holds as many calls as it always did.
    const uint64_t full = lumen_record_span(sizeof(MpiCall)) +
                          uint64_t(state.message_count) * lumen_record_span(sizeof(MpiMessage));
    write_budgeted(kCompactCallRecord, packed, pack(call, state.messages, state.message_count, packed), full);
    return;
  }
  call.thread_id = g_runtime->threads->thread_id();  // the compact record's reader takes the block's
  for (int i = 0; i < state.message_count; ++i) {
    state.messages[i].time_ns = call.exit_ns;
    write_budgeted(kMessageRecord, &state.messages[i], sizeof state.messages[i]);
  }
  state.message_count = 0;
  write_budgeted(kCallRecord, &call, sizeof call);
}

// Never inlined, so that the stack is captured from a frame of this object,
// which the runtime leaves out with the wrapper that called it. Only under
// the runtime's re-entry guard.
__attribute__((noinline)) static void finish_and_write(CallState& state) {
  if (!state.recorded) return;
  const ErrnoKept errno_kept;
  if (state.call.rank < 0) state.call.rank = g_rank.load(std::memory_order_relaxed);
  if (g_settings.stacks) {
    lumen_capture_cache* site = call_site(state.call.function);
    state.call.stack_id = site != nullptr ? g_runtime->stacks->capture_stack_reusing(site, 0)
                                          : g_runtime->stacks->capture_stack(nullptr, 0);
  }
  write_call(state);
  state.written = true;
}

void close_call(CallState& state, const TraceGuard& guard) {
  if (!state.written) {
    state.call.exit_ns = g_runtime->time->now_ns();
    if (guard) finish_and_write(state);
  }
  --t_depth;
}

void write_call_now(CallState& state) {
  state.call.exit_ns = state.call.enter_ns;
  finish_and_write(state);
}

const lumen_runtime* runtime() { return g_runtime; }

void add_message(CallState& state, uint16_t direction, uint64_t bytes, int32_t peer, int32_t tag,
                 uint64_t communicator) {
  MpiCall& call = state.call;
  const bool first = call.sends + call.receives == 0;
  if (direction == kMessageSent) {
    ++call.sends;
    call.bytes_sent += bytes;
  } else {
    ++call.receives;
    call.bytes_received += bytes;
  }
  call.peer = first ? peer : (call.peer == peer ? peer : -1);
  call.tag = first ? tag : (call.tag == tag ? tag : -1);
  MpiMessage message{};
  message.bytes = bytes;
  message.communicator = communicator;
  message.rank = g_rank.load(std::memory_order_relaxed);
  message.peer = peer;
  message.tag = tag;
  message.direction = direction;
  message.function = call.function;
  // Kept for the call's packed record, stamped with its exit time.
  if (!state.spilled && state.message_count < kMaxPackedMessages && bytes <= kMessageBytesMask) {
    state.messages[state.message_count++] = message;
    return;
  }
  // More than a packed record holds: these go out now, the call in full.
  if (!state.recorded) return;
  if (!state.spilled) {
    state.spilled_ns = g_runtime->time->now_ns();
    for (int i = 0; i < state.message_count; ++i) {
      state.messages[i].time_ns = state.spilled_ns;
      write_budgeted(kMessageRecord, &state.messages[i], sizeof state.messages[i]);
    }
    state.message_count = 0;
    state.spilled = true;
  }
  message.time_ns = state.spilled_ns;
  write_budgeted(kMessageRecord, &message, sizeof message);
}

bool clock_sync_on() { return g_settings.clock_sync; }

void write_clock(const MpiClock& clock) {
  lumen::write_kept_record(g_runtime, g_stream, kClockRecord, &clock, sizeof clock);
  char note[256];
  const char* when = clock.phase == kClockAtInit ? "MPI_Init" : "MPI_Finalize";
  const int rank = g_rank.load(std::memory_order_relaxed);
  if (clock.same_clock != 0)
    std::snprintf(note, sizeof note, "mpi: clock at %s: rank %d reads rank %d's clock (one host)", when, rank,
                  clock.reference_rank);
  else
    std::snprintf(note, sizeof note, "mpi: clock at %s: rank %d's clock is %+.9f s off rank %d's, within %.6f s",
                  when, rank, -static_cast<double>(clock.offset_ns) / 1e9, clock.reference_rank,
                  static_cast<double>(clock.error_ns) / 1e9);
  g_runtime->recording->log_note(note);
}

void set_process(int32_t rank, int32_t world_size, uint32_t thread_level, const char* library, const char* host) {
  g_rank.store(rank, std::memory_order_relaxed);
  struct {
    MpiProcess process;
    char text[512];
  } record{};
  const size_t library_bytes = std::min<size_t>(std::strlen(library), 256);
  const size_t host_bytes = std::min<size_t>(std::strlen(host), 256);
  record.process.time_ns = g_runtime->time->now_ns();
  record.process.rank = rank;
  record.process.world_size = world_size;
  record.process.library_bytes = static_cast<uint16_t>(library_bytes);
  record.process.host_bytes = static_cast<uint16_t>(host_bytes);
  record.process.thread_level = thread_level;
  std::memcpy(record.text, library, library_bytes);
  std::memcpy(record.text + library_bytes, host, host_bytes);
  write_budgeted(kProcessRecord, &record, static_cast<uint16_t>(sizeof(MpiProcess) + library_bytes + host_bytes));
  char note[640];
  std::snprintf(note, sizeof note, "mpi: rank %d of %d on %.*s, %.*s", rank, world_size, static_cast<int>(host_bytes),
                host, static_cast<int>(library_bytes), library);
  g_runtime->recording->log_note(note);
  if (g_settings.verbose >= 2) {
    char line[700];
    std::snprintf(line, sizeof line, "lumen: %s\n", note);
    print_message(line);
  }
}

}  // namespace lumen::mpi

LUMEN_EXPORT const lumen_collector_descriptor* lumen_collector_plugin() {
  return &lumen::mpi::kPlugin;
}
