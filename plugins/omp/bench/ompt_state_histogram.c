/* What an OMPT runtime's ompt_get_state says at clock samples, beside the
 * waits its callbacks report: a program with its own OMPT tool samples each
 * thread on a per-thread CPU-time timer (1 ms, SIGPROF), reads the state in
 * the handler, and counts the states per phase of the program, thread and
 * whether a sync_region_wait or mutex_acquire..acquired interval was open.
 * plugins/omp/README.md ("Which facts come from where") quotes it.
 *
 *   clang -fopenmp=libomp -O1 -o ompt_state_histogram ompt_state_histogram.c
 *   OMP_WAIT_POLICY=active ./ompt_state_histogram */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../ompt_state_names.h"
#include "../tests/targets/cpu_burn.h"

enum { kPhases = 11, kStates = 0x103 };
static const char* const kPhaseNames[kPhases] = {
    "start", "imbalanced region", "serial (worker idle)", "explicit barrier", "lock", "critical",
    "ordered", "single", "taskwait", "end (worker idle)", "done"};

static ompt_get_state_t get_state;
static volatile int phase;
static __thread int thread_num = -1;
static __thread int traced; /* waits the callbacks reported open on this thread */
static __thread int has_timer;
static unsigned long counts[kPhases][2][2][kStates];

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel,
                                ompt_data_t* task, const void* codeptr) {
  traced += endpoint == ompt_scope_begin ? 1 : -1;
}
static void on_mutex_acquire(ompt_mutex_t kind, unsigned hint, unsigned impl, ompt_wait_id_t id, const void* codeptr) {
  ++traced;
}
static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t id, const void* codeptr) { --traced; }

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t* data) {
  get_state = (ompt_get_state_t)lookup("ompt_get_state");
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  set_callback(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait);
  set_callback(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
  set_callback(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
  return 1;
}
static void finalize(ompt_data_t* data) {}
ompt_start_tool_result_t* ompt_start_tool(unsigned version, const char* runtime) {
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}

static void on_sample(int signal) {
  if (get_state == NULL || thread_num < 0 || thread_num > 1) return;
  ompt_wait_id_t wait_id = 0;
  int state = get_state(&wait_id);
  if (state < 0 || state >= kStates) state = kStates - 1;
  __atomic_add_fetch(&counts[phase][thread_num][traced > 0][state], 1, __ATOMIC_RELAXED);
}

static void sample_this_thread(void) {
  thread_num = omp_get_thread_num();
  if (has_timer) return;
  has_timer = 1;
  struct sigevent event;
  memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = SIGPROF;
  event._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  timer_t timer;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &timer) != 0) return;
  const struct itimerspec every_ms = {{0, 1000000}, {0, 1000000}};
  timer_settime(timer, 0, &every_ms, NULL);
}

int main(void) {
  signal(SIGPROF, on_sample);
  sample_this_thread();
  omp_lock_t lock;
  omp_init_lock(&lock);
  phase = 1;
#pragma omp parallel num_threads(2)
  {
    sample_this_thread();
    burn_cpu(thread_num == 0 ? 0.1 : 0.4);
  }
  phase = 2;
  burn_cpu(0.3);
  phase = 3;
#pragma omp parallel num_threads(2)
  {
    burn_cpu(thread_num == 0 ? 0.3 : 0.1);
#pragma omp barrier
  }
  phase = 4;
#pragma omp parallel num_threads(2)
  for (int round = 0; round < 5; ++round) {
    omp_set_lock(&lock);
    burn_cpu(0.02);
    omp_unset_lock(&lock);
  }
  phase = 5;
#pragma omp parallel num_threads(2)
  for (int round = 0; round < 5; ++round) {
#pragma omp critical
    burn_cpu(0.02);
  }
  phase = 6;
#pragma omp parallel for num_threads(2) ordered schedule(static, 1)
  for (int i = 0; i < 10; ++i) {
#pragma omp ordered
    burn_cpu(0.02);
  }
  phase = 7;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    burn_cpu(0.1);
  }
  phase = 8;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    {
#pragma omp task
      burn_cpu(0.1);
#pragma omp taskwait
    }
  }
  phase = 9;
  burn_cpu(0.1);
  phase = 10;
  for (int p = 1; p < kPhases - 1; ++p)
    for (int t = 0; t < 2; ++t)
      for (int in_wait = 0; in_wait < 2; ++in_wait) {
        int any = 0;
        for (int s = 0; s < kStates; ++s) any |= counts[p][t][in_wait][s] != 0;
        if (!any) continue;
        printf("%-22s thread %d %-16s", kPhaseNames[p], t, in_wait ? "in a traced wait" : "outside");
        for (int s = 0; s < kStates; ++s)
          if (counts[p][t][in_wait][s] != 0) printf(" %s=%lu", ompt_state_label((uint32_t)s), counts[p][t][in_wait][s]);
        printf("\n");
      }
  omp_destroy_lock(&lock);
  return 0;
}
