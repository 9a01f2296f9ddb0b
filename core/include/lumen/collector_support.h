/* C++ helpers for collector halves (and the runtime itself): what every
 * interposing plugin would otherwise write again.
 *
 *   lumen::next_symbol, lumen::RealFunction   the next definition of a
 *       function this object interposes on (dlvsym/dlsym with RTLD_NEXT)
 *   lumen::TraceGuard   the runtime's re-entry guard (enter/leave) as a
 *       scope: record only while it is true
 *   lumen::ErrnoKept    errno as the scope found it
 *   lumen::InterposedCall   counts the thread's calls inside the
 *       interposers, so the runtime knows when it may be unloaded
 *   LUMEN_SYMVER, LUMEN_VERSIONED_INTERPOSER   one definition per symbol
 *       version of a libc function (see docs/plugins.md)
 *
 * Everything here is hidden: each shared object that includes this header
 * has its own copy, so RTLD_NEXT always counts from the object that asks.
 */
#ifndef LUMEN_COLLECTOR_SUPPORT_H
#define LUMEN_COLLECTOR_SUPPORT_H

#ifndef __cplusplus
#error "lumen/collector_support.h is for C++; C plugins call dlvsym and enter/leave directly"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <lumen/collector_plugin.h>

#include <atomic>

#pragma GCC visibility push(hidden)

namespace lumen {

/* dlvsym(RTLD_NEXT, name, version) when `version` is given and the next
 * object defines that version, else dlsym(RTLD_NEXT, name): the definition
 * after the calling object in the search order (libc's, or another
 * preloaded library's). NULL when there is none. Not signal-safe (the
 * dynamic linker may allocate and lock): resolve at start-up. */
inline void* next_symbol(const char* name, const char* version = nullptr) noexcept {
  if (version != nullptr)
    if (void* address = dlvsym(RTLD_NEXT, name, version)) return address;
  return dlsym(RTLD_NEXT, name);
}

template <typename Function>
Function next_function(const char* name, const char* version = nullptr) noexcept {
  return reinterpret_cast<Function>(next_symbol(name, version));
}

/* A real function, looked up on first use (or at start-up with resolve(),
 * so that the first traced calls do not pay for it). Constant-initialized:
 * a wrapper called before this object's constructors ran (by another
 * preloaded object's constructor) still works. Several threads may resolve
 * at once; they store the same address. get() is signal-safe once
 * resolved. */
template <typename Signature>
class RealFunction {
 public:
  using Pointer = Signature*;

  constexpr RealFunction(const char* name, const char* version = nullptr) noexcept
      : name_(name), version_(version) {}

  Pointer get() noexcept {
    void* address = address_.load(std::memory_order_acquire);
    if (__builtin_expect(address == nullptr, 0)) address = resolve_address();
    return reinterpret_cast<Pointer>(address);
  }
  Pointer resolve() noexcept { return reinterpret_cast<Pointer>(resolve_address()); }
  const char* name() const noexcept { return name_; }

 private:
  void* resolve_address() noexcept {
    void* address = next_symbol(name_, version_);
    address_.store(address, std::memory_order_release);
    return address;
  }

  const char* name_;
  const char* version_;
  std::atomic<void*> address_{nullptr};
};

/* [signal-safe] The runtime's re-entry guard as a scope. True when this
 * process is collected and the calling thread was not already inside the
 * collector (the runtime's own allocations and locks, another interposer
 * further up the stack): the holder may record, and leave() runs when the
 * scope ends. False: forward without recording. A NULL runtime (the plugin
 * has not started, or has stopped) gives a false guard. Functions that
 * record may demand a `const TraceGuard&`, so that recording without one
 * does not compile. */
class TraceGuard {
 public:
  explicit TraceGuard(const lumen_runtime* runtime) noexcept
      : runtime_(runtime),
        active_(runtime != nullptr && runtime->guard->collecting() != 0 && runtime->guard->enter() != 0) {}
  ~TraceGuard() {
    if (active_) runtime_->guard->leave();
  }
  TraceGuard(const TraceGuard&) = delete;
  TraceGuard& operator=(const TraceGuard&) = delete;
  explicit operator bool() const noexcept { return active_; }

 private:
  const lumen_runtime* runtime_;
  bool active_;
};

/* [signal-safe] Counts the calling thread's calls inside this object's
 * interposers, for the descriptor's calls_in_progress (SDK 1.6): after an
 * attach the runtime may be unloaded only once no thread is inside one.
 * The first statement of each interposer; its destructor also runs when a
 * cancelled wait unwinds through the interposer. Initial-exec TLS: four
 * bytes, readable from a signal handler. */
namespace detail {
inline __attribute__((tls_model("initial-exec"))) thread_local int t_interposed_calls = 0;
}  // namespace detail

class InterposedCall {
 public:
  InterposedCall() noexcept { ++detail::t_interposed_calls; }
  ~InterposedCall() { --detail::t_interposed_calls; }
  InterposedCall(const InterposedCall&) = delete;
  InterposedCall& operator=(const InterposedCall&) = delete;
};

inline int interposed_calls_in_progress() noexcept { return detail::t_interposed_calls; }

/* [signal-safe] Restores errno when the scope ends: recording (a stack
 * capture, the writer's system calls) must not change what the traced call
 * left there. */
class ErrnoKept {
 public:
  ErrnoKept() noexcept : saved_(errno) {}
  ~ErrnoKept() { errno = saved_; }
  ErrnoKept(const ErrnoKept&) = delete;
  ErrnoKept& operator=(const ErrnoKept&) = delete;

 private:
  int saved_;
};

// [signal-safe] Whether events happening now are recorded (not paused,
// inside the window, under the size limit): recording_now() of a runtime
// with SDK 1.7, else always (an older runtime refuses at the write).
inline bool recording_now(const lumen_runtime* runtime) noexcept {
  const lumen_recording_service* recording = runtime->recording;
  return !LUMEN_PROVIDES(recording, recording_now) || recording->recording_now() != 0;
}

// [signal-safe] Whether collect -P loaded the runtime into this process
// while it ran: attached() of a runtime with SDK 1.8, else never (an older
// runtime cannot be loaded so).
inline bool attached(const lumen_runtime* runtime) noexcept {
  const lumen_guard_service* guard = runtime->guard;
  return LUMEN_PROVIDES(guard, attached) && guard->attached() != 0;
}

// [signal-safe] write_kept_record of a runtime with SDK 1.7 (a batch of
// events recorded earlier, a start or settings record, a name events refer
// to: written while paused too), else write_record.
inline int write_kept_record(const lumen_runtime* runtime, lumen_stream stream, uint16_t kind, const void* payload,
                             uint16_t payload_bytes) noexcept {
  const lumen_recording_service* recording = runtime->recording;
  if (LUMEN_PROVIDES(recording, write_kept_record))
    return recording->write_kept_record(stream, kind, payload, payload_bytes);
  return recording->write_record(stream, kind, payload, payload_bytes);
}

}  // namespace lumen

#pragma GCC visibility pop

/* Binds the definition `local` to `symbol` at `version` (a string, e.g.
 * "GLIBC_2.34"): DEFAULT is the version programs linking today bind
 * (symbol@@version), COMPAT an older one (symbol@version). The object's
 * version script must declare a node per version used. */
#define LUMEN_SYMVER_DEFAULT "@@"
#define LUMEN_SYMVER_COMPAT "@"
#define LUMEN_SYMVER(local, symbol, version, binding) \
  __asm__(".symver " #local ", " #symbol LUMEN_SYMVER_##binding version)

/* One row of an interposer table: `real_<local>` (the same version of the
 * real function), the exported definition `local` with the parameters
 * `params` returning `call` (an expression that sees `real`, the real
 * function's pointer, and the parameters), bound to symbol@version. */
#define LUMEN_VERSIONED_INTERPOSER(local, Result, params, symbol, version, binding, call) \
  static ::lumen::RealFunction<Result params> real_##local{#symbol, version};            \
  LUMEN_EXPORT Result local params {                                                      \
    const ::lumen::InterposedCall in_call;                                                \
    auto* const real = real_##local.get();                                                \
    return call;                                                                          \
  }                                                                                       \
  LUMEN_SYMVER(local, symbol, version, binding)

#endif /* LUMEN_COLLECTOR_SUPPORT_H */
