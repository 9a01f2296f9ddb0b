// Entering a seccomp sandbox, through prctl(PR_SET_SECCOMP) or the seccomp
// system call made with syscall(2): the thread may no longer make the
// system calls collection needs (strict mode allows read, write, exit and
// sigreturn; a filter whatever it says), and one it made would kill the
// process. The thread's collection ends before the call (its timers gone,
// its records flushed), threads created after it are not collected, and
// the experiment says so. A filter installed on every thread at once
// (SECCOMP_FILTER_FLAG_TSYNC) ends the process's collection, the
// collector's own threads with it. A seccomp system call made by an
// instruction of the program's own, not through libc, is not seen.
#include <errno.h>
#include <linux/seccomp.h>
#include <lumen/collector_support.h>
#include <sys/syscall.h>

#include "runtime_state.h"

using namespace lumen::collector;

namespace {

constexpr int kSetSeccomp = 22;  // PR_SET_SECCOMP, without <sys/prctl.h>'s variadic prototype
constexpr unsigned long kStrictMode = 1;  // prctl's SECCOMP_MODE_STRICT
constexpr unsigned long kFilterMode = 2;  // prctl's SECCOMP_MODE_FILTER

::lumen::RealFunction<int(int, unsigned long, unsigned long, unsigned long, unsigned long)> real_prctl{"prctl",
                                                                                                     "GLIBC_2.2.5"};

// The seccomp system call's operations that sandbox the caller (the others
// only ask what the kernel supports).
void before_seccomp_call(long operation, long flags) {
  if (!collecting()) return;
  if (operation == SECCOMP_SET_MODE_STRICT) {
    end_collection_for_sandbox(kStrictMode);
  } else if (operation == SECCOMP_SET_MODE_FILTER) {
    if ((flags & SECCOMP_FILTER_FLAG_TSYNC) != 0)
      end_collection_for_sandboxed_process();
    else
      end_collection_for_sandbox(kFilterMode);
  }
}

// [signal-safe] The system call itself, as libc's syscall(2) makes it: the
// runtime's own raw calls come here too, from signal handlers included.
long system_call(long number, long a1, long a2, long a3, long a4, long a5, long a6) {
  long result;
#if defined(__x86_64__)
  register long r10 __asm__("r10") = a4;
  register long r8 __asm__("r8") = a5;
  register long r9 __asm__("r9") = a6;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(number), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
#elif defined(__aarch64__)
  register long x8 __asm__("x8") = number;
  register long x0 __asm__("x0") = a1;
  register long x1 __asm__("x1") = a2;
  register long x2 __asm__("x2") = a3;
  register long x3 __asm__("x3") = a4;
  register long x4 __asm__("x4") = a5;
  register long x5 __asm__("x5") = a6;
  __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
  result = x0;
#else
#error "a system call instruction for this architecture"
#endif
  if (static_cast<unsigned long>(result) > -4096UL) {
    errno = static_cast<int>(-result);
    return -1;
  }
  return result;
}

}  // namespace

// prctl is variadic; its arguments are in the same registers as these.
extern "C" LUMEN_EXPORT int lumen_prctl_2_2_5(int option, unsigned long a2, unsigned long a3, unsigned long a4,
                                              unsigned long a5) {
  auto* const real = real_prctl.get();
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (option == kSetSeccomp && collecting() && (a2 == kStrictMode || a2 == kFilterMode))
    end_collection_for_sandbox(a2);
  return real(option, a2, a3, a4, a5);
}
LUMEN_SYMVER(lumen_prctl_2_2_5, prctl, "GLIBC_2.2.5", DEFAULT);

// syscall is variadic too: six arguments in registers, as the kernel takes
// them (the sixth from the stack, as libc's reads it).
extern "C" LUMEN_EXPORT long lumen_syscall_2_2_5(long number, long a1, long a2, long a3, long a4, long a5, long a6) {
  if (number == SYS_seccomp) before_seccomp_call(a1, a2);
  return system_call(number, a1, a2, a3, a4, a5, a6);
}
LUMEN_SYMVER(lumen_syscall_2_2_5, syscall, "GLIBC_2.2.5", DEFAULT);
