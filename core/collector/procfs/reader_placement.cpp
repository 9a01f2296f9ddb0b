#include "procfs/reader_placement.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace lumen::collector {

namespace {

// The reader's alone: it is the only thread that reads or writes these.
cpu_set_t g_allowed;
bool g_known = false;
bool g_moved = false;

}  // namespace

void reader_placement_start() {
  CPU_ZERO(&g_allowed);
  g_known = syscall(SYS_sched_getaffinity, 0, sizeof g_allowed, &g_allowed) > 0;
  g_moved = false;
}

int asking_cpu() { return sched_getcpu(); }

bool move_reader_to(int cpu) {
  if (!g_known || cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &g_allowed)) return false;
  cpu_set_t only;
  CPU_ZERO(&only);
  CPU_SET(cpu, &only);
  if (syscall(SYS_sched_setaffinity, 0, sizeof only, &only) != 0) return false;
  g_moved = true;
  return true;
}

void let_reader_roam() {
  if (!g_moved) return;
  g_moved = false;
  syscall(SYS_sched_setaffinity, 0, sizeof g_allowed, &g_allowed);
}

}  // namespace lumen::collector
