#include "target_launcher.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <elf.h>

#include <cerrno>
#include <fstream>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace lumen::collect {

namespace {

volatile sig_atomic_t g_child = 0;

void forward_signal(int signal) {
  if (g_child > 0) kill(g_child, signal);
}

bool is_executable_file(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string preload_obstacle(const std::string& program) {
  std::ifstream file(program, std::ios::binary);
  char magic[4] = {};
  file.read(magic, 4);
  if (std::memcmp(magic, "#!", 2) == 0) return "";  // a script: its interpreter is what runs
  if (std::memcmp(magic, ELFMAG, SELFMAG) != 0) return "";  // not ELF: exec will say why
  Elf64_Ehdr header{};
  file.seekg(0);
  file.read(reinterpret_cast<char*>(&header), sizeof header);
  if (!file || header.e_ident[EI_CLASS] != ELFCLASS64) return "";
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    file.seekg(static_cast<std::streamoff>(header.e_phoff + static_cast<uint64_t>(i) * header.e_phentsize));
    file.read(reinterpret_cast<char*>(&segment), sizeof segment);
    if (file && segment.p_type == PT_INTERP) return "";
  }
  return "'" + program + "' is statically linked: the collector is loaded by the dynamic loader (LD_PRELOAD), "
         "which such a program does not use; link it dynamically to collect it";
}

std::string resolve_target(const std::string& program) {
  if (program.find('/') != std::string::npos) return is_executable_file(program) ? program : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = dirs.find(':', start);
    std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + program;
    if (is_executable_file(candidate)) return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

LaunchResult run_target(const std::string& program_path, const std::vector<std::string>& argv,
                        const std::vector<std::string>& preload, const std::string& experiment,
                        const ForwardedVariables& to_remote_ranks, void (*on_started)(int pid, void* context),
                        void* context) {
  std::string preload_list;
  for (const std::string& library : preload) preload_list += (preload_list.empty() ? "" : ":") + library;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing != nullptr && *existing != '\0')
    preload_list += std::string(":") + existing;
  std::string forwarded = "LD_PRELOAD";
  for (const auto& [name, value] : to_remote_ranks) forwarded += ";" + name;
  if (const char* listed = std::getenv("OMPI_MCA_mca_base_env_list"); listed != nullptr && *listed != '\0')
    forwarded = listed + (";" + forwarded);

  int exec_error[2];
  if (pipe2(exec_error, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  // While the target runs, a terminal's interrupt reaches it directly (same
  // process group); collect only waits, as system() does.
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);

  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    setenv("LD_PRELOAD", preload_list.c_str(), 1);
    setenv("LUMEN_EXPERIMENT", experiment.c_str(), 1);
    setenv("LUMEN_TARGET_PID", std::to_string(getpid()).c_str(), 1);
    for (const auto& [name, value] : to_remote_ranks) setenv(name.c_str(), value.c_str(), 1);
    if (!to_remote_ranks.empty()) setenv("OMPI_MCA_mca_base_env_list", forwarded.c_str(), 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(program_path.c_str(), args.data());
    const int error = errno;
    [[maybe_unused]] ssize_t n = write(exec_error[1], &error, sizeof error);
    _exit(127);
  }
  close(exec_error[1]);
  g_child = pid;
  struct sigaction forward {};
  forward.sa_handler = forward_signal;
  sigaction(SIGTERM, &forward, nullptr);
  sigaction(SIGHUP, &forward, nullptr);
  int error = 0;
  ssize_t got;
  do got = read(exec_error[0], &error, sizeof error);
  while (got < 0 && errno == EINTR);
  close(exec_error[0]);
  if (got == sizeof error)
    throw std::runtime_error("cannot run '" + program_path + "': " + std::strerror(error));
  on_started(pid, context);
  LaunchResult result{pid, 0};
  while (waitpid(pid, &result.wait_status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  return result;
}

void exit_like(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int signal = WTERMSIG(wait_status);
    // The target already dumped core if it was going to; collect must not.
    rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    std::signal(signal, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    raise(signal);
  }
  std::exit(WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 1);
}

}  // namespace lumen::collect
