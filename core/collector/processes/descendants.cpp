#include "processes/descendants.h"

#include <lumen/collector_support.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <new>
#include <optional>
#include <vector>

#include "lifecycle/collector_variables.h"
#include "lifecycle/experiment_log.h"
#include "follow_pattern.h"
#include "lifecycle/runtime_state.h"
#include "threads/program_thread_state.h"

extern char** environ;

namespace lumen::collector {

namespace {

std::string& own_lineage() {
  static auto* lineage = new std::string;
  return *lineage;
}
std::string& follow_setting() {
  static auto* follow = new std::string("on");
  return *follow;
}
std::atomic<int> g_forks{0};
std::atomic<int> g_execs{0};
std::mutex g_environment_mutex;  // system/popen change environ for a moment

bool following() { return follow_setting() != "off"; }

// The fork's number is the forking thread's own: threads of a launcher
// fork at once (Open MPI's orted starts ranks from several threads), and
// a child is a copy of the thread that forked it.
void before_fork() { current_thread().fork_number = ++g_forks; }

void in_forked_child() {
  // Another thread of the parent may have held it (in system or popen) at
  // the fork; nothing else runs in the child yet.
  new (&g_environment_mutex) std::mutex;
  if (!collecting()) return;
  if (!following()) {
    stop_in_forked_child();
    return;
  }
  own_lineage() += "_f" + std::to_string(current_thread().fork_number);
  g_forks = 0;
  g_execs = 0;
  restart_in_forked_child(own_lineage());
}

std::string joined(char* const argv[]) {
  std::string line;
  for (int i = 0; argv != nullptr && argv[i] != nullptr; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

// The environment of a new image: the collector's variables set (or, when
// it is not to be followed, a target pid that matches no process).
struct Handover {
  std::string lineage;
  std::string target_pid;
};

const char* variable_in(char* const envp[], const char* name) {
  const size_t length = std::strlen(name);
  for (int i = 0; envp != nullptr && envp[i] != nullptr; ++i)
    if (std::strncmp(envp[i], name, length) == 0 && envp[i][length] == '=') return envp[i] + length + 1;
  return nullptr;
}

// The rank variables as this image started with them (a launcher's forked
// child sets them just before it execs the rank; a rank's own children
// inherit them). Taken when collection starts, kept across fork.
std::vector<std::string>& rank_variables_at_start() {
  static auto* values = new std::vector<std::string>;
  return *values;
}

void remember_rank_variables() {
  rank_variables_at_start().clear();
  for (const char* name : kRankVariables) {
    const char* value = std::getenv(name);
    rank_variables_at_start().push_back(value ? value : "");
  }
}

// The rank of a new image whose environment has a launcher's rank variable
// that this image did not start with (so a rank's own children are not
// ranks again); empty when it is no rank.
std::string new_rank(char* const envp[]) {
  for (size_t i = 0; i < std::size(kRankVariables); ++i) {
    const char* value = variable_in(envp, kRankVariables[i]);
    if (value == nullptr || *value == '\0' || std::strspn(value, "0123456789") != std::strlen(value)) continue;
    if (i < rank_variables_at_start().size() && rank_variables_at_start()[i] == value) continue;
    return value;
  }
  return "";
}

// A rank is named by its rank, _rank3, unless the founder already has one
// of that name (a second job launched in one collection): then by its
// lineage, _f2_x1_rank3.
std::string lineage_of_new_image(const std::string& by_lineage, char* const envp[]) {
  const std::string rank = new_rank(envp);
  if (rank.empty()) return by_lineage;
  const std::string& founder = collector_variables().experiment;
  struct stat existing;
  if (!founder.empty() && stat((founder + "/_rank" + rank + ".er").c_str(), &existing) != 0)
    return "_rank" + rank;
  return by_lineage + "_rank" + rank;
}

Handover handover_for_exec(char* const argv[], char* const envp[]) {
  if (!following() || !follows(follow_setting(), joined(argv))) return {own_lineage(), "0"};
  return {lineage_of_new_image(own_lineage() + "_x" + std::to_string(++g_execs), envp), std::to_string(getpid())};
}

Handover handover_for_spawn(char* const argv[], char* const envp[]) {
  if (!following() || !follows(follow_setting(), joined(argv))) return {own_lineage(), "0"};
  return {lineage_of_new_image(own_lineage() + "_f" + std::to_string(++g_forks) + "_x1", envp), "any"};
}

// A copy of `envp` with the collector's variables replaced; LD_PRELOAD is
// carried over from this process when `envp` dropped it, so that the new
// image is followed.
class Environment {
 public:
  Environment(char* const envp[], const Handover& handover) {
    const CollectorVariables& variables = collector_variables();
    bool has_preload = false;
    for (int i = 0; envp != nullptr && envp[i] != nullptr; ++i) {
      const std::string entry = envp[i];
      if (entry.rfind("LUMEN_LINEAGE=", 0) == 0 || entry.rfind("LUMEN_TARGET_PID=", 0) == 0 ||
          entry.rfind("LUMEN_EXPERIMENT=", 0) == 0)
        continue;
      has_preload = has_preload || entry.rfind("LD_PRELOAD=", 0) == 0;
      strings_.push_back(entry);
    }
    if (!has_preload && !variables.preload.empty()) strings_.push_back("LD_PRELOAD=" + variables.preload);
    strings_.push_back("LUMEN_EXPERIMENT=" + variables.experiment);
    strings_.push_back("LUMEN_LINEAGE=" + handover.lineage);
    strings_.push_back("LUMEN_TARGET_PID=" + handover.target_pid);
    for (std::string& s : strings_) pointers_.push_back(s.data());
    pointers_.push_back(nullptr);
  }
  char* const* get() { return pointers_.data(); }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> pointers_;
};

// Sets the collector's variables in this process's own environment for an
// exec that uses it (and LD_PRELOAD, when the program took it out), and
// takes them out again if the exec returns (failed): the program never
// sees them.
class ProcessEnvironment {
 public:
  explicit ProcessEnvironment(const Handover& handover) {
    const CollectorVariables& variables = collector_variables();
    setenv("LUMEN_EXPERIMENT", variables.experiment.c_str(), 1);
    setenv("LUMEN_LINEAGE", handover.lineage.c_str(), 1);
    setenv("LUMEN_TARGET_PID", handover.target_pid.c_str(), 1);
    added_preload_ = std::getenv("LD_PRELOAD") == nullptr && !variables.preload.empty();
    if (added_preload_) setenv("LD_PRELOAD", variables.preload.c_str(), 1);
    experiment_log_event(metadata::log_event::kExec, "lineage: " + yaml_quoted(handover.lineage));
  }
  ~ProcessEnvironment() {
    unsetenv("LUMEN_EXPERIMENT");
    unsetenv("LUMEN_LINEAGE");
    unsetenv("LUMEN_TARGET_PID");
    if (added_preload_) unsetenv("LD_PRELOAD");
  }

 private:
  bool added_preload_ = false;
};

using Execve = int (*)(const char*, char* const[], char* const[]);
using Execv = int (*)(const char*, char* const[]);
using Spawn = int (*)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                      char* const[], char* const[]);
using System = int (*)(const char*);
using Popen = FILE* (*)(const char*, const char*);

int exec_with_process_environment(Execv real_exec, const char* path, char* const argv[]) {
  if (!collecting()) return real_exec(path, argv);
  std::optional<ProcessEnvironment> environment;
  {
    const RuntimeGuard guard;
    environment.emplace(handover_for_exec(argv, environ));
  }
  const int rc = real_exec(path, argv);
  const RuntimeGuard guard;
  environment.reset();
  return rc;
}

int exec_with_environment(Execve real_exec, const char* path, char* const argv[], char* const envp[]) {
  if (!collecting()) return real_exec(path, argv, envp);
  std::optional<Environment> environment;
  {
    const RuntimeGuard guard;
    const Handover handover = handover_for_exec(argv, envp);
    experiment_log_event(metadata::log_event::kExec, "lineage: " + yaml_quoted(handover.lineage));
    environment.emplace(envp, handover);
  }
  return real_exec(path, argv, environment->get());
}

// Collects the variadic arguments of execl and friends into an argv.
std::vector<char*> variadic_argv(const char* first, va_list& args) {
  std::vector<char*> argv{const_cast<char*>(first)};
  while (char* next = va_arg(args, char*)) argv.push_back(next);
  argv.push_back(nullptr);
  return argv;
}

int spawn(Spawn real_spawn, pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
          const posix_spawnattr_t* attributes, char* const argv[], char* const envp[]) {
  if (!collecting()) return real_spawn(pid, path, actions, attributes, argv, envp);
  std::optional<Environment> environment;
  {
    const RuntimeGuard guard;
    environment.emplace(envp, handover_for_spawn(argv, envp));
  }
  return real_spawn(pid, path, actions, attributes, argv, environment->get());
}

// system() and popen() spawn /bin/sh inside glibc, out of reach of the
// posix_spawn wrapper, with this process's environment: set it for them.
template <typename Call>
auto with_shell_environment(const char* command, Call call) {
  if (!collecting()) return call();
  std::lock_guard lock(g_environment_mutex);
  std::optional<ProcessEnvironment> environment;
  {
    const RuntimeGuard guard;
    char* argv[] = {const_cast<char*>("/bin/sh"), const_cast<char*>("-c"), const_cast<char*>(command), nullptr};
    environment.emplace(handover_for_spawn(argv, environ));
  }
  auto result = call();
  const RuntimeGuard guard;
  environment.reset();
  return result;
}

int shell_system(System real_system, const char* command) {
  if (command == nullptr) return real_system(command);
  return with_shell_environment(command, [&] { return real_system(command); });
}

FILE* shell_popen(Popen real_popen, const char* command, const char* mode) {
  return with_shell_environment(command, [&] { return real_popen(command, mode); });
}

}  // namespace

int children_started() { return g_forks.load(std::memory_order_relaxed); }

// -F =REGEX: compiled once (collect checked it), matched in linear time
// without recursion or allocation, whatever the command line's length.
bool follows(const std::string& follow, const std::string& command_line) {
  if (follow == "off") return false;
  if (follow.empty() || follow[0] != '=') return true;
  static metadata::FollowPattern pattern;
  static bool compiled = false;
  static std::once_flag once;
  std::call_once(once, [&] { compiled = pattern.compile(follow.substr(1), nullptr); });
  return compiled && pattern.search(command_line.data(), command_line.size());
}

void descendants_start(const std::string& lineage, const std::string& follow) {
  remember_rank_variables();
  own_lineage() = lineage;
  follow_setting() = follow;
  static std::once_flag registered;
  std::call_once(registered, [] { pthread_atfork(before_fork, nullptr, in_forked_child); });
}

}  // namespace lumen::collector

using namespace lumen::collector;

#define PROCESS_FUNCTION(name, Result, params, symbol, version, binding, call) \
  LUMEN_VERSIONED_INTERPOSER(lumen_##name, Result, params, symbol, version, binding, call);
#include "processes/process_functions.def"
#undef PROCESS_FUNCTION

LUMEN_EXPORT int lumen_execl(const char* path, const char* first, ...) {
  va_list args;
  va_start(args, first);
  std::vector<char*> argv = variadic_argv(first, args);
  va_end(args);
  return lumen_execv(path, argv.data());
}
LUMEN_EXPORT int lumen_execlp(const char* file, const char* first, ...) {
  va_list args;
  va_start(args, first);
  std::vector<char*> argv = variadic_argv(first, args);
  va_end(args);
  return lumen_execvp(file, argv.data());
}
LUMEN_EXPORT int lumen_execle(const char* path, const char* first, ...) {
  va_list args;
  va_start(args, first);
  std::vector<char*> argv = variadic_argv(first, args);
  char* const* envp = va_arg(args, char* const*);
  va_end(args);
  return lumen_execve(path, argv.data(), envp);
}
// A vfork child shares its parent's memory until it execs, which would let
// it write into the parent's collector state; fork gives it its own copy,
// and programs written for vfork (exec or _exit at once) behave the same.
LUMEN_EXPORT pid_t lumen_vfork() {
  static lumen::RealFunction<pid_t()> real_fork{"fork", "GLIBC_2.2.5"};
  return real_fork.get()();
}

LUMEN_SYMVER(lumen_execl, execl, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(lumen_execlp, execlp, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(lumen_execle, execle, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(lumen_vfork, vfork, "GLIBC_2.2.5", DEFAULT);
