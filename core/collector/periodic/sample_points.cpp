#include "periodic/sample_points.h"

#include <fcntl.h>
#include <lumen/record_format.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>

#include "recording/raw_syscalls.h"
#include "lifecycle/recording_control.h"
#include "recording/file_keeper.h"
#include "recording/runtime_fds.h"
#include "threads/own_descriptor_table.h"
#include "periodic/periodic_work.h"
#include "signals/signal_chain.h"
#include "recording/stream_writer.h"
#include "time/tsc_clock.h"

namespace lumen::collector {

namespace {

int g_stream = -1;
int g_statm_fd = -1;
FileIdentity g_statm_identity;

// Read with pread on a descriptor kept open, which a handler may do, where
// the runtime's files are (recording/file_keeper.h).
void open_statm_here() {
  g_statm_fd = adopt_runtime_fd(raw_open("/proc/self/statm", O_RDONLY | O_CLOEXEC));
  g_statm_identity = identity_of(g_statm_fd);
}

void open_statm() {
  g_statm_fd = -1;
  auto open = [] { open_statm_here(); };
  with_runtime_files(open);
}

int g_sample_signal = 0;

uint64_t to_ns(const timeval& tv) { return uint64_t(tv.tv_sec) * 1000000000ull + uint64_t(tv.tv_usec) * 1000ull; }

// Resident pages, from /proc/self/statm's second field; read with pread on
// a descriptor opened at start, which a handler may do.
uint64_t resident_bytes() {
  char text[128];
  ssize_t n = 0;
  auto read = [&] {
    if (g_statm_fd < 0) return;
    if (!still_open_on(g_statm_fd, g_statm_identity)) {
      if (has_own_descriptor_table()) return;  // opened again by a thread of the program's table
      open_statm_here();  // closed behind the runtime's back
    }
    n = raw_pread(g_statm_fd, text, sizeof text - 1, 0);
  };
  if (!with_runtime_files(read)) return 0;
  if (n <= 0) return 0;
  text[n] = '\0';
  const char* field = std::strchr(text, ' ');
  uint64_t pages = 0;
  for (field = field ? field + 1 : text + n; *field >= '0' && *field <= '9'; ++field) pages = pages * 10 + uint64_t(*field - '0');
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// The sample is taken, and the signal is the program's too when it takes
// it itself (a handler, or a mask to wait for it); otherwise it was sent
// for the sample only (its default action would end the program).
int on_signal(int signal, siginfo_t* info, void*) {
  if (signal == g_sample_signal && info->si_code != SI_TIMER) {
    record_sample(LUMEN_SAMPLE_SIGNAL, nullptr);
    return target_wants(signal) ? 0 : 1;
  }
  return 0;
}

}  // namespace

void record_sample(uint32_t reason, const char* name) {
  if (g_stream < 0) return;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  char buffer[sizeof(lumen_sample_record) + 256];
  lumen_sample_record sample{};
  sample.time_ns = tsc_now_ns();
  sample.user_ns = to_ns(usage.ru_utime);
  sample.system_ns = to_ns(usage.ru_stime);
  sample.minor_faults = uint64_t(usage.ru_minflt);
  sample.major_faults = uint64_t(usage.ru_majflt);
  sample.voluntary_switches = uint64_t(usage.ru_nvcsw);
  sample.involuntary_switches = uint64_t(usage.ru_nivcsw);
  sample.blocks_in = uint64_t(usage.ru_inblock);
  sample.blocks_out = uint64_t(usage.ru_oublock);
  sample.resident_bytes = resident_bytes();
  sample.reason = reason;
  sample.name_bytes = name ? static_cast<uint32_t>(strnlen(name, 255)) : 0;
  std::memcpy(buffer, &sample, sizeof sample);
  if (name != nullptr) std::memcpy(buffer + sizeof sample, name, sample.name_bytes);
  write_record(g_stream, LUMEN_RECORD_SAMPLE, buffer, static_cast<uint16_t>(sizeof sample + sample.name_bytes));
}

namespace {

// On the sample thread (periodic_work.h), never in a handler of the
// program's threads.
void periodic_sample() {
  if (inside_window()) record_sample(LUMEN_SAMPLE_PERIODIC, nullptr);
}

}  // namespace

void samples_start(int samples_stream, const metadata::CollectionPlan& plan) {
  g_stream = samples_stream;
  open_statm();
  g_sample_signal = plan.runtime.sample_signal;
  record_sample(LUMEN_SAMPLE_START, nullptr);
  sample_thread_start(plan.runtime.sample_period_ns, periodic_sample);
  if (g_sample_signal > 0) claim_signal(g_sample_signal, on_signal);
}

void samples_after_fork() {
  close_runtime_fd(g_statm_fd);
  open_statm();
  record_sample(LUMEN_SAMPLE_START, nullptr);
  sample_thread_after_fork();
}

void samples_stop() {
  sample_thread_stop();
  record_sample(LUMEN_SAMPLE_END, nullptr);
}

}  // namespace lumen::collector
