#include "task_files.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace lumen::states {

namespace {

constexpr const char* kNames[kTaskFileCount] = {"schedstat", "stat", "syscall"};

template <typename Reader>
bool read_file(TaskFiles& files, int task_dir, uint32_t tid, TaskFile which, Reader read) {
  int& fd = files.fd[which];
  if (fd < 0) fd = open_task_file(task_dir, tid, kNames[which]);
  return fd >= 0 && read(fd);
}

}  // namespace

bool read_task_schedstat(TaskFiles& files, int task_dir, uint32_t tid, SchedStat* out) {
  return read_file(files, task_dir, tid, kSchedstatFile, [&](int fd) { return read_schedstat(fd, out); });
}

bool read_task_state(TaskFiles& files, int task_dir, uint32_t tid, char* state) {
  return read_file(files, task_dir, tid, kStatFile, [&](int fd) { return read_state_letter(fd, state); });
}

bool read_task_syscall(TaskFiles& files, int task_dir, uint32_t tid, Whereabouts* out) {
  return read_file(files, task_dir, tid, kSyscallFile, [&](int fd) { return read_syscall(fd, out); });
}

void close_task_files(TaskFiles& files) {
  for (int& fd : files.fd) {
    if (fd >= 0) syscall(SYS_close, fd);
    fd = -1;
  }
}

}  // namespace lumen::states
