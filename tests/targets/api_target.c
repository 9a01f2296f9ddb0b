/* A program using the collector API: it runs the same with or without
 * collect. Under collect: two named sample points, CPU burned between
 * collector_pause and collector_resume left out, a function it generates at
 * run time (x86-64 machine code copied into an executable mapping) named by
 * collector_func_load, and collector_terminate_expt ending the experiment
 * before terminated_work. */
#include <collectorAPI.h>
#include <string.h>
#include <sys/mman.h>

#include "truth.h"

#define NOINLINE __attribute__((noinline))

NOINLINE void paused_api_work(double s) { double t0 = thread_cpu_seconds(); burn_cpu(s); truth_add("paused_api_work", thread_cpu_seconds() - t0); }
NOINLINE void recorded_api_work(double s) { double t0 = thread_cpu_seconds(); burn_cpu(s); truth_add("recorded_api_work", thread_cpu_seconds() - t0); }
NOINLINE void terminated_work(double s) { double t0 = thread_cpu_seconds(); burn_cpu(s); truth_add("terminated_work", thread_cpu_seconds() - t0); }

/* uint64_t countdown(uint64_t n): mov rax, rdi; 1: dec rax; jnz 1b; ret */
static const unsigned char kCountdown[] = {0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3};

static int run_generated_code(double seconds) {
#if defined(__x86_64__)
  void* code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return 0;
  memcpy(code, kCountdown, sizeof kCountdown);
  if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0) return 0;
  collector_func_load("generated_countdown", NULL, NULL, code, (int)sizeof kCountdown, 0, NULL);
  unsigned long (*countdown)(unsigned long) = (unsigned long (*)(unsigned long))code;
  const double t0 = thread_cpu_seconds();
  while (thread_cpu_seconds() - t0 < seconds) countdown(2000000);
  truth_add("generated_countdown", thread_cpu_seconds() - t0);
  collector_func_unload(code);
  munmap(code, 4096);
  return 1;
#else
  (void)seconds;
  return 0;
#endif
}

int main(void) {
  collector_sample("before pause");
  collector_pause();
  paused_api_work(0.3);
  collector_resume();
  recorded_api_work(0.4);
  const int generated = run_generated_code(0.4);
  collector_sample("after generated code");
  collector_terminate_expt();
  terminated_work(0.3);
  collector_sample("after terminate");
  truth_write();
  printf("api_target done (generated code: %s)\n", generated ? "yes" : "no");
  return 0;
}
