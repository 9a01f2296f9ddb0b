// Interposers the runtime itself needs: thread creation (to start and stop
// per-thread sources), dlopen/dlclose (to keep the load-object map and the
// object snapshot), and dl_iterate_phdr (the snapshot, for the runtime's own
// unwinding; see object_snapshot.h).
//
// glibc exports these under two symbol versions (GLIBC_2.2.5 and, since 2.34,
// GLIBC_2.34); a program binds whichever it was linked against, so each is
// defined under both, and each forwards to the same version of the real one.
#include <dlfcn.h>
#include <sys/syscall.h>
#include <link.h>
#include <lumen/collector_support.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <iterator>
#include <new>
#include <cstdlib>
#include <cstring>
#include <string>

#include "stacks/loadobject_tracker.h"
#include "stacks/object_snapshot.h"
#include "lifecycle/runtime_state.h"
#include "signals/program_signal_view.h"
#include "signals/signal_chain.h"
#include "stacks/stack_capture.h"
#include "threads/program_thread_state.h"
#include "time/tsc_clock.h"
#include "interposers/call_redirection.h"
#include "lifecycle/plugin_host.h"
#include "interposers/thread_interposers.h"

extern "C" int lumen_pthread_create_2_34(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
extern "C" void* lumen_dlopen_2_34(const char*, int);
extern "C" int lumen_dlclose_2_34(void*);

namespace lumen::collector {
namespace {

using PthreadCreate = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
using Dlopen = void* (*)(const char*, int);
using Dlclose = int (*)(void*);

struct ThreadStart {
  void* (*routine)(void*);
  void* argument;
  uint64_t claimed_signals_blocked;  // the mask the creator's code set, as a new thread inherits it
  uint64_t created_ns;               // just before the real pthread_create: before the kernel made it
  std::atomic<bool> taken{false};
};

// Starts in slots the new thread gives back once it copied its own: a free
// on the new thread would give it a malloc arena of its own (64 MiB of the
// program's address space) where the program's thread might never have
// made one. Past the slots (that many threads starting at once), malloc.
ThreadStart g_thread_starts[256];

ThreadStart* take_thread_start() {
  for (ThreadStart& slot : g_thread_starts) {
    bool free_slot = false;
    if (slot.taken.compare_exchange_strong(free_slot, true, std::memory_order_acq_rel)) return &slot;
  }
  const RuntimeGuard guard;
  void* bytes = std::malloc(sizeof(ThreadStart));
  return bytes != nullptr ? new (bytes) ThreadStart : nullptr;
}

bool in_slots(const ThreadStart* start) {
  return start >= g_thread_starts && start < g_thread_starts + std::size(g_thread_starts);
}

void give_back(ThreadStart* start) {
  if (in_slots(start)) {
    start->taken.store(false, std::memory_order_release);
    return;
  }
  const RuntimeGuard guard;
  std::free(start);
}

// A thread's end is heard from a key's destructor, which glibc runs after
// the thread's function returns and after pthread_exit alike. A cleanup
// handler missed pthread_exit: glibc unwinds with libgcc_s, while the C++
// cleanup object's personality routine reaches libunwind's _Unwind_*
// functions (the collector's, bound first), and the handler never ran.
pthread_key_t g_thread_end_key;
bool g_thread_end_key_made = false;
pthread_once_t g_thread_end_key_once = PTHREAD_ONCE_INIT;

void thread_ends(void*) { runtime_thread_end(); }

// After an attach: calls inside these interposers (a return address of the
// runtime's on a stack) and threads created but not yet past their
// start's begin. The detach waits for both to be none before unloading.
std::atomic<int> g_inside{0};
std::atomic<int> g_starting{0};
struct Inside {
  Inside() { g_inside.fetch_add(1, std::memory_order_acq_rel); }
  ~Inside() { g_inside.fetch_sub(1, std::memory_order_acq_rel); }
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

// On the new thread: takes its start's routine and argument, gives the
// start back, and begins the thread's collection with the program's view
// of its signal mask.
void* (*begin_started_thread(ThreadStart* given, void** argument))(void*) {
  void* (*const routine)(void*) = given->routine;
  *argument = given->argument;
  const uint64_t claimed_signals_blocked = given->claimed_signals_blocked;
  const uint64_t created_ns = given->created_ns;
  give_back(given);
  set_claimed_signals_blocked_by_target(claimed_signals_blocked);
  release_inherited_holds();
  current_thread().created_ns = created_ns;
  if (!detach_begun()) runtime_thread_begin();
  return routine;
}
void make_thread_end_key() { g_thread_end_key_made = pthread_key_create(&g_thread_end_key, thread_ends) == 0; }

}  // namespace
}  // namespace lumen::collector

// A thread started while the runtime is attached (collect -P) must keep no
// frame of the runtime's: the detach unloads it while the thread runs on.
// Its first function is this stub, which begins the thread's collection
// and then jumps to the program's function with the stack as the stub
// found it, so that function returns to the C library's thread start.
extern "C" __attribute__((visibility("hidden"), used)) void* (*lumen_attached_thread_begin(void* opaque,
                                                                                          void** argument))(void*) {
  using namespace lumen::collector;
  void* (*const routine)(void*) = begin_started_thread(static_cast<ThreadStart*>(opaque), argument);
  hear_thread_end_here();
  g_starting.fetch_sub(1, std::memory_order_acq_rel);  // the stub's last three instructions: collect checks PCs
  return routine;
}

extern "C" void* lumen_attached_thread_start(void*);
__asm__(R"(
  .text
  .p2align 4
  .globl lumen_attached_thread_start
  .hidden lumen_attached_thread_start
  .type lumen_attached_thread_start, @function
lumen_attached_thread_start:
  .cfi_startproc
  subq $24, %rsp
  .cfi_adjust_cfa_offset 24
  movq %rsp, %rsi
  call lumen_attached_thread_begin
  movq (%rsp), %rdi
  addq $24, %rsp
  .cfi_adjust_cfa_offset -24
  jmp *%rax
  .cfi_endproc
  .size lumen_attached_thread_start, .-lumen_attached_thread_start
)");

namespace lumen::collector {
namespace {

void* thread_trampoline(void* opaque) {
  void* argument = nullptr;
  void* (*const routine)(void*) = begin_started_thread(static_cast<ThreadStart*>(opaque), &argument);
  // Any value but null has the destructor run.
  if (g_thread_end_key_made && pthread_setspecific(g_thread_end_key, &g_thread_end_key) == 0)
    return routine(argument);
  void* result = nullptr;
  pthread_cleanup_push(thread_ends, nullptr);
  result = routine(argument);
  pthread_cleanup_pop(1);
  return result;
}

int create_thread(PthreadCreate real_create, pthread_t* thread, const pthread_attr_t* attr,
                  void* (*routine)(void*), void* argument) {
  const Inside inside;
  if (real_create == nullptr) return EAGAIN;
  if (!collecting()) return real_create(thread, attr, routine, argument);
  pthread_once(&g_thread_end_key_once, make_thread_end_key);
  ThreadStart* start = take_thread_start();
  if (start == nullptr) return real_create(thread, attr, routine, argument);
  // The program's view of the new thread's mask: its creator's, or the
  // one the attributes give it.
  uint64_t claimed_blocked = claimed_signals_blocked_by_target();
  sigset_t attr_mask;
  if (attr != nullptr && pthread_attr_getsigmask_np(attr, &attr_mask) == 0)
    claimed_blocked = claimed_signals_in(&attr_mask);
  start->routine = routine;
  start->argument = argument;
  start->claimed_signals_blocked = claimed_blocked;
  start->created_ns = tsc_now_ns();
  // The kernel blocks those for the new thread until its trampoline holds
  // the program's view: a signal meanwhile waits, as it would have.
  sigset_t during_clone = claimed_signal_set(claimed_blocked), creators;
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &during_clone, &creators, _NSIG / 8);
  const bool through_stub = attached();
  if (through_stub) g_starting.fetch_add(1, std::memory_order_acq_rel);
  const int rc = real_create(thread, attr, through_stub ? lumen_attached_thread_start : thread_trampoline, start);
  if (rc != 0 && through_stub) g_starting.fetch_sub(1, std::memory_order_acq_rel);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &creators, nullptr, _NSIG / 8);
  if (rc != 0) give_back(start);
  return rc;
}

// dlopen resolves a bare name with the *caller's* RPATH/RUNPATH. Calling the
// real dlopen from here would make this library the caller, so first try the
// directories the dynamic linker would search for the caller's object.
void* open_as_caller(Dlopen real_open, const char* file, int mode, void* caller) {
  if (real_open == nullptr) return nullptr;
  if (file == nullptr || std::strchr(file, '/') != nullptr) return real_open(file, mode);
  if (void* loaded = real_open(file, mode | RTLD_NOLOAD)) return loaded;
  Dl_info info;
  link_map* caller_map = nullptr;
  if (dladdr1(caller, &info, reinterpret_cast<void**>(&caller_map), RTLD_DL_LINKMAP) != 0 && caller_map != nullptr) {
    Dl_serinfo size;
    if (dlinfo(caller_map, RTLD_DI_SERINFOSIZE, &size) == 0) {
      auto* paths = static_cast<Dl_serinfo*>(std::malloc(size.dls_size));
      if (paths != nullptr) {
        *paths = size;
        if (dlinfo(caller_map, RTLD_DI_SERINFOSIZE, paths) == 0 && dlinfo(caller_map, RTLD_DI_SERINFO, paths) == 0) {
          for (unsigned i = 0; i < paths->dls_cnt; ++i) {
            const std::string candidate = std::string(paths->dls_serpath[i].dls_name) + "/" + file;
            if (access(candidate.c_str(), F_OK) != 0) continue;
            if (void* handle = real_open(candidate.c_str(), mode)) {
              std::free(paths);
              return handle;
            }
          }
        }
        std::free(paths);
      }
    }
  }
  return real_open(file, mode);
}

void* traced_dlopen(Dlopen real_open, const char* file, int mode, void* caller) {
  const Inside inside;
  void* handle = open_as_caller(real_open, file, mode, caller);
  // After an attach the slots lead here from the start's first steps on,
  // before collection is under way: what loads then is recorded too.
  if (handle != nullptr && (collecting() || attached())) {
    const RuntimeGuard guard;
    object_snapshot_refresh();
    loadobject_tracker_rescan();
    if (attached()) redirect_program_calls();  // the objects just loaded
    if (plugins_interposing()) plugins_interpose_program_calls();
  }
  return handle;
}

bool is_programs(const char* path) {
  for (const char* not_programs : {"/libc.so", "/ld-linux", "/liblumen_collector", "/libunwind", "/libgcc_s",
                                   "/lumen/plugins/", "linux-vdso"})
    if (std::strstr(path, not_programs) != nullptr) return false;
  return true;
}

int traced_dlclose(Dlclose real_close, void* handle) {
  const Inside inside;
  if (real_close == nullptr) return -1;
  const int rc = real_close(handle);
  if (collecting() || attached()) {
    const RuntimeGuard guard;
    object_snapshot_refresh();
    loadobject_tracker_rescan();
  }
  return rc;
}

}  // namespace

bool program_calls_left_runtime() {
  return g_inside.load(std::memory_order_acquire) == 0 && g_starting.load(std::memory_order_acquire) == 0;
}

void redirect_program_calls() {
  redirect_calls(is_programs, "pthread_create", reinterpret_cast<void*>(lumen_pthread_create_2_34));
  redirect_calls(is_programs, "dlopen", reinterpret_cast<void*>(lumen_dlopen_2_34));
  redirect_calls(is_programs, "dlclose", reinterpret_cast<void*>(lumen_dlclose_2_34));
}

void hear_thread_end_here() {
  pthread_once(&g_thread_end_key_once, make_thread_end_key);
  if (g_thread_end_key_made) pthread_setspecific(g_thread_end_key, &g_thread_end_key);
}

void stop_hearing_thread_ends() {
  if (g_thread_end_key_made) pthread_key_delete(g_thread_end_key);
  g_thread_end_key_made = false;
}

}  // namespace lumen::collector

using namespace lumen::collector;

LUMEN_VERSIONED_INTERPOSER(lumen_pthread_create_2_34, int,
                           (pthread_t* t, const pthread_attr_t* a, void* (*r)(void*), void* arg), pthread_create,
                           "GLIBC_2.34", DEFAULT, create_thread(real, t, a, r, arg));
LUMEN_VERSIONED_INTERPOSER(lumen_pthread_create_2_2_5, int,
                           (pthread_t* t, const pthread_attr_t* a, void* (*r)(void*), void* arg), pthread_create,
                           "GLIBC_2.2.5", COMPAT, create_thread(real, t, a, r, arg));
LUMEN_VERSIONED_INTERPOSER(lumen_dlopen_2_34, void*, (const char* file, int mode), dlopen, "GLIBC_2.34", DEFAULT,
                           traced_dlopen(real, file, mode, __builtin_return_address(0)));
LUMEN_VERSIONED_INTERPOSER(lumen_dlopen_2_2_5, void*, (const char* file, int mode), dlopen, "GLIBC_2.2.5", COMPAT,
                           traced_dlopen(real, file, mode, __builtin_return_address(0)));
LUMEN_VERSIONED_INTERPOSER(lumen_dlclose_2_34, int, (void* handle), dlclose, "GLIBC_2.34", DEFAULT,
                           traced_dlclose(real, handle));
LUMEN_VERSIONED_INTERPOSER(lumen_dlclose_2_2_5, int, (void* handle), dlclose, "GLIBC_2.2.5", COMPAT,
                           traced_dlclose(real, handle));

extern "C" {

// libunwind's lookups from inside capture_stack answer from the snapshot;
// everyone else (the target, its own unwinders) gets the real list.
LUMEN_EXPORT int lumen_dl_iterate_phdr(PhdrCallback callback, void* data) {
  if (unwinding_now()) return object_snapshot_iterate(callback, data);
  return real_dl_iterate_phdr(callback, data);
}

}  // extern "C"

__asm__(".symver lumen_dl_iterate_phdr, dl_iterate_phdr@@GLIBC_2.2.5");
