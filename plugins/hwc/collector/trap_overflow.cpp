#include "trap_overflow.h"

#include <sys/utsname.h>

#include <cstdio>

namespace lumen::hwc {

std::string trap_overflow_obstacle() {
#if !defined(__x86_64__) && !defined(__aarch64__) && !defined(__riscv)
  return "this architecture's signal information is not read for perf's synchronous signals";
#else
  utsname name{};
  int major = 0, minor = 0;
  if (uname(&name) != 0 || std::sscanf(name.release, "%d.%d", &major, &minor) != 2)
    return "the kernel's version cannot be read";
  if (major < 6 || (major == 6 && minor < 1))
    return std::string("recording where it happened needs Linux 6.1 (perf's synchronous signal, delivered when the "
                       "thread runs again); this is ") + name.release;
  return "";
#endif
}

}  // namespace lumen::hwc
