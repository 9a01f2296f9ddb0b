// [signal-safe] A signal's disposition as the kernel records it, read by
// system call past every interposer: the handler, its flags and the
// trampoline (sa_restorer) the C library gave it.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace lumen::collector {

struct KernelSigaction {
  uintptr_t handler;
  unsigned long flags;
  uintptr_t restorer;
  uint64_t mask;
};

inline constexpr unsigned long kSaRestorer = 0x04000000;  // SA_RESTORER

inline bool read_kernel_sigaction(int signal, KernelSigaction& action) {
  action = {};
  return syscall(SYS_rt_sigaction, signal, nullptr, &action, sizeof action.mask) == 0;
}

// Sets the disposition exactly as `action` has it (a C library's sigaction
// would add its own trampoline and SA_RESTORER to a SIG_DFL).
inline bool write_kernel_sigaction(int signal, const KernelSigaction& action) {
  return syscall(SYS_rt_sigaction, signal, &action, nullptr, sizeof action.mask) == 0;
}

}  // namespace lumen::collector
