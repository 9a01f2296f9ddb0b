#include "background_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

namespace lumen::test {

Background::Background(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       const std::string& output) {
  int input[2];
  if (pipe(input) != 0) return;
  pid_ = fork();
  if (pid_ == 0) {
    setpgid(0, 0);
    dup2(input[0], 0);
    close(input[0]);
    close(input[1]);
    if (!output.empty()) freopen(output.c_str(), "w", stdout);
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(input[0]);
  stdin_ = input[1];  // held open: a target reading its input waits
}

Background::~Background() {
  if (pid_ > 0 && !reaped_) {
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (stdin_ >= 0) close(stdin_);
}

bool Background::give_input(const std::string& text) {
  return write(stdin_, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

void Background::close_input() {
  close(stdin_);
  stdin_ = -1;
}

int Background::wait_exit(std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

double reported_seconds(const std::string& text, const std::string& what) {
  const size_t at = text.find(what);
  const size_t in = at == std::string::npos ? at : text.find(" in ", at);
  return in == std::string::npos ? 0 : std::atof(text.c_str() + in + 4) / 1000;
}

uint64_t logged_detach_ns(const std::filesystem::path& experiment) {
  std::ifstream log(experiment / "collector.log");
  const std::string marker = "time_ns: ";
  for (std::string line; std::getline(log, line);)
    if (line.find("event: detached") != std::string::npos && line.find(marker) != std::string::npos)
      return std::stoull(line.substr(line.find(marker) + marker.size()));
  return 0;
}

double seconds_after_detach(const std::filesystem::path& experiment, std::chrono::steady_clock::time_point then) {
  const uint64_t detached = logged_detach_ns(experiment);
  const auto at = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(then.time_since_epoch()).count());
  return detached != 0 && at > detached ? static_cast<double>(at - detached) / 1e9 : 0.0;
}

bool wait_for_file(const std::filesystem::path& file, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!std::filesystem::exists(file))
    if (std::chrono::steady_clock::now() > until) return false;
    else std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return true;
}

}  // namespace lumen::test
