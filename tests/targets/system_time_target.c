/* Spends measured shares of its time in the kernel, for er_kernel's tests:
 * read_zero_loop reads /dev/zero, getpid_loop makes getpid calls,
 * fault_loop maps memory and touches every page, user_spin stays in user
 * mode, and a forked child (a process of its own) spins in child_spin. The
 * system calls are made right here (the syscall instruction inline), so a
 * frame-pointer walk of the user stack from the kernel starts inside the
 * function that made them. Each function's user and system time come from
 * getrusage(RUSAGE_THREAD) around it; the child's from wait4. Written to
 * LUMEN_TEST_TRUTH as
 *   {"pid": N, "child_pid": N, "functions": {name: {"user": s, "system": s}}}
 * Built with frame pointers, as a program profiled with perf -g would be. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline __attribute__((always_inline)) long raw_syscall6(long n, long a, long b, long c, long d, long e,
                                                                long f) {
#if !defined(__x86_64__)
  return syscall(n, a, b, c, d, e, f); /* elsewhere through the C library's wrapper */
#else
  long result;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return result;
#endif
}

static double thread_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct times {
  double user, system;
};
static struct times thread_times(void) {
  struct rusage u;
  getrusage(RUSAGE_THREAD, &u);
  return (struct times){(double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6,
                        (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6};
}

static char buffer[1 << 16];

__attribute__((noinline)) void read_zero_loop(int fd, double seconds) {
  const double until = thread_cpu() + seconds;
  while (thread_cpu() < until)
    for (int i = 0; i < 50; ++i) raw_syscall6(SYS_read, fd, (long)buffer, sizeof buffer, 0, 0, 0);
}

__attribute__((noinline)) void getpid_loop(double seconds) {
  const double until = thread_cpu() + seconds;
  while (thread_cpu() < until)
    for (int i = 0; i < 2000; ++i) raw_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

__attribute__((noinline)) void fault_loop(double seconds) {
  const long bytes = 8L << 20, page = sysconf(_SC_PAGESIZE);
  const double until = thread_cpu() + seconds;
  while (thread_cpu() < until) {
    char* memory = (char*)raw_syscall6(SYS_mmap, 0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if ((long)memory < 0) abort();
    for (long at = 0; at < bytes; at += page) ((volatile char*)memory)[at] = 1;
    raw_syscall6(SYS_munmap, (long)memory, bytes, 0, 0, 0, 0);
  }
}

__attribute__((noinline)) double user_spin(double seconds) {
  const double until = thread_cpu() + seconds;
  volatile double x = 1;
  while (thread_cpu() < until)
    for (int i = 0; i < 20000; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

__attribute__((noinline)) double child_spin(double seconds) { return user_spin(seconds); }

int main(void) {
  const char* names[] = {"read_zero_loop", "getpid_loop", "fault_loop", "user_spin"};
  struct times spent[4];
  const int fd = open("/dev/zero", O_RDONLY);
  if (fd < 0) return 1;
  for (int f = 0; f < 4; ++f) {
    const struct times before = thread_times();
    if (f == 0) read_zero_loop(fd, 0.5);
    if (f == 1) getpid_loop(0.4);
    if (f == 2) fault_loop(0.4);
    if (f == 3) user_spin(0.4);
    const struct times after = thread_times();
    spent[f] = (struct times){after.user - before.user, after.system - before.system};
  }
  const pid_t child = fork();
  if (child == 0) {
    child_spin(0.3);
    _exit(0);
  }
  int status;
  struct rusage child_usage;
  if (wait4(child, &status, 0, &child_usage) != child) return 1;
  const char* path = getenv("LUMEN_TEST_TRUTH");
  FILE* out = path ? fopen(path, "w") : stdout;
  if (out == NULL) return 1;
  fprintf(out, "{\"pid\": %d, \"child_pid\": %d, \"child\": {\"user\": %.6f, \"system\": %.6f}, \"functions\": {",
          (int)getpid(), (int)child, (double)child_usage.ru_utime.tv_sec + child_usage.ru_utime.tv_usec * 1e-6,
          (double)child_usage.ru_stime.tv_sec + child_usage.ru_stime.tv_usec * 1e-6);
  for (int f = 0; f < 4; ++f)
    fprintf(out, "%s\"%s\": {\"user\": %.6f, \"system\": %.6f}", f ? ", " : "", names[f], spent[f].user,
            spent[f].system);
  fprintf(out, "}}\n");
  if (out != stdout) fclose(out);
  return 0;
}
