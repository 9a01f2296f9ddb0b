#include "process_threads.h"

#include <sys/syscall.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

namespace lumen::attach {

namespace fs = std::filesystem;

namespace {

enum class Where { Syscall, FutexWait, Running, Gone };

// /proc/PID/task/TID/syscall: "NR ARGS... SP PC" while blocked in a system
// call, "running" (or -1 SP PC) otherwise.
Where where_is(pid_t pid, pid_t tid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/syscall");
  std::string first;
  if (!(file >> first)) return Where::Gone;
  if (first == "running" || first[0] == '-') return Where::Running;
  return std::stol(first) == SYS_futex ? Where::FutexWait : Where::Syscall;
}

// Code of the C library and the dynamic linker, whose locks (malloc's,
// the loader's) a thread stopped inside may hold.
std::vector<CodeRange> runtime_library_code(pid_t pid) {
  return code_of(pid, [](const std::string& path) {
    const std::string name = path.substr(path.rfind('/') + 1);
    return name.rfind("libc.so", 0) == 0 || name.rfind("ld-linux", 0) == 0 || name.rfind("libc-", 0) == 0;
  });
}

// The dynamic linker's code: its own system calls (reading a library it
// loads) run with its lock held.
std::vector<CodeRange> loader_code(pid_t pid) {
  return code_of(pid, [](const std::string& path) {
    return path.substr(path.rfind('/') + 1).rfind("ld-linux", 0) == 0;
  });
}

// Stopped in a system call that waits for input, time or another
// process: not one malloc makes (mmap, brk, madvise, futex on its locks),
// nor one of the loader's own, so no lock of theirs is held.
bool waits_for_the_world(const HijackedThread& thread, const std::vector<CodeRange>& loader) {
  if (!thread.stopped_in_system_call() || inside(loader, thread.stopped_pc())) return false;
  switch (thread.stopped_system_call()) {
    case SYS_read: case SYS_readv: case SYS_pread64: case SYS_preadv: case SYS_recvfrom: case SYS_recvmsg:
    case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6: case SYS_epoll_wait: case SYS_epoll_pwait:
    case SYS_epoll_pwait2: case SYS_nanosleep: case SYS_clock_nanosleep: case SYS_accept: case SYS_accept4:
    case SYS_wait4: case SYS_waitid: case SYS_pause: case SYS_rt_sigsuspend: case SYS_rt_sigtimedwait:
    case SYS_msgrcv: case SYS_semtimedop: case SYS_io_getevents: case SYS_io_uring_enter:
      return true;
    default:
      return false;
  }
}

// The thread's state letter in /proc's stat (it follows the name's closing
// parenthesis); 0 once the thread is gone.
char state_of(pid_t pid, pid_t tid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat");
  std::string text;
  std::getline(file, text);  // a thread gone meanwhile fails the read: no line (an iterator would throw)
  const size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() ? text[close + 2] : '\0';
}

// Running or runnable.
bool runs_now(pid_t pid, pid_t tid) { return state_of(pid, tid) == 'R'; }

// Code of every file mapped but the program's executable: shared
// libraries, the dynamic linker, plugins.
std::vector<CodeRange> library_code(pid_t pid) {
  std::error_code ec;
  const std::string executable = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec).string();
  return code_of(pid, [&executable](const std::string& path) { return path.starts_with('/') && path != executable; });
}

constexpr int kLooksForAWaitingThread = 10;

}  // namespace

std::vector<CodeRange> code_of(pid_t pid, const std::function<bool(const std::string& path)>& chosen) {
  std::vector<CodeRange> ranges;
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, permissions, offset, device, inode, path;
    in >> range >> permissions >> offset >> device >> inode;
    std::getline(in >> std::ws, path);
    if (permissions.find('x') == std::string::npos || !chosen(path)) continue;
    ranges.push_back({std::stoull(range.substr(0, range.find('-')), nullptr, 16),
                      std::stoull(range.substr(range.find('-') + 1), nullptr, 16)});
  }
  return ranges;
}

bool thread_ended(pid_t pid, pid_t tid) {
  const char state = state_of(pid, tid);
  return state == '\0' || state == 'Z' || state == 'X';
}

bool inside(const std::vector<CodeRange>& ranges, uint64_t pc) {
  return std::any_of(ranges.begin(), ranges.end(), [&](const CodeRange& r) { return pc >= r.start && pc < r.end; });
}

std::vector<pid_t> process_threads(pid_t pid) {
  std::vector<pid_t> tids;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.empty() && std::all_of(name.begin(), name.end(), ::isdigit)) tids.push_back(std::stoi(name));
  }
  std::sort(tids.begin(), tids.end(), [pid](pid_t a, pid_t b) { return (a == pid) != (b == pid) ? a == pid : a < b; });
  return tids;
}

std::unique_ptr<HijackedThread> stop_thread_for_loading(pid_t pid, const std::set<pid_t>& passed_over,
                                                        HeldThreads* held) {
  std::vector<pid_t> tids = process_threads(pid);
  std::erase_if(tids, [&](pid_t tid) {
    return passed_over.count(tid) != 0 ||
           (held != nullptr && std::any_of(held->begin(), held->end(), [tid](const auto& t) { return t->tid() == tid; }));
  });
  // A thread stopped running its own code may hold a lock of the
  // program's own allocator, which the call would wait for: threads that
  // wait in a system call (between two sleeps, a thread runs for moments)
  // are looked for a few times first.
  for (int look = 0; look < kLooksForAWaitingThread; ++look) {
    if (look > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    for (const Where wanted : {Where::Syscall, Where::FutexWait})
      for (const pid_t tid : tids)
        if (where_is(pid, tid) == wanted) {
          // Stopped in its system call, it holds no lock a loader needs
          // (malloc's system calls are quick: a thread is not found waiting
          // in one). One that left the call before the stop is taken only
          // where it runs outside the libraries.
          auto thread = std::make_unique<HijackedThread>(pid, tid);
          if (thread->stopped_in_system_call() || !inside(runtime_library_code(pid), thread->stopped_pc()))
            return thread;
        }
    if (held != nullptr && !held->empty()) break;
  }
  // A held thread is stopped in the program's own code already.
  if (held != nullptr && !held->empty()) {
    std::unique_ptr<HijackedThread> thread = std::move(held->back());
    held->pop_back();
    return thread;
  }
  if (tids.empty()) throw std::runtime_error("process " + std::to_string(pid) + " has no threads to stop (it ended)");
  // Every thread runs: stop one until it is stopped in the program's own
  // code (most of a busy thread's time, unless it lives in malloc), or in
  // a call that waits for the world outside (/proc said "running" while a
  // blocked call was being restarted: after an earlier stop, for one).
  const std::vector<CodeRange> library = runtime_library_code(pid);
  for (int attempt = 0; attempt < 500; ++attempt) {
    auto thread = std::make_unique<HijackedThread>(pid, tids[attempt % tids.size()]);
    if (!inside(library, thread->stopped_pc()) || waits_for_the_world(*thread, loader_code(pid))) return thread;
    thread.reset();
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  throw std::runtime_error("no thread of process " + std::to_string(pid) +
                           " could be stopped outside the C library in 500 tries (the collector is loaded only "
                           "where no lock of malloc or of the dynamic linker can be held)");
}

HeldThreads hold_running_threads(pid_t pid) {
  std::vector<pid_t> running;
  for (const pid_t tid : process_threads(pid))
    if (runs_now(pid, tid) && HijackedThread::interrupt(tid)) running.push_back(tid);
  HeldThreads held;
  if (running.empty()) return held;
  const std::vector<CodeRange> libraries = library_code(pid);
  for (const pid_t tid : running) {
    try {
      auto thread = std::make_unique<HijackedThread>(pid, tid, HijackedThread::Interrupted{});
      if (!thread->stopped_in_system_call() && !inside(libraries, thread->stopped_pc())) held.push_back(std::move(thread));
    } catch (const std::exception&) {
    }
  }
  return held;
}

}  // namespace lumen::attach
