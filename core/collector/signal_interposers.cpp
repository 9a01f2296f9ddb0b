// The target's signal-disposition and mask calls, routed through the signal
// chain so that it neither replaces nor blocks a signal a plugin claimed.
// glibc's signal() does not call the exported sigaction, so it is wrapped
// too. Versions as glibc exports them (objdump -T libc.so.6).
#include <dlfcn.h>
#include <signal.h>

#include "signal_chain.h"
#include "stack_capture.h"

using namespace lumen::collector;

namespace {

using Sigprocmask = int (*)(int, const sigset_t*, sigset_t*);
using PthreadSigmask = int (*)(int, const sigset_t*, sigset_t*);

// Copies `set` without the claimed signals when the target blocks. The
// runtime's own unwinder blocks them on purpose (see unwinding_now).
const sigset_t* filtered(int how, const sigset_t* set, sigset_t* copy) {
  if (set == nullptr || how == SIG_UNBLOCK || unwinding_now()) return set;
  *copy = *set;
  unblockable(copy);
  return copy;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int lumen_sigaction(int signal, const struct sigaction* act,
                                                           struct sigaction* old) {
  return target_sigaction(signal, act, old);
}

__attribute__((visibility("default"))) sighandler_t lumen_signal(int signal, sighandler_t handler) {
  // BSD semantics, as glibc's signal(): restart, no reset, no self-blocking.
  struct sigaction action {}, old {};
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, signal);
  if (target_sigaction(signal, &action, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

__attribute__((visibility("default"))) int lumen_sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  static const auto real = reinterpret_cast<Sigprocmask>(dlvsym(RTLD_NEXT, "sigprocmask", "GLIBC_2.2.5"));
  sigset_t copy;
  return real(how, filtered(how, set, &copy), old);
}

__attribute__((visibility("default"))) int lumen_pthread_sigmask_2_32(int how, const sigset_t* set, sigset_t* old) {
  static const auto real = reinterpret_cast<PthreadSigmask>(dlvsym(RTLD_NEXT, "pthread_sigmask", "GLIBC_2.32"));
  sigset_t copy;
  return real(how, filtered(how, set, &copy), old);
}

__attribute__((visibility("default"))) int lumen_pthread_sigmask_2_2_5(int how, const sigset_t* set, sigset_t* old) {
  static const auto real = reinterpret_cast<PthreadSigmask>(dlvsym(RTLD_NEXT, "pthread_sigmask", "GLIBC_2.2.5"));
  sigset_t copy;
  return real(how, filtered(how, set, &copy), old);
}

}  // extern "C"

__asm__(".symver lumen_sigaction, sigaction@@GLIBC_2.2.5");
__asm__(".symver lumen_signal, signal@@GLIBC_2.2.5");
__asm__(".symver lumen_sigprocmask, sigprocmask@@GLIBC_2.2.5");
__asm__(".symver lumen_pthread_sigmask_2_32, pthread_sigmask@@GLIBC_2.32");
__asm__(".symver lumen_pthread_sigmask_2_2_5, pthread_sigmask@GLIBC_2.2.5");
