#include "processes/process_ending.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <utility>

#include <lumen/collector_support.h>

#include "experiment_header.h"
#include "experiment_metadata.h"
#include "recording/raw_syscalls.h"
#include "lifecycle/runtime_state.h"
#include "recording/stream_writer.h"

namespace lumen::collector {

namespace {

namespace key = metadata::header;

char g_header_path[PATH_MAX];  // empty: this process records no ending
bool g_founder = false;
bool g_size_limited = false;
pid_t g_collect_pid = 0;  // the founder's parent at start
pid_t g_owner = 0;        // the process g_header_path belongs to (not a forked child that is not collected)
std::atomic<bool> g_recorded{false};

// Children's wait statuses, kept from the wait interposers (which may run
// in a signal handler) until the runtime stops.
struct Waited {
  std::atomic<int> pid{0};
  int status = 0;
};
constexpr unsigned kWaitedSlots = 256;
Waited g_waited[kWaitedSlots];
std::atomic<unsigned> g_waited_next{0};

// [signal-safe] Text built in a fixed buffer.
struct Text {
  char bytes[512];
  size_t size = 0;
  void add(const char* s) {
    while (*s != '\0' && size < sizeof bytes) bytes[size++] = *s++;
  }
  void add(long long n) {
    char digits[24];
    int count = 0;
    const bool negative = n < 0;
    unsigned long long value = negative ? 0ull - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
    do digits[count++] = static_cast<char>('0' + value % 10);
    while ((value /= 10) != 0);
    if (negative) add("-");
    while (count > 0 && size < sizeof bytes) bytes[size++] = digits[--count];
  }
  void line(const char* name, long long n) {
    add(name);
    add(": ");
    add(n);
    add("\n");
  }
};

long long wall_ns() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<long long>(now.tv_sec) * 1000000000LL + now.tv_nsec;
}

// [signal-safe] Appends this process's exit status to its header once; the
// same fields as metadata::end_text, which is not signal-safe.
void record_own_exit(int exit_code) {
  if (sandboxed_here() || g_header_path[0] == '\0' || getpid() != g_owner || g_recorded.exchange(true, std::memory_order_acq_rel)) return;
  const bool collect_gone = g_founder && getppid() != g_collect_pid;
  if (g_founder && !collect_gone) return;  // collect records it
  Text text;
  text.line(key::kEndWallNs, wall_ns());
  if (g_size_limited) {
    text.add(key::kSizeLimitReached);
    text.add(size_limit_reached() ? ": true\n" : ": false\n");
  }
  text.add(key::kTargetEnd);
  text.add(": {exit_code: ");
  text.add(static_cast<long long>(exit_code & 0xff));
  text.add("}\n");
  if (collect_gone) {
    text.add(key::kCutShort);
    text.add(": \"collect ended before the target did; the load objects were not archived\"\n");
  }
  const int fd = raw_open(g_header_path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return;
  [[maybe_unused]] const ssize_t written = write(fd, text.bytes, text.size);
  close(fd);
}

void on_process_exit(int status, void*) {
  const int saved = errno;
  record_own_exit(status);
  errno = saved;
}

void set_directory(const std::string& directory) {
  const std::string path = directory + "/" + metadata::kHeaderFile;
  if (path.size() >= sizeof g_header_path) {
    g_header_path[0] = '\0';
    return;
  }
  std::memcpy(g_header_path, path.c_str(), path.size() + 1);
  g_owner = getpid();
  g_recorded.store(false, std::memory_order_release);
}

// [signal-safe]
void remember_wait(pid_t pid, int status) {
  if (pid <= 0 || g_header_path[0] == '\0' || getpid() != g_owner || !(WIFEXITED(status) || WIFSIGNALED(status))) return;
  Waited& slot = g_waited[g_waited_next.fetch_add(1, std::memory_order_relaxed) % kWaitedSlots];
  slot.pid.store(0, std::memory_order_relaxed);
  slot.status = status;
  slot.pid.store(pid, std::memory_order_release);
}

// Empty where the read fails (/proc's file of a process reaped after the
// open, which libstdc++'s filebuf throws for). By system call: the
// runtime's own reads never reach an interposer.
std::string read_text(const std::filesystem::path& file) {
  std::string text;
  const int fd = raw_open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char chunk[4096];
  for (ssize_t n; (n = raw_pread(fd, chunk, sizeof chunk, static_cast<off_t>(text.size()))) > 0;)
    text.append(chunk, static_cast<size_t>(n));
  syscall(SYS_close, fd);
  return text;
}

// Whether process `pid` is ending: exiting already (PF_EXITING in its
// flags), or with a SIGKILL pending.
bool dying(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  const std::string stat = read_text(proc + "/stat");
  const size_t name_end = stat.rfind(')');
  if (name_end == std::string::npos) return false;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  unsigned long flags = 0;
  for (int i = 3; i <= 9 && fields >> field; ++i)
    if (i == 9) flags = std::strtoul(field.c_str(), nullptr, 10);
  constexpr unsigned long kExiting = 0x4;  // PF_EXITING
  if (flags & kExiting) return true;
  std::istringstream status(read_text(proc + "/status"));
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("SigPnd:", 0) == 0 || line.rfind("ShdPnd:", 0) == 0) {
      const unsigned long long pending = std::strtoull(line.c_str() + 7, nullptr, 16);
      if (pending & (1ull << (SIGKILL - 1))) return true;
    }
  return false;
}

}  // namespace

void process_ending_start(const std::string& directory, bool founder, bool size_limited) {
  set_directory(directory);
  g_founder = founder;
  g_size_limited = size_limited;
  g_collect_pid = getppid();
  // Handlers registered with on_exit are inherited by forked children and
  // run once per image: register once.
  static bool registered = false;
  if (!registered) registered = on_exit(on_process_exit, nullptr) == 0;
}

void process_ending_after_fork(const std::string& directory) {
  set_directory(directory);
  g_founder = false;
  for (Waited& w : g_waited) w.pid.store(0, std::memory_order_relaxed);
  g_waited_next.store(0, std::memory_order_relaxed);
}

void process_ending_forget() { g_header_path[0] = '\0'; }

void record_waited_children(const std::string& founder_directory, bool started_children) {
  // Waited for none and started none: nothing to read.
  if (g_waited_next.load(std::memory_order_acquire) == 0 && !started_children) return;
  // The sub-experiment of each pid's last image: of an exec chain (_f1,
  // _f1_x1) the one whose lineage is longest; the images before it ended
  // by exec. An image that became an MPI rank is named by its rank
  // (_rank3, shorter than the chain before it): it comes after the images
  // not so named.
  struct LastImage {
    std::filesystem::path directory;
    bool has_end = false;
    pid_t parent = 0;
  };
  std::map<pid_t, LastImage> last_images;
  std::error_code ec;
  // increment(ec), not a range-for's ++, which throws on a read error.
  for (std::filesystem::directory_iterator it(founder_directory, ec), end; !ec && it != end; it.increment(ec)) {
    const std::filesystem::directory_entry& entry = *it;
    if (entry.path().extension() != ".er") continue;
    const std::string header = read_text(entry.path() / metadata::kHeaderFile);
    const std::string pid_key = "\n" + std::string(key::kTargetPid) + ": ";
    const size_t at = header.find(pid_key);
    if (at == std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::atol(header.c_str() + at + pid_key.size()));
    LastImage& last = last_images[pid];
    const auto order = [](const std::filesystem::path& directory) {
      const std::string name = directory.filename().string();
      return std::make_pair(name.find("_rank") != std::string::npos, name.size());
    };
    if (!last.directory.empty() && order(entry.path()) <= order(last.directory)) continue;
    last.directory = entry.path();
    last.has_end = header.find("\n" + std::string(key::kTargetEnd) + ":") != std::string::npos;
    const std::string parent_key = "\n" + std::string(key::kParentPid) + ": ";
    const size_t parent_at = header.find(parent_key);
    last.parent = parent_at == std::string::npos
                      ? 0
                      : static_cast<pid_t>(std::atol(header.c_str() + parent_at + parent_key.size()));
  }
  for (Waited& w : g_waited) {
    const pid_t pid = w.pid.exchange(0, std::memory_order_acq_rel);
    const auto open = last_images.find(pid);
    if (pid <= 0 || open == last_images.end() || open->second.has_end) continue;
    metadata::ProcessEnd end;
    end.exited = WIFEXITED(w.status);
    end.exit_code = end.exited ? WEXITSTATUS(w.status) : 0;
    end.signal = WIFSIGNALED(w.status) ? WTERMSIG(w.status) : 0;
    end.end_wall_ns = metadata::wall_clock_ns();
    metadata::append_end(open->second.directory.string(), end);
    open->second.has_end = true;
  }
  // A child that ended by a signal its parent never waited for (a launcher
  // that kills its ranks and exits): its status, read from the zombie
  // without reaping it (WNOWAIT: a wait of the program's still finds it).
  // A child still running has no ending yet, and none is waited for.
  if (!started_children) return;
  const pid_t self = getpid();
  for (auto& [pid, last] : last_images) {
    if (last.has_end || last.parent != self || pid <= 0) continue;
    siginfo_t info{};
    const auto ended = [&] {
      info = siginfo_t{};
      return syscall(SYS_waitid, P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT, nullptr) == 0 && info.si_pid == pid;
    };
    // One killed a moment ago (a launcher's SIGKILL, then its own exit) is
    // given the few milliseconds the kernel takes to end it.
    if (!ended() && dying(pid)) {
      const timespec tick{0, 1'000'000};
      for (int waited = 0; waited < 100 && !ended(); ++waited) nanosleep(&tick, nullptr);
    }
    if (info.si_pid != pid) continue;
    metadata::ProcessEnd end;
    end.exited = info.si_code == CLD_EXITED;
    end.exit_code = end.exited ? info.si_status : 0;
    end.signal = info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED ? info.si_status : 0;
    end.end_wall_ns = metadata::wall_clock_ns();
    metadata::append_end(last.directory.string(), end);
    last.has_end = true;
  }
}

}  // namespace lumen::collector

using namespace lumen::collector;

using Exit = void (*)(int);
using Wait = pid_t (*)(int*);
using WaitPid = pid_t (*)(pid_t, int*, int);
using Wait3 = pid_t (*)(int*, int, struct rusage*);
using Wait4 = pid_t (*)(pid_t, int*, int, struct rusage*);
using WaitId = int (*)(idtype_t, id_t, siginfo_t*, int);

LUMEN_EXPORT void lumen_exit_now(int status) {
  static const auto real_exit = lumen::next_function<Exit>("_exit", "GLIBC_2.2.5");
  record_own_exit(status);
  real_exit(status);
  __builtin_unreachable();
}
LUMEN_EXPORT void lumen_Exit_now(int status) {
  static const auto real_exit = lumen::next_function<Exit>("_Exit", "GLIBC_2.2.5");
  record_own_exit(status);
  real_exit(status);
  __builtin_unreachable();
}

// Each wait forwards unchanged; the status a caller may pass as null is
// read into a local copy first.
LUMEN_EXPORT pid_t lumen_wait(int* status) {
  static const auto real_wait = lumen::next_function<Wait>("wait", "GLIBC_2.2.5");
  int local = 0;
  const pid_t pid = real_wait(&local);
  const int saved = errno;
  if (status != nullptr && pid > 0) *status = local;
  remember_wait(pid, local);
  errno = saved;
  return pid;
}
LUMEN_EXPORT pid_t lumen_waitpid(pid_t which, int* status, int options) {
  static const auto real_wait = lumen::next_function<WaitPid>("waitpid", "GLIBC_2.2.5");
  int local = 0;
  const pid_t pid = real_wait(which, &local, options);
  const int saved = errno;
  if (status != nullptr && pid > 0) *status = local;
  remember_wait(pid, local);
  errno = saved;
  return pid;
}
LUMEN_EXPORT pid_t lumen_wait3(int* status, int options, struct rusage* usage) {
  static const auto real_wait = lumen::next_function<Wait3>("wait3", "GLIBC_2.2.5");
  int local = 0;
  const pid_t pid = real_wait(&local, options, usage);
  const int saved = errno;
  if (status != nullptr && pid > 0) *status = local;
  remember_wait(pid, local);
  errno = saved;
  return pid;
}
LUMEN_EXPORT pid_t lumen_wait4(pid_t which, int* status, int options, struct rusage* usage) {
  static const auto real_wait = lumen::next_function<Wait4>("wait4", "GLIBC_2.2.5");
  int local = 0;
  const pid_t pid = real_wait(which, &local, options, usage);
  const int saved = errno;
  if (status != nullptr && pid > 0) *status = local;
  remember_wait(pid, local);
  errno = saved;
  return pid;
}
LUMEN_EXPORT int lumen_waitid(idtype_t type, id_t id, siginfo_t* info, int options) {
  static const auto real_wait = lumen::next_function<WaitId>("waitid", "GLIBC_2.2.5");
  const int rc = real_wait(type, id, info, options);
  const int saved = errno;
  if (rc == 0 && info != nullptr && info->si_pid > 0) {
    if (info->si_code == CLD_EXITED) remember_wait(info->si_pid, W_EXITCODE(info->si_status, 0));
    else if (info->si_code == CLD_KILLED || info->si_code == CLD_DUMPED) remember_wait(info->si_pid, info->si_status);
  }
  errno = saved;
  return rc;
}

__asm__(".symver lumen_exit_now, _exit@@GLIBC_2.2.5");
__asm__(".symver lumen_Exit_now, _Exit@@GLIBC_2.2.5");
__asm__(".symver lumen_wait, wait@@GLIBC_2.2.5");
__asm__(".symver lumen_waitpid, waitpid@@GLIBC_2.2.5");
__asm__(".symver lumen_wait3, wait3@@GLIBC_2.2.5");
__asm__(".symver lumen_wait4, wait4@@GLIBC_2.2.5");
__asm__(".symver lumen_waitid, waitid@@GLIBC_2.2.5");
