#include "hijacked_thread.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <algorithm>

namespace lumen::attach {

namespace {

constexpr uint64_t kRedZone = 128;
constexpr size_t kXstateBytes = 64 * 1024;  // above any XSAVE area (AMX's is 11 KiB)
// The kernel's XSAVE size, once one thread's was read: a roll call of many
// threads then allocates (and faults in) only that much for each.
std::atomic<size_t> g_xstate_bytes{kXstateBytes};

std::runtime_error failure(const std::string& what, int error) {
  return std::runtime_error(what + ": " + std::strerror(error));
}

// Waits for the thread's next stop; false after `limit`. A tracer is sent
// SIGCHLD at each stop of its tracees: held blocked, it wakes the wait at
// once (a poll would add its period to each of a roll call's stops).
bool wait_stop(pid_t tid, int* status, std::chrono::milliseconds limit) {
  sigset_t child;
  sigemptyset(&child);
  sigaddset(&child, SIGCHLD);
  sigset_t before;
  pthread_sigmask(SIG_BLOCK, &child, &before);
  const auto until = std::chrono::steady_clock::now() + limit;
  bool stopped = false;
  for (;;) {
    const pid_t got = waitpid(tid, status, __WALL | WNOHANG);
    if (got == tid) {
      stopped = true;
      break;
    }
    if (got < 0 && errno != EINTR) {
      const int error = errno;
      pthread_sigmask(SIG_SETMASK, &before, nullptr);
      throw failure("waiting for thread " + std::to_string(tid), error);
    }
    const auto left = until - std::chrono::steady_clock::now();
    if (left <= std::chrono::nanoseconds::zero()) break;
    const auto wait = std::min<std::chrono::nanoseconds>(left, std::chrono::milliseconds(10));
    const timespec timeout{0, static_cast<long>(wait.count())};
    sigtimedwait(&child, nullptr, &timeout);
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return stopped;
}

void write_memory(pid_t pid, uint64_t address, const void* bytes, size_t count) {
  iovec local{const_cast<void*>(bytes), count};
  iovec remote{reinterpret_cast<void*>(address), count};
  if (process_vm_writev(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(count)) return;
  // process_vm_writev honours page protections like the process itself;
  // /proc/PID/mem is the tracer's way and works where it does not.
  const int fd = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDWR | O_CLOEXEC);
  const bool written = fd >= 0 && pwrite(fd, bytes, count, static_cast<off_t>(address)) == static_cast<ssize_t>(count);
  const int error = errno;
  if (fd >= 0) close(fd);
  if (!written) throw failure("writing the memory of process " + std::to_string(pid), error);
}

// A called function returns to address 0: the fault stops the thread there.
constexpr uint64_t kReturnAddress = 0;

}  // namespace

bool HijackedThread::interrupt(pid_t tid) {
  if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) return false;
  if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) == 0) return true;
  ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
  return false;
}

HijackedThread::HijackedThread(pid_t pid, pid_t tid) : pid_(pid), tid_(tid) {
  if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) throw failure("ptrace", errno);
  if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) {
    const int error = errno;
    ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    throw failure("ptrace(PTRACE_INTERRUPT)", error);
  }
  await_interrupt();
}

HijackedThread::HijackedThread(pid_t pid, pid_t tid, Interrupted) : pid_(pid), tid_(tid) { await_interrupt(); }

void HijackedThread::await_interrupt() {
  const pid_t tid = tid_;
  int status = 0;
  // A stop for a signal on its way is passed on, and the interrupt's own
  // stop (PTRACE_EVENT_STOP) awaited.
  for (;;) {
    if (!wait_stop(tid, &status, std::chrono::seconds(5))) {
      ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
      throw std::runtime_error("thread " + std::to_string(tid) + " did not stop within 5 s");
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) throw std::runtime_error("the process ended");
    if (WIFSTOPPED(status) && (status >> 16) == PTRACE_EVENT_STOP) break;
    if (WIFSTOPPED(status)) ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<long>(WSTOPSIG(status))));
  }
  if (ptrace(PTRACE_GETREGS, tid, nullptr, &saved_) != 0) {
    const int error = errno;
    ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    throw failure("ptrace(PTRACE_GETREGS)", error);
  }
  saved_xstate_.resize(g_xstate_bytes.load(std::memory_order_relaxed));  // cut to the kernel's size below
  iovec xstate{saved_xstate_.data(), saved_xstate_.size()};
  if (ptrace(PTRACE_GETREGSET, tid, reinterpret_cast<void*>(NT_X86_XSTATE), &xstate) != 0) {
    const int error = errno;
    ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    throw failure("ptrace(PTRACE_GETREGSET)", error);
  }
  saved_xstate_.resize(xstate.iov_len);
  g_xstate_bytes.store(xstate.iov_len, std::memory_order_relaxed);
  if (ptrace(PTRACE_GETSIGMASK, tid, reinterpret_cast<void*>(sizeof saved_mask_), &saved_mask_) != 0) {
    const int error = errno;
    ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    throw failure("ptrace(PTRACE_GETSIGMASK)", error);
  }
  scratch_top_ = (saved_.rsp - kRedZone) & ~uint64_t{15};
}

HijackedThread::~HijackedThread() {
  try {
    restore();
  } catch (...) {
  }
  ptrace(PTRACE_DETACH, tid_, nullptr, nullptr);
}

void HijackedThread::restore() {
  if (restored_) return;
  restored_ = true;
  iovec xstate{saved_xstate_.data(), saved_xstate_.size()};
  if (ptrace(PTRACE_SETREGS, tid_, nullptr, &saved_) != 0) throw failure("ptrace(PTRACE_SETREGS)", errno);
  if (ptrace(PTRACE_SETREGSET, tid_, reinterpret_cast<void*>(NT_X86_XSTATE), &xstate) != 0)
    throw failure("ptrace(PTRACE_SETREGSET)", errno);
  if (ptrace(PTRACE_SETSIGMASK, tid_, reinterpret_cast<void*>(sizeof saved_mask_), &saved_mask_) != 0)
    throw failure("ptrace(PTRACE_SETSIGMASK)", errno);
}

uint64_t HijackedThread::push_string(const std::string& text) {
  scratch_top_ = (scratch_top_ - text.size() - 1) & ~uint64_t{15};
  write_memory(pid_, scratch_top_, text.c_str(), text.size() + 1);
  return scratch_top_;
}

uint64_t HijackedThread::call(uint64_t function, const std::vector<uint64_t>& arguments,
                              std::chrono::milliseconds limit, const std::function<void()>& if_slow) {
  start_call(function, arguments);
  return finish_call(limit, if_slow);
}

void HijackedThread::start_call(uint64_t function, const std::vector<uint64_t>& arguments) {
  if (arguments.size() > 6) throw std::invalid_argument("six arguments at most");
  user_regs_struct regs = saved_;
  regs.rsp = scratch_top_ - 8;  // 16-byte aligned before the call's push, as the ABI wants
  write_memory(pid_, regs.rsp, &kReturnAddress, sizeof kReturnAddress);
  regs.rip = function;
  regs.rax = 0;
  regs.orig_rax = static_cast<uint64_t>(-1);  // no system call to restart under the call
  unsigned long long* const slots[] = {&regs.rdi, &regs.rsi, &regs.rdx, &regs.rcx, &regs.r8, &regs.r9};
  for (size_t i = 0; i < arguments.size(); ++i) *slots[i] = arguments[i];
  if (ptrace(PTRACE_SETREGS, tid_, nullptr, &regs) != 0) throw failure("ptrace(PTRACE_SETREGS)", errno);
  restored_ = false;
  // No handler runs inside the call: one would end in sigreturn, which
  // makes the kernel's restart of an interrupted sleep fail with EINTR.
  // What arrives meanwhile is delivered once the thread's mask is back.
  // SIGSEGV alone stays deliverable: the return to address 0 faults, and
  // a fault the thread blocks makes the kernel reset the process's
  // handler of it to the default (a JVM, which takes its safepoints by
  // faults, would then end at the next one). This tracer stops the thread
  // at the fault, before any handler runs, and never delivers it.
  const uint64_t all_blocked_but_faults = ~(uint64_t{1} << (SIGSEGV - 1));
  if (ptrace(PTRACE_SETSIGMASK, tid_, reinterpret_cast<void*>(sizeof all_blocked_but_faults),
             &all_blocked_but_faults) != 0)
    throw failure("ptrace(PTRACE_SETSIGMASK)", errno);
  if (ptrace(PTRACE_CONT, tid_, nullptr, nullptr) != 0) throw failure("ptrace(PTRACE_CONT)", errno);
}

uint64_t HijackedThread::finish_call(std::chrono::milliseconds limit, const std::function<void()>& if_slow) {
  int signal = -1;  // none to resume with: start_call resumed the thread
  bool patient = static_cast<bool>(if_slow);
  for (;;) {
    if (signal >= 0 && ptrace(PTRACE_CONT, tid_, nullptr, reinterpret_cast<void*>(static_cast<long>(signal))) != 0)
      throw failure("ptrace(PTRACE_CONT)", errno);
    int status = 0;
    bool stopped = false;
    if (patient) {
      stopped = wait_stop(tid_, &status, kPatience);
      if (!stopped) if_slow();
      patient = false;
    }
    if (!stopped && !wait_stop(tid_, &status, limit)) {
      ptrace(PTRACE_INTERRUPT, tid_, nullptr, nullptr);
      wait_stop(tid_, &status, std::chrono::seconds(5));
      throw std::runtime_error("the call into process " + std::to_string(pid_) + " did not return within " +
                               std::to_string(limit.count()) + " ms");
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      restored_ = true;  // nothing is left to restore
      throw std::runtime_error("process " + std::to_string(pid_) + " ended during the call");
    }
    signal = 0;
    if (!WIFSTOPPED(status) || (status >> 16) != 0) continue;  // an event stop: resume as is
    user_regs_struct now{};
    ptrace(PTRACE_GETREGS, tid_, nullptr, &now);
    if (WSTOPSIG(status) == SIGSEGV && now.rip == kReturnAddress) return now.rax;
    signal = WSTOPSIG(status);  // the thread's own signal: delivered as it would have been
  }
}

}  // namespace lumen::attach
