// Entering a seccomp sandbox through prctl(PR_SET_SECCOMP): the thread may
// no longer make the system calls collection needs (strict mode allows
// read, write, exit and sigreturn; a filter whatever it says), and one it
// made would kill the process. The thread's collection ends before the call
// (its timers gone, its records flushed), threads created after it are not
// collected, and the experiment says so. (A seccomp system call made
// through syscall(2) is not seen here.)
#include <errno.h>
#include <lumen/collector_support.h>

#include "runtime_state.h"

using namespace lumen::collector;

namespace {

constexpr int kSetSeccomp = 22;  // PR_SET_SECCOMP, without <sys/prctl.h>'s variadic prototype

::lumen::RealFunction<int(int, unsigned long, unsigned long, unsigned long, unsigned long)> real_prctl{"prctl",
                                                                                                     "GLIBC_2.2.5"};

}  // namespace

// prctl is variadic; its arguments are in the same registers as these.
extern "C" LUMEN_EXPORT int lumen_prctl_2_2_5(int option, unsigned long a2, unsigned long a3, unsigned long a4,
                                              unsigned long a5) {
  auto* const real = real_prctl.get();
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (option == kSetSeccomp && collecting()) end_collection_for_sandbox(a2);
  return real(option, a2, a3, a4, a5);
}
LUMEN_SYMVER(lumen_prctl_2_2_5, prctl, "GLIBC_2.2.5", DEFAULT);
