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

#include "lifecycle/runtime_state.h"

using namespace lumen::collector;

#define LUMEN_STRINGIFY_VALUE(x) #x
#define LUMEN_STRINGIFY(x) LUMEN_STRINGIFY_VALUE(x)

// syscall(2) past the seccomp check: the instruction, errno set on
// failure; defined below.
extern "C" [[gnu::visibility("hidden")]] long lumen_system_call(long number, long a1, long a2, long a3, long a4, long a5,
                                                                long a6);

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

// syscall(2) is the runtime's: the seccomp call goes through
// before_seccomp_call, every other is made as libc makes it, by
// instruction, with no stack frame (a vfork made through it returns twice
// from the same frame) and nothing but the instruction between the caller
// and the kernel, so the runtime's own raw calls from signal handlers come
// here safely too. The arguments are in the kernel's registers but one
// (the fourth in r10 on x86-64) and the sixth is on the stack.
extern "C" {

[[gnu::used, gnu::visibility("hidden")]] long lumen_syscall_failed(long result) {
  errno = static_cast<int>(-result);
  return -1;
}

[[gnu::used, gnu::visibility("hidden")]] long lumen_syscall_seccomp(long number, long operation, long flags, long a3,
                                                                long a4, long a5, long a6) {
  before_seccomp_call(operation, flags);
  return lumen_system_call(number, operation, flags, a3, a4, a5, a6);
}

}  // extern "C"

#if defined(__x86_64__)
__asm__(R"(
  .text
  .globl lumen_syscall_2_2_5
  .type lumen_syscall_2_2_5, @function
  .globl lumen_system_call
  .hidden lumen_system_call
  .type lumen_system_call, @function
lumen_syscall_2_2_5:
  .cfi_startproc
  cmpq $)" LUMEN_STRINGIFY(SYS_seccomp) R"(, %rdi
  je lumen_syscall_seccomp
lumen_system_call:
  movq %rdi, %rax
  movq %rsi, %rdi
  movq %rdx, %rsi
  movq %rcx, %rdx
  movq %r8, %r10
  movq %r9, %r8
  movq 8(%rsp), %r9
  syscall
  cmpq $-4095, %rax
  jae 1f
  ret
1:
  movq %rax, %rdi
  jmp lumen_syscall_failed
  .cfi_endproc
  .size lumen_syscall_2_2_5, .-lumen_syscall_2_2_5
)");
#elif defined(__aarch64__)
__asm__(R"(
  .text
  .globl lumen_syscall_2_2_5
  .type lumen_syscall_2_2_5, %function
  .globl lumen_system_call
  .hidden lumen_system_call
  .type lumen_system_call, %function
lumen_syscall_2_2_5:
  .cfi_startproc
  cmp x0, #)" LUMEN_STRINGIFY(SYS_seccomp) R"(
  b.eq lumen_syscall_seccomp
lumen_system_call:
  mov x8, x0
  mov x0, x1
  mov x1, x2
  mov x2, x3
  mov x3, x4
  mov x4, x5
  mov x5, x6
  svc #0
  cmn x0, #4095
  b.cs 1f
  ret
1:
  b lumen_syscall_failed
  .cfi_endproc
  .size lumen_syscall_2_2_5, .-lumen_syscall_2_2_5
)");
#else
#error "syscall(2) for this architecture"
#endif
LUMEN_SYMVER(lumen_syscall_2_2_5, syscall, "GLIBC_2.2.5", DEFAULT);
