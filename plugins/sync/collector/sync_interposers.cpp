// The calls that can block on another thread, interposed: each forwards to
// the real function with its arguments, return value and errno unchanged,
// and records how long it waited when that exceeds the threshold.
//
// Symbol versions: a program binds the version of each function it was
// linked against, so every wrapper is defined under each version libc
// exports (glibc 2.36, `objdump -T libc.so.6`), and forwards to the same
// version of the real function: one row each in sync_functions.def.
//
// The uncontended path stays cheap. Mutexes, rwlocks and semaphores are
// tried first with their non-blocking form: if that acquires, the wait was
// zero (not recorded unless the threshold is 0) and no clock was read. When
// it does not acquire, the blocking call decides, so its errors stay its own:
// an error-checking mutex the caller owns makes trylock say EBUSY and lock
// say EDEADLK; a recursive one the caller owns is re-acquired by either;
// a robust mutex whose owner died is acquired by either with EOWNERDEAD.
// Where the blocking form checks its arguments before acquiring (a clock id,
// a deadline's nanoseconds) or tests for cancellation even when it need not
// block (sem_wait, sem_timedwait), the fast path does the same first or is
// not taken.
//
// Nothing here takes a lock of its own, and no wrapper holds the runtime's
// re-entry guard while it blocks (a cancelled wait unwinds without coming
// back here); record_wait takes the guard only to record.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include <lumen/collector_support.h>

#include "sync_collector.h"

namespace lumen::sync {

namespace {

// ---- the real functions, by the version each wrapper forwards to ----

using MutexFn = int(pthread_mutex_t*);
using MutexTimedFn = int(pthread_mutex_t*, const timespec*);
using MutexClockFn = int(pthread_mutex_t*, clockid_t, const timespec*);
using RwlockFn = int(pthread_rwlock_t*);
using RwlockTimedFn = int(pthread_rwlock_t*, const timespec*);
using RwlockClockFn = int(pthread_rwlock_t*, clockid_t, const timespec*);
using CondWaitFn = int(pthread_cond_t*, pthread_mutex_t*);
using CondTimedFn = int(pthread_cond_t*, pthread_mutex_t*, const timespec*);
using CondClockFn = int(pthread_cond_t*, pthread_mutex_t*, clockid_t, const timespec*);
using SemFn = int(sem_t*);
using SemTimedFn = int(sem_t*, const timespec*);
using SemClockFn = int(sem_t*, clockid_t, const timespec*);
using BarrierFn = int(pthread_barrier_t*);
using JoinFn = int(pthread_t, void**);
using TimedjoinFn = int(pthread_t, void**, const timespec*);
using ClockjoinFn = int(pthread_t, void**, clockid_t, const timespec*);

// The real functions no wrapper stands for (the wrappers' own come with
// them, below).
#define SYNC_REAL(id, Result, params, symbol, version) RealFunction<Result params> r_##id{#symbol, version};
#define SYNC_WRAPPER(id, Result, params, symbol, version, binding, call)
#include "sync_functions.def"
#undef SYNC_REAL
#undef SYNC_WRAPPER

// ---- shared paths ----

// An acquisition that did not wait: recorded only when every call is.
inline void acquired_without_waiting(int64_t threshold, const void* object, ObjectKind kind, Call call, int result) {
  if (threshold != 0) return;
  const uint64_t now = now_ns();
  record_wait(now, now, object, kind, call, result);
}

inline bool exceeds(int64_t threshold, uint64_t request, uint64_t grant) {
  return threshold == 0 || static_cast<int64_t>(grant - request) > threshold;
}

// Times a call that returns an error number (the pthread functions).
template <typename Invoke>
inline int timed(int64_t threshold, const void* object, ObjectKind kind, Call call, Invoke invoke) {
  const uint64_t request = now_ns();
  const int result = invoke();
  const uint64_t grant = now_ns();
  if (exceeds(threshold, request, grant)) record_wait(request, grant, object, kind, call, result);
  return result;
}

// Times a call that returns 0 or -1 with errno (the semaphore functions).
template <typename Invoke>
inline int timed_errno(int64_t threshold, const void* object, ObjectKind kind, Call call, Invoke invoke) {
  const uint64_t request = now_ns();
  const int rc = invoke();
  const uint64_t grant = now_ns();
  if (exceeds(threshold, request, grant)) record_wait(request, grant, object, kind, call, rc == 0 ? 0 : errno);
  return rc;
}

// Whether a timed call would get past its argument checks to the point of
// acquiring: glibc refuses other clocks and out-of-range nanoseconds with
// EINVAL, some forms before they try to acquire.
inline bool deadline_valid(clockid_t clock, const timespec* deadline) {
  return deadline != nullptr && (clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC) && deadline->tv_nsec >= 0 &&
         deadline->tv_nsec < 1'000'000'000;
}

// ---- mutexes ----

inline bool try_mutex(int64_t threshold, pthread_mutex_t* mutex, Call call, int* result) {
  const int tried = r_mutex_trylock.get()(mutex);
  if (tried != 0 && tried != EOWNERDEAD) return false;  // EBUSY, or an error the blocking call reports itself
  acquired_without_waiting(threshold, mutex, ObjectKind::kMutex, call, tried);
  *result = tried;
  return true;
}

int mutex_lock(MutexFn* real, pthread_mutex_t* mutex) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(mutex);
  int result;
  if (try_mutex(threshold, mutex, Call::kMutexLock, &result)) return result;
  return timed(threshold, mutex, ObjectKind::kMutex, Call::kMutexLock, [&] { return real(mutex); });
}

int mutex_timedlock(MutexTimedFn* real, pthread_mutex_t* mutex, const timespec* deadline) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(mutex, deadline);
  int result;
  if (deadline_valid(CLOCK_REALTIME, deadline) && try_mutex(threshold, mutex, Call::kMutexTimedlock, &result))
    return result;
  return timed(threshold, mutex, ObjectKind::kMutex, Call::kMutexTimedlock, [&] { return real(mutex, deadline); });
}

int mutex_clocklock(MutexClockFn* real, pthread_mutex_t* mutex, clockid_t clock, const timespec* deadline) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(mutex, clock, deadline);
  int result;
  if (deadline_valid(clock, deadline) && try_mutex(threshold, mutex, Call::kMutexClocklock, &result)) return result;
  return timed(threshold, mutex, ObjectKind::kMutex, Call::kMutexClocklock,
               [&] { return real(mutex, clock, deadline); });
}

// ---- reader-writer locks ----

inline bool try_rwlock(int64_t threshold, RwlockFn* try_lock, pthread_rwlock_t* rwlock, Call call, int* result) {
  const int tried = try_lock(rwlock);
  if (tried != 0) return false;  // EBUSY, EDEADLK, EAGAIN: the blocking call answers for itself
  acquired_without_waiting(threshold, rwlock, ObjectKind::kRwlock, call, 0);
  *result = 0;
  return true;
}

int rwlock_lock(RwlockFn* real, RwlockFn* try_lock, Call call, pthread_rwlock_t* rwlock) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(rwlock);
  int result;
  if (try_rwlock(threshold, try_lock, rwlock, call, &result)) return result;
  return timed(threshold, rwlock, ObjectKind::kRwlock, call, [&] { return real(rwlock); });
}

int rwlock_timedlock(RwlockTimedFn* real, RwlockFn* try_lock, Call call, pthread_rwlock_t* rwlock,
                     const timespec* deadline) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(rwlock, deadline);
  int result;
  if (deadline_valid(CLOCK_REALTIME, deadline) && try_rwlock(threshold, try_lock, rwlock, call, &result))
    return result;
  return timed(threshold, rwlock, ObjectKind::kRwlock, call, [&] { return real(rwlock, deadline); });
}

int rwlock_clocklock(RwlockClockFn* real, RwlockFn* try_lock, Call call, pthread_rwlock_t* rwlock, clockid_t clock,
                     const timespec* deadline) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(rwlock, clock, deadline);
  int result;
  if (deadline_valid(clock, deadline) && try_rwlock(threshold, try_lock, rwlock, call, &result)) return result;
  return timed(threshold, rwlock, ObjectKind::kRwlock, call, [&] { return real(rwlock, clock, deadline); });
}

// ---- condition variables: a wait always waits for another thread ----

int cond_wait(CondWaitFn* real, pthread_cond_t* cond, pthread_mutex_t* mutex) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(cond, mutex);
  return timed(threshold, cond, ObjectKind::kCond, Call::kCondWait, [&] { return real(cond, mutex); });
}

int cond_timedwait(CondTimedFn* real, pthread_cond_t* cond, pthread_mutex_t* mutex, const timespec* deadline) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(cond, mutex, deadline);
  return timed(threshold, cond, ObjectKind::kCond, Call::kCondTimedwait, [&] { return real(cond, mutex, deadline); });
}

int cond_clockwait(CondClockFn* real, pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                   const timespec* deadline) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(cond, mutex, clock, deadline);
  return timed(threshold, cond, ObjectKind::kCond, Call::kCondClockwait,
               [&] { return real(cond, mutex, clock, deadline); });
}

// ---- semaphores ----

// sem_wait and sem_timedwait act on a pending cancellation even when the
// semaphore is available (POSIX: they "shall" be cancellation points), so
// the fast path tests for it first, as glibc does before its own fast path.
inline bool try_semaphore(int64_t threshold, sem_t* semaphore, Call call) {
  pthread_testcancel();
  const int saved_errno = errno;
  if (r_sem_trywait.get()(semaphore) != 0) {
    errno = saved_errno;  // trywait's EAGAIN is not the caller's
    return false;
  }
  acquired_without_waiting(threshold, semaphore, ObjectKind::kSemaphore, call, 0);
  return true;
}

int sem_wait_traced(SemFn* real, sem_t* semaphore) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(semaphore);
  if (try_semaphore(threshold, semaphore, Call::kSemWait)) return 0;
  return timed_errno(threshold, semaphore, ObjectKind::kSemaphore, Call::kSemWait, [&] { return real(semaphore); });
}

int sem_timedwait_traced(SemTimedFn* real, sem_t* semaphore, const timespec* deadline) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(semaphore, deadline);
  if (deadline_valid(CLOCK_REALTIME, deadline) && try_semaphore(threshold, semaphore, Call::kSemTimedwait)) return 0;
  return timed_errno(threshold, semaphore, ObjectKind::kSemaphore, Call::kSemTimedwait,
                     [&] { return real(semaphore, deadline); });
}

int sem_clockwait_traced(SemClockFn* real, sem_t* semaphore, clockid_t clock, const timespec* deadline) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(semaphore, clock, deadline);
  if (deadline_valid(clock, deadline) && try_semaphore(threshold, semaphore, Call::kSemClockwait)) return 0;
  return timed_errno(threshold, semaphore, ObjectKind::kSemaphore, Call::kSemClockwait,
                     [&] { return real(semaphore, clock, deadline); });
}

// ---- barriers and joins ----

int barrier_wait(BarrierFn* real, pthread_barrier_t* barrier) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(barrier);
  return timed(threshold, barrier, ObjectKind::kBarrier, Call::kBarrierWait, [&] { return real(barrier); });
}

inline const void* join_object(pthread_t thread) { return reinterpret_cast<const void*>(thread); }

int join(JoinFn* real, pthread_t thread, void** value) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(thread, value);
  return timed(threshold, join_object(thread), ObjectKind::kJoin, Call::kJoin, [&] { return real(thread, value); });
}

int timedjoin(TimedjoinFn* real, pthread_t thread, void** value, const timespec* deadline) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(thread, value, deadline);
  return timed(threshold, join_object(thread), ObjectKind::kJoin, Call::kTimedjoin,
               [&] { return real(thread, value, deadline); });
}

int clockjoin(ClockjoinFn* real, pthread_t thread, void** value, clockid_t clock, const timespec* deadline) {
  const int64_t threshold = current_threshold();
  if (threshold < 0) return real(thread, value, clock, deadline);
  return timed(threshold, join_object(thread), ObjectKind::kJoin, Call::kClockjoin,
               [&] { return real(thread, value, clock, deadline); });
}

}  // namespace

}  // namespace lumen::sync

using namespace lumen::sync;

// The exported definitions. Each is bound to a libc symbol version by its
// .symver; the names themselves stay local (sync_exports.map).
#define SYNC_REAL(id, Result, params, symbol, version)
#define SYNC_WRAPPER(id, Result, params, symbol, version, binding, call) \
  LUMEN_VERSIONED_INTERPOSER(lumen_sync_##id, Result, params, symbol, version, binding, call);
#include "sync_functions.def"
#undef SYNC_REAL
#undef SYNC_WRAPPER

namespace lumen::sync {

int real_mutex_lock(pthread_mutex_t* mutex) { return real_lumen_sync_mutex_lock.get()(mutex); }
int real_mutex_unlock(pthread_mutex_t* mutex) { return r_mutex_unlock.get()(mutex); }

void resolve_real_functions() {
#define SYNC_REAL(id, Result, params, symbol, version) r_##id.resolve();
#define SYNC_WRAPPER(id, Result, params, symbol, version, binding, call) real_lumen_sync_##id.resolve();
#include "sync_functions.def"
#undef SYNC_REAL
#undef SYNC_WRAPPER
}

}  // namespace lumen::sync
