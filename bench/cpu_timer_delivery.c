/* How many CPU-time expirations a thread is told about, by a POSIX
 * CPU-time timer (what clock profiling uses) and by a perf_event task-clock
 * counter (what `-h task-clock` uses), while BUSY other threads compete for
 * the CPUs. Each source runs in its own thread for SECONDS of that thread's
 * CPU time at a 10 ms period; the truth is the thread's CPU clock.
 *
 * Usage: cpu_timer_delivery [BUSY_THREADS [SECONDS]]   (default 2 x CPUs, 0.4) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 10000000L

static double seconds_of_work = 0.4;
static atomic_int stop_busy;
static _Thread_local long credited;     /* periods the signals stand for */
static _Thread_local long signals;
static _Thread_local int perf_fd = -1;

static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_signal(int signo, siginfo_t* info, void* context) {
  (void)signo, (void)context;
  ++signals;
  if (info->si_code == SI_TIMER) {
    credited += 1 + info->si_overrun;
  } else if (perf_fd >= 0) {
    credited += 1;
    ioctl(perf_fd, PERF_EVENT_IOC_REFRESH, 1);
  }
}

static void burn(void) {
  const double until = thread_cpu() + seconds_of_work;
  volatile double x = 1.0;
  while (thread_cpu() < until)
    for (int i = 0; i < 20000; ++i) x = x * 1.0000001 + 1e-9;
}

static void report(const char* source, double cpu) {
  printf("%-22s cpu %.3f s  signals %4ld  credited %.3f s  (%.0f %%)\n", source, cpu, signals,
         credited * PERIOD_NS / 1e9, 100.0 * credited * PERIOD_NS / 1e9 / cpu);
}

static void* posix_timer_thread(void* arg) {
  (void)arg;
  struct sigevent event;
  memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = SIGPROF;
  event._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  timer_t timer;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &timer) != 0) return perror("timer_create"), NULL;
  const struct itimerspec period = {{0, PERIOD_NS}, {0, PERIOD_NS}};
  timer_settime(timer, 0, &period, NULL);
  const double start = thread_cpu();
  burn();
  timer_delete(timer);
  report("POSIX CPU-time timer", thread_cpu() - start);
  return NULL;
}

static void* task_clock_thread(void* arg) {
  (void)arg;
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = PERIOD_NS;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  perf_fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (perf_fd < 0) return perror("perf_event_open task-clock"), NULL;
  struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
  fcntl(perf_fd, F_SETSIG, SIGPROF);
  fcntl(perf_fd, F_SETOWN_EX, &owner);
  fcntl(perf_fd, F_SETFL, O_ASYNC);
  const double start = thread_cpu();
  ioctl(perf_fd, PERF_EVENT_IOC_REFRESH, 1);
  burn();
  ioctl(perf_fd, PERF_EVENT_IOC_DISABLE, 0);
  report("perf_event task-clock", thread_cpu() - start);
  close(perf_fd);
  return NULL;
}

static void* busy(void* arg) {
  (void)arg;
  volatile unsigned long n = 0;
  while (!atomic_load_explicit(&stop_busy, memory_order_relaxed)) ++n;
  return NULL;
}

int main(int argc, char** argv) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const int busy_threads = argc > 1 ? atoi(argv[1]) : (int)(2 * cpus);
  if (argc > 2) seconds_of_work = atof(argv[2]);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &action, NULL);
  pthread_t others[256];
  const int n = busy_threads < 256 ? busy_threads : 256;
  for (int i = 0; i < n; ++i) pthread_create(&others[i], NULL, busy, NULL);
  printf("%d busy threads on %ld CPUs, %.1f s of CPU per source, %ld ms period\n", n, cpus, seconds_of_work,
         PERIOD_NS / 1000000);
  void* (*sources[])(void*) = {posix_timer_thread, task_clock_thread};
  for (int s = 0; s < 2; ++s) {
    pthread_t t;
    pthread_create(&t, NULL, sources[s], NULL);
    pthread_join(t, NULL);
  }
  atomic_store(&stop_busy, 1);
  for (int i = 0; i < n; ++i) pthread_join(others[i], NULL);
  return 0;
}
