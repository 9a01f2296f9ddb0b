/* Multithreaded target for the sync tests. Each scenario makes other threads
 * wait in a known way (a holder sleeps or burns CPU while holding a lock, a
 * producer is slow, a thread arrives late at a barrier, a thread runs long
 * before it is joined), and the waiting functions measure their own waits
 * around the traced call (sync_truth.h).
 *
 * Usage: sync_target SCENARIO...
 *   mutex cond rwlock sem barrier join   the waits the tests compare
 *   all                                  all six, one after the other
 *   threshold                            a ~0.5 ms and a ~50 ms mutex wait
 *   uncontended                          1000 uncontended lock/unlock pairs
 *   timedlock                            pthread_mutex_timedlock timing out
 *   combined                             a holder burning CPU, a waiter
 *   semantics                            return values, errno, cancellation;
 *                                        prints them and exits with 17 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sync_truth.h"

#define NOINLINE __attribute__((noinline))

static struct timespec realtime_in(double seconds) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  const long long ns = (long long)ts.tv_nsec + (long long)(seconds * 1e9);
  ts.tv_sec += (time_t)(ns / 1000000000LL);
  ts.tv_nsec = (long)(ns % 1000000000LL);
  return ts;
}

static pthread_t start_thread(void* (*routine)(void*), void* arg) {
  pthread_t t;
  if (pthread_create(&t, NULL, routine, arg) != 0) {
    perror("pthread_create");
    exit(2);
  }
  return t;
}

/* ---------------------------------------------------------------- mutex */

#define MUTEX_WAITERS 3
#define MUTEX_ROUNDS 3
pthread_mutex_t g_hold_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_held_pipe[2], g_done_pipe[2];
static struct wait_truth* t_wait_for_hold_lock;

NOINLINE void hold_lock_for(pthread_mutex_t* lock, double seconds, int waiters) {
  pthread_mutex_lock(lock);
  pipe_post(g_held_pipe, waiters);
  sleep_seconds(seconds);
  pthread_mutex_unlock(lock);
}

NOINLINE void wait_for_hold_lock(void) {
  const struct wait_start t0 = wait_begins();
  pthread_mutex_lock(&g_hold_lock);
  note_wait(t_wait_for_hold_lock, t0);
  pthread_mutex_unlock(&g_hold_lock);
}

static void* mutex_waiter(void* arg) {
  (void)arg;
  for (int round = 0; round < MUTEX_ROUNDS; ++round) {
    pipe_await(g_held_pipe, 1);
    wait_for_hold_lock();
    pipe_post(g_done_pipe, 1);
  }
  return NULL;
}

static void run_mutex(void) {
  pthread_t waiters[MUTEX_WAITERS];
  for (int i = 0; i < MUTEX_WAITERS; ++i) waiters[i] = start_thread(mutex_waiter, NULL);
  for (int round = 0; round < MUTEX_ROUNDS; ++round) {
    hold_lock_for(&g_hold_lock, 0.040, MUTEX_WAITERS);
    pipe_await(g_done_pipe, MUTEX_WAITERS);
  }
  for (int i = 0; i < MUTEX_WAITERS; ++i) pthread_join(waiters[i], NULL);
}

/* ------------------------------------------------------------ condition */

#define CONSUMERS 2
#define ITEMS 6
pthread_mutex_t g_queue_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_queue_nonempty = PTHREAD_COND_INITIALIZER;
static int g_items, g_production_over;
static struct wait_truth* t_wait_for_item;

NOINLINE void wait_for_item(void) {
  const struct wait_start t0 = wait_begins();
  pthread_cond_wait(&g_queue_nonempty, &g_queue_lock);
  note_wait(t_wait_for_item, t0);
}

static void* consumer(void* arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&g_queue_lock);
    while (g_items == 0 && !g_production_over) wait_for_item();
    if (g_items == 0) {
      pthread_mutex_unlock(&g_queue_lock);
      return NULL;
    }
    --g_items;
    pthread_mutex_unlock(&g_queue_lock);
  }
}

static void run_cond(void) {
  pthread_t consumers[CONSUMERS];
  for (int i = 0; i < CONSUMERS; ++i) consumers[i] = start_thread(consumer, NULL);
  for (int i = 0; i < ITEMS; ++i) {
    sleep_seconds(0.025); /* a slow producer: the consumers wait for it */
    pthread_mutex_lock(&g_queue_lock);
    ++g_items;
    pthread_cond_signal(&g_queue_nonempty);
    pthread_mutex_unlock(&g_queue_lock);
  }
  pthread_mutex_lock(&g_queue_lock);
  g_production_over = 1;
  pthread_cond_broadcast(&g_queue_nonempty);
  pthread_mutex_unlock(&g_queue_lock);
  for (int i = 0; i < CONSUMERS; ++i) pthread_join(consumers[i], NULL);
}

/* --------------------------------------------------------------- rwlock */

pthread_rwlock_t g_table_lock = PTHREAD_RWLOCK_INITIALIZER;
static int g_readers_go[2], g_readers_done[2], g_readers_holding[2];
static struct wait_truth *t_wait_to_read, *t_wait_to_read_timed, *t_wait_to_write;

NOINLINE void wait_to_read(void) {
  const struct wait_start t0 = wait_begins();
  pthread_rwlock_rdlock(&g_table_lock);
  note_wait(t_wait_to_read, t0);
  pthread_rwlock_unlock(&g_table_lock);
}

NOINLINE void wait_to_read_timed(void) {
  const struct timespec deadline = realtime_in(10.0);
  const struct wait_start t0 = wait_begins();
  pthread_rwlock_timedrdlock(&g_table_lock, &deadline);
  note_wait(t_wait_to_read_timed, t0);
  pthread_rwlock_unlock(&g_table_lock);
}

NOINLINE void hold_read_lock(double seconds) {
  pthread_rwlock_rdlock(&g_table_lock);
  pipe_post(g_readers_holding, 1);
  sleep_seconds(seconds);
  pthread_rwlock_unlock(&g_table_lock);
}

NOINLINE void wait_to_write(void) {
  const struct wait_start t0 = wait_begins();
  pthread_rwlock_wrlock(&g_table_lock);
  note_wait(t_wait_to_write, t0);
  pthread_rwlock_unlock(&g_table_lock);
}

static void* reader(void* arg) {
  const int timed = arg != NULL;
  pipe_await(g_readers_go, 1); /* phase 1: a writer holds the lock */
  if (timed) wait_to_read_timed();
  else wait_to_read();
  pipe_post(g_readers_done, 1);
  pipe_await(g_readers_go, 1); /* phase 2: the readers hold it, a writer waits */
  hold_read_lock(0.040);
  return NULL;
}

static void run_rwlock(void) {
  pthread_t readers[2] = {start_thread(reader, NULL), start_thread(reader, (void*)1)};
  pthread_rwlock_wrlock(&g_table_lock);
  pipe_post(g_readers_go, 2);
  sleep_seconds(0.040);
  pthread_rwlock_unlock(&g_table_lock);
  pipe_await(g_readers_done, 2);
  pipe_post(g_readers_go, 2);
  pipe_await(g_readers_holding, 2);
  wait_to_write();
  for (int i = 0; i < 2; ++i) pthread_join(readers[i], NULL);
}

/* ------------------------------------------------------------ semaphore */

#define POSTS 5
sem_t g_slots;
static struct wait_truth *t_wait_on_semaphore, *t_wait_on_semaphore_timed;

NOINLINE void wait_on_semaphore(void) {
  const struct wait_start t0 = wait_begins();
  sem_wait(&g_slots);
  note_wait(t_wait_on_semaphore, t0);
}

NOINLINE void wait_on_semaphore_timed(void) {
  const struct timespec deadline = realtime_in(10.0);
  const struct wait_start t0 = wait_begins();
  sem_timedwait(&g_slots, &deadline);
  note_wait(t_wait_on_semaphore_timed, t0);
}

static void* poster(void* arg) {
  (void)arg;
  for (int i = 0; i < POSTS; ++i) {
    sleep_seconds(0.020); /* a slow poster: the main thread waits for it */
    sem_post(&g_slots);
  }
  return NULL;
}

static void run_sem(void) {
  sem_init(&g_slots, 0, 0);
  pthread_t t = start_thread(poster, NULL);
  for (int i = 0; i < POSTS; ++i) {
    if (i < 3) wait_on_semaphore();
    else wait_on_semaphore_timed();
  }
  pthread_join(t, NULL);
  sem_destroy(&g_slots);
}

/* -------------------------------------------------------------- barrier */

#define BARRIER_ROUNDS 3
pthread_barrier_t g_phase_barrier;
static struct wait_truth *t_wait_at_barrier, *t_arrive_late;

NOINLINE void wait_at_barrier(void) {
  const struct wait_start t0 = wait_begins();
  pthread_barrier_wait(&g_phase_barrier);
  note_wait(t_wait_at_barrier, t0);
}

NOINLINE void arrive_late(void) {
  const struct wait_start t0 = wait_begins();
  pthread_barrier_wait(&g_phase_barrier);
  note_wait(t_arrive_late, t0);
}

static void* barrier_party(void* arg) {
  (void)arg;
  for (int round = 0; round < BARRIER_ROUNDS; ++round) wait_at_barrier();
  return NULL;
}

static void run_barrier(void) {
  pthread_barrier_init(&g_phase_barrier, NULL, 3);
  pthread_t parties[2] = {start_thread(barrier_party, NULL), start_thread(barrier_party, NULL)};
  for (int round = 0; round < BARRIER_ROUNDS; ++round) {
    sleep_seconds(0.030); /* the main thread is the late one */
    arrive_late();
  }
  for (int i = 0; i < 2; ++i) pthread_join(parties[i], NULL);
  pthread_barrier_destroy(&g_phase_barrier);
}

/* ----------------------------------------------------------------- join */

static struct wait_truth* t_join_long_thread;

static void* long_thread(void* arg) {
  (void)arg;
  sleep_seconds(0.060);
  return NULL;
}

NOINLINE void join_long_thread(pthread_t thread) {
  const struct wait_start t0 = wait_begins();
  pthread_join(thread, NULL);
  note_wait(t_join_long_thread, t0);
}

static void run_join(void) { join_long_thread(start_thread(long_thread, NULL)); }

/* ------------------------------------------------------------ threshold */

pthread_mutex_t g_short_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t g_long_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wait_truth *t_wait_short, *t_wait_long;
#define THRESHOLD_ROUNDS 3

struct holding {
  pthread_mutex_t* lock;
  double seconds;
};

static void* holder(void* arg) {
  const struct holding* h = arg;
  hold_lock_for(h->lock, h->seconds, 1);
  return NULL;
}

NOINLINE void wait_short(void) {
  const struct wait_start t0 = wait_begins();
  pthread_mutex_lock(&g_short_lock);
  note_wait(t_wait_short, t0);
  pthread_mutex_unlock(&g_short_lock);
}

NOINLINE void wait_long(void) {
  const struct wait_start t0 = wait_begins();
  pthread_mutex_lock(&g_long_lock);
  note_wait(t_wait_long, t0);
  pthread_mutex_unlock(&g_long_lock);
}

static void run_threshold(void) {
  for (int round = 0; round < THRESHOLD_ROUNDS; ++round) {
    struct holding short_hold = {&g_short_lock, 0.0005}, long_hold = {&g_long_lock, 0.050};
    pthread_t t = start_thread(holder, &short_hold);
    pipe_await(g_held_pipe, 1);
    wait_short();
    pthread_join(t, NULL);
    t = start_thread(holder, &long_hold);
    pipe_await(g_held_pipe, 1);
    wait_long();
    pthread_join(t, NULL);
  }
}

/* ---------------------------------------------------------- uncontended */

#define UNCONTENDED_PAIRS 1000
pthread_mutex_t g_quiet_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wait_truth* t_lock_uncontended;

NOINLINE void lock_uncontended(void) {
  for (int i = 0; i < UNCONTENDED_PAIRS; ++i) {
    const struct wait_start t0 = wait_begins();
    pthread_mutex_lock(&g_quiet_lock);
    note_wait(t_lock_uncontended, t0);
    pthread_mutex_unlock(&g_quiet_lock);
  }
}

/* ------------------------------------------------------------ timedlock */

pthread_mutex_t g_timed_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wait_truth* t_timedlock_times_out;

NOINLINE int timedlock_times_out(void) {
  const struct timespec deadline = realtime_in(0.020);
  const struct wait_start t0 = wait_begins();
  const int rc = pthread_mutex_timedlock(&g_timed_lock, &deadline);
  note_wait(t_timedlock_times_out, t0);
  if (rc == 0) pthread_mutex_unlock(&g_timed_lock);
  return rc;
}

static void run_timedlock(void) {
  struct holding hold = {&g_timed_lock, 0.080};
  pthread_t t = start_thread(holder, &hold);
  pipe_await(g_held_pipe, 1);
  const int rc = timedlock_times_out();
  printf("pthread_mutex_timedlock while held: %s\n", rc == ETIMEDOUT ? "ETIMEDOUT" : strerror(rc));
  pthread_join(t, NULL);
}

/* ------------------------------------------------------------- combined */

pthread_mutex_t g_busy_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wait_truth* t_wait_for_burner;

static double burn_cpu(double seconds) {
  const double until = thread_cpu_seconds() + seconds;
  volatile double x = 1.0;
  while (thread_cpu_seconds() < until)
    for (int i = 0; i < 20000; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

NOINLINE void burn_holding_lock(double seconds) {
  pthread_mutex_lock(&g_busy_lock);
  pipe_post(g_held_pipe, 1);
  const double c0 = thread_cpu_seconds();
  burn_cpu(seconds);
  note_cpu("burn_holding_lock", thread_cpu_seconds() - c0);
  pthread_mutex_unlock(&g_busy_lock);
}

static void* burner(void* arg) {
  (void)arg;
  burn_holding_lock(0.400);
  return NULL;
}

NOINLINE void wait_for_burner(void) {
  const struct wait_start t0 = wait_begins();
  pthread_mutex_lock(&g_busy_lock);
  note_wait(t_wait_for_burner, t0);
  pthread_mutex_unlock(&g_busy_lock);
}

static void run_combined(void) {
  pthread_t t = start_thread(burner, NULL);
  pipe_await(g_held_pipe, 1);
  wait_for_burner();
  pthread_join(t, NULL);
}

/* ------------------------------------------------------------ semantics */

static void report(const char* what, int rc) { printf("%s: %s\n", what, rc == 0 ? "0" : strerrorname_np(rc)); }

static void* die_holding(void* arg) {
  pthread_mutex_lock(arg);
  return NULL; /* exits owning a robust mutex */
}

static sem_t g_cancel_sem;
static void* cancelled_at_sem_wait(void* arg) {
  (void)arg;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
  pipe_post(g_held_pipe, 1);
  pipe_await(g_done_pipe, 1); /* the main thread has cancelled us by now */
  pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
  sem_wait(&g_cancel_sem); /* available, but a cancellation point that must act */
  return (void*)1;
}

static pthread_mutex_t g_cancel_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cancel_cond = PTHREAD_COND_INITIALIZER;
static void unlock_cancel_lock(void* arg) {
  (void)arg;
  pthread_mutex_unlock(&g_cancel_lock);
}
static void* cancelled_in_cond_wait(void* arg) {
  (void)arg;
  pthread_mutex_lock(&g_cancel_lock);
  pthread_cleanup_push(unlock_cancel_lock, NULL);
  pipe_post(g_held_pipe, 1);
  for (;;) pthread_cond_wait(&g_cancel_cond, &g_cancel_lock);
  pthread_cleanup_pop(1);
  return NULL;
}

static int run_semantics(void) {
  pthread_mutexattr_t attr;
  pthread_mutex_t m;

  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&m, &attr);
  report("errorcheck lock", pthread_mutex_lock(&m));
  report("errorcheck relock", pthread_mutex_lock(&m));
  const struct timespec soon = realtime_in(0.010);
  report("errorcheck timedlock by owner", pthread_mutex_timedlock(&m, &soon));
  report("errorcheck unlock", pthread_mutex_unlock(&m));
  report("errorcheck unlock again", pthread_mutex_unlock(&m));
  pthread_mutex_destroy(&m);

  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&m, &attr);
  report("recursive lock", pthread_mutex_lock(&m));
  report("recursive lock again", pthread_mutex_lock(&m));
  report("recursive unlock", pthread_mutex_unlock(&m));
  report("recursive unlock again", pthread_mutex_unlock(&m));
  report("recursive unlock a third time", pthread_mutex_unlock(&m));
  pthread_mutex_destroy(&m);

  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_NORMAL);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&m, &attr);
  pthread_t t = start_thread(die_holding, &m);
  pthread_join(t, NULL);
  report("robust lock after owner died", pthread_mutex_lock(&m));
  report("robust consistent", pthread_mutex_consistent(&m));
  report("robust unlock", pthread_mutex_unlock(&m));
  pthread_mutex_destroy(&m);
  pthread_mutexattr_destroy(&attr);

  pthread_mutex_init(&m, NULL);
  const struct timespec later = realtime_in(1.0);
  report("clocklock with a CPU-time clock", pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &later));
  report("trylock after it", pthread_mutex_trylock(&m));
  pthread_mutex_unlock(&m);
  pthread_mutex_destroy(&m);

  pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
  report("rwlock wrlock", pthread_rwlock_wrlock(&rw));
  report("rwlock rdlock by the writer", pthread_rwlock_rdlock(&rw));
  report("rwlock wrlock by the writer", pthread_rwlock_wrlock(&rw));
  pthread_rwlock_unlock(&rw);
  pthread_rwlock_destroy(&rw);

  report("join self", pthread_join(pthread_self(), NULL));

  sem_t s;
  sem_init(&s, 0, 1);
  struct timespec bad = realtime_in(1.0);
  bad.tv_nsec = 1000000000L;
  errno = 0;
  int rc = sem_timedwait(&s, &bad);
  int value = -1;
  sem_getvalue(&s, &value);
  printf("sem_timedwait with bad nanoseconds on an available semaphore: %d %s, value %d\n", rc,
         strerrorname_np(errno), value);
  sem_wait(&s);
  const struct timespec short_deadline = realtime_in(0.010);
  errno = 0;
  rc = sem_timedwait(&s, &short_deadline);
  printf("sem_timedwait on an empty semaphore: %d %s\n", rc, strerrorname_np(errno));
  errno = 4242;
  sem_post(&s);
  rc = sem_wait(&s);
  printf("sem_wait keeps errno: %d %d\n", rc, errno);
  sem_destroy(&s);

  /* errno across a contended, recorded lock */
  struct holding hold = {&g_hold_lock, 0.005};
  t = start_thread(holder, &hold);
  pipe_await(g_held_pipe, 1);
  errno = 4343;
  rc = pthread_mutex_lock(&g_hold_lock);
  printf("contended lock keeps errno: %d %d\n", rc, errno);
  pthread_mutex_unlock(&g_hold_lock);
  pthread_join(t, NULL);

  /* cancellation: sem_wait acts on a pending cancel though it need not block */
  sem_init(&g_cancel_sem, 0, 1);
  t = start_thread(cancelled_at_sem_wait, NULL);
  pipe_await(g_held_pipe, 1);
  pthread_cancel(t);
  pipe_post(g_done_pipe, 1);
  void* result = NULL;
  pthread_join(t, &result);
  sem_getvalue(&g_cancel_sem, &value);
  printf("sem_wait with a cancel pending: %s, value %d\n", result == PTHREAD_CANCELED ? "cancelled" : "returned",
         value);
  sem_destroy(&g_cancel_sem);

  /* cancellation inside pthread_cond_wait: the cleanup handler runs with the
   * mutex re-acquired */
  t = start_thread(cancelled_in_cond_wait, NULL);
  pipe_await(g_held_pipe, 1);
  pthread_mutex_lock(&g_cancel_lock); /* the thread is in pthread_cond_wait */
  pthread_cancel(t);
  pthread_mutex_unlock(&g_cancel_lock);
  pthread_join(t, &result);
  printf("pthread_cond_wait cancelled: %s, mutex free: %s\n", result == PTHREAD_CANCELED ? "yes" : "no",
         pthread_mutex_trylock(&g_cancel_lock) == 0 ? "yes" : "no");
  pthread_mutex_unlock(&g_cancel_lock);
  return 17;
}

/* ----------------------------------------------------------------- main */

static void declare_truths(void) {
  t_wait_for_hold_lock = wait_truth("wait_for_hold_lock", "g_hold_lock", "mutex");
  t_wait_for_item = wait_truth("wait_for_item", "g_queue_nonempty", "cond");
  t_wait_to_read = wait_truth("wait_to_read", "g_table_lock", "rwlock");
  t_wait_to_read_timed = wait_truth("wait_to_read_timed", "g_table_lock", "rwlock");
  t_wait_to_write = wait_truth("wait_to_write", "g_table_lock", "rwlock");
  t_wait_on_semaphore = wait_truth("wait_on_semaphore", "g_slots", "sem");
  t_wait_on_semaphore_timed = wait_truth("wait_on_semaphore_timed", "g_slots", "sem");
  t_wait_at_barrier = wait_truth("wait_at_barrier", "g_phase_barrier", "barrier");
  t_arrive_late = wait_truth("arrive_late", "g_phase_barrier", "barrier");
  t_join_long_thread = wait_truth("join_long_thread", "", "join");
  t_wait_short = wait_truth("wait_short", "g_short_lock", "mutex");
  t_wait_long = wait_truth("wait_long", "g_long_lock", "mutex");
  t_lock_uncontended = wait_truth("lock_uncontended", "g_quiet_lock", "mutex");
  t_timedlock_times_out = wait_truth("timedlock_times_out", "g_timed_lock", "mutex");
  t_wait_for_burner = wait_truth("wait_for_burner", "g_busy_lock", "mutex");
}

int main(int argc, char** argv) {
  if (pipe(g_held_pipe) != 0 || pipe(g_done_pipe) != 0 || pipe(g_readers_go) != 0 || pipe(g_readers_done) != 0 ||
      pipe(g_readers_holding) != 0) {
    perror("pipe");
    return 2;
  }
  declare_truths();
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    const char* s = argv[i];
    const int all = strcmp(s, "all") == 0;
    if (all || strcmp(s, "mutex") == 0) run_mutex();
    if (all || strcmp(s, "cond") == 0) run_cond();
    if (all || strcmp(s, "rwlock") == 0) run_rwlock();
    if (all || strcmp(s, "sem") == 0) run_sem();
    if (all || strcmp(s, "barrier") == 0) run_barrier();
    if (all || strcmp(s, "join") == 0) run_join();
    if (strcmp(s, "threshold") == 0) run_threshold();
    if (strcmp(s, "uncontended") == 0) lock_uncontended();
    if (strcmp(s, "timedlock") == 0) run_timedlock();
    if (strcmp(s, "combined") == 0) run_combined();
    if (strcmp(s, "semantics") == 0) status = run_semantics();
  }
  write_truth();
  printf("sync_target done\n");
  return status;
}
