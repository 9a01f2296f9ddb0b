// Each rank's clock measured against rank 0's, at MPI_Init and again at
// MPI_Finalize, so that analysis can put a job across hosts on one clock:
// the offset at each end, and the drift between them (VampirTrace's and
// Score-P's scheme).
//
// Only clocks are measured, not ranks: the ranks of one host read one
// CLOCK_MONOTONIC, so rank 0 measures one rank of each other clock (its
// lowest), with round trips of empty messages, and keeps the quickest
// (the tightest bound on the offset); the other ranks wait asleep. Two processes share a clock
// when they share the host name, the boot and the time namespace. A job
// on one host measures nothing: its clocks are one.
//
// Everything goes over a duplicate of MPI_COMM_WORLD, so no message of
// the program's can meet one of these; and every rank takes part (the
// first steps are collective), so nothing is measured unless every rank
// is collected (every_rank_collected). The plugin's clock_sync option
// turns it off.
#include <dirent.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_call_hooks.h"

// Weak, as every MPI symbol of this half (mpi_wrappers.cpp): a process
// without MPI loads it too.
#pragma weak PMPI_Comm_dup
#pragma weak PMPI_Comm_free
#pragma weak PMPI_Comm_rank
#pragma weak PMPI_Comm_size
#pragma weak PMPI_Iallgather
#pragma weak PMPI_Iscatter
#pragma weak PMPI_Irecv
#pragma weak PMPI_Test
#pragma weak PMPI_Wait
#pragma weak PMPI_Send
#pragma weak PMPI_Recv
#pragma weak PMPI_Get_processor_name
#ifdef OPEN_MPI
#pragma weak ompi_mpi_comm_world
#pragma weak ompi_mpi_byte
#endif

namespace lumen::mpi {
namespace {

constexpr int kRounds = 20;  // round trips a measured clock; the quickest counts
constexpr int kPingTag = 1, kPongTag = 2;

// From MPI_Init's measurement to MPI_Finalize's. (No MPI_COMM_NULL here:
// in Open MPI that names a symbol, which a static initializer would need.)
MPI_Comm g_clock_comm;
bool g_have_clock_comm = false;

uint64_t fnv1a(uint64_t hash, const char* bytes, size_t size) {
  for (size_t i = 0; i < size; ++i) hash = (hash ^ static_cast<unsigned char>(bytes[i])) * 1099511628211ull;
  return hash;
}

// What names this process's CLOCK_MONOTONIC: the host, its boot, and the
// time namespace (which may move the clock).
uint64_t clock_identity() {
  uint64_t hash = 14695981039346656037ull;
  char host[MPI_MAX_PROCESSOR_NAME] = "";
  int host_length = 0;
  if (PMPI_Get_processor_name(host, &host_length) == MPI_SUCCESS && host_length > 0)
    hash = fnv1a(hash, host, static_cast<size_t>(host_length));
  char text[128];
  const int boot = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (boot >= 0) {
    const ssize_t got = read(boot, text, sizeof text);
    if (got > 0) hash = fnv1a(hash, text, static_cast<size_t>(got));
    close(boot);
  }
  const ssize_t named = readlink("/proc/self/ns/time", text, sizeof text);
  if (named > 0) hash = fnv1a(hash, text, static_cast<size_t>(named));
  return hash;
}

struct Measured {
  int64_t offset_ns;
  uint64_t error_ns;
  uint64_t local_ns;  // the measured rank's time of it
  uint64_t same_clock;
};

// Rank 0's side of one clock's measurement.
Measured measure(MPI_Comm comm, int rank) {
  Measured best{0, UINT64_MAX, 0, 0};
  for (int round = 0; round < kRounds; ++round) {
    uint64_t theirs = 0;
    const uint64_t sent = now_ns();
    PMPI_Send(&theirs, 0, MPI_BYTE, rank, kPingTag, comm);
    PMPI_Recv(&theirs, sizeof theirs, MPI_BYTE, rank, kPongTag, comm, MPI_STATUS_IGNORE);
    const uint64_t back = now_ns();
    const uint64_t half = (back - sent) / 2;
    if (half < best.error_ns)
      best = {static_cast<int64_t>(sent + half) - static_cast<int64_t>(theirs), half, theirs, 0};
  }
  return best;
}

// Waits for `request` sleeping between tests, ever longer (up to 2 ms): a
// rank with nothing to do meanwhile leaves the processors to the two whose
// round trips are timed. MPI's own waiting polls, and with more ranks than
// processors every round trip would take a scheduler's slice; so would a
// short nap, of many ranks at once.
void wait_idle(MPI_Request* request) {
  int done = 0;
  long nap_ns = 20'000;
  while (PMPI_Test(request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
    const timespec nap{0, nap_ns};
    nanosleep(&nap, nullptr);
    nap_ns = nap_ns < 1'000'000 ? nap_ns * 2 : 2'000'000;
  }
}

// A measured rank's side: answers each ping with its own time. Idle until
// its turn comes, then quick.
void answer(MPI_Comm comm) {
  for (int round = 0; round < kRounds; ++round) {
    uint64_t nothing = 0;
    if (round == 0) {
      MPI_Request first;
      PMPI_Irecv(&nothing, 0, MPI_BYTE, 0, kPingTag, comm, &first);
      wait_idle(&first);
    } else {
      PMPI_Recv(&nothing, 0, MPI_BYTE, 0, kPingTag, comm, MPI_STATUS_IGNORE);
    }
    const uint64_t mine = now_ns();
    PMPI_Send(&mine, sizeof mine, MPI_BYTE, 0, kPongTag, comm);
  }
}

// Whether every rank of the job is collected: each has its sub-experiment
// in the founder (_rankN.er, or LINEAGE_rankN.er for a second job), made
// as its process started, so before any rank's MPI_Init could return. A
// rank that is not collected would never take part, and the measurement
// would wait for it for ever; nor is it made where the founder holds only
// this host's ranks (node-local directories): there the wall clocks place
// the ranks.
bool every_rank_collected(int size) {
  const lumen_runtime* rt = runtime();
  if (!LUMEN_PROVIDES(rt->recording, founder_directory)) return false;
  // Where the launcher ran collect per rank, this process's collection is
  // the rank's own experiment, inside the job's founder.
  std::string directory = rt->recording->founder_directory();
  const size_t slash = directory.rfind('/');
  if (slash != std::string::npos && directory.find("_rank", slash) != std::string::npos)
    directory.erase(slash == 0 ? 1 : slash);
  DIR* founder = opendir(directory.c_str());
  if (founder == nullptr) return false;
  std::vector<bool> seen(static_cast<size_t>(size), false);
  int found = 0;
  while (const dirent* entry = readdir(founder)) {
    const char* rank = std::strstr(entry->d_name, "_rank");
    if (rank == nullptr) continue;
    char* end = nullptr;
    const long n = std::strtol(rank + 5, &end, 10);
    if (end == rank + 5 || std::strcmp(end, ".er") != 0 || n < 0 || n >= size || seen[n]) continue;
    seen[n] = true;
    ++found;
  }
  closedir(founder);
  return found == size;
}

}  // namespace

void align_clock(uint16_t phase) {
  if (!clock_sync_on()) return;
  if (phase == kClockAtInit) {
    int size = 0;
    if (PMPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size < 2) return;
    if (!every_rank_collected(size)) {
      runtime()->recording->log_note("mpi: clock not measured: not every rank of the job has its experiment in the "
                                     "founder here (ranks not collected, or node-local directories); the ranks are "
                                     "placed by their hosts' wall clocks");
      return;
    }
    g_have_clock_comm = PMPI_Comm_dup(MPI_COMM_WORLD, &g_clock_comm) == MPI_SUCCESS;
  }
  if (!g_have_clock_comm) return;
  MPI_Comm comm = g_clock_comm;
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  const uint64_t identity = clock_identity();
  std::vector<uint64_t> identities(static_cast<size_t>(size));
  MPI_Request gathered;
  PMPI_Iallgather(&identity, sizeof identity, MPI_BYTE, identities.data(), sizeof identity, MPI_BYTE, comm, &gathered);
  wait_idle(&gathered);
  // The lowest rank of each clock stands for it.
  const auto representative = [&](int r) {
    for (int lower = 0; lower < r; ++lower)
      if (identities[lower] == identities[r]) return lower;
    return r;
  };
  std::vector<Measured> results;
  if (rank == 0) {
    results.resize(static_cast<size_t>(size));
    results[0] = {0, 0, 0, 1};
    for (int r = 1; r < size; ++r) {
      const int stands_for = representative(r);
      if (stands_for == 0) results[r] = {0, 0, 0, 1};
      else if (stands_for != r) results[r] = results[stands_for];
      else results[r] = measure(comm, r);
    }
  } else if (representative(rank) == rank) {
    answer(comm);
  }
  Measured mine{};
  MPI_Request scattered;
  PMPI_Iscatter(results.data(), sizeof(Measured), MPI_BYTE, &mine, sizeof mine, MPI_BYTE, 0, comm, &scattered);
  if (rank == 0) PMPI_Wait(&scattered, MPI_STATUS_IGNORE);
  else wait_idle(&scattered);
  if (phase == kClockAtFinalize) {
    PMPI_Comm_free(&g_clock_comm);
    g_have_clock_comm = false;
  }
  MpiClock clock{};
  clock.local_ns = mine.same_clock != 0 ? now_ns() : mine.local_ns;
  clock.offset_ns = mine.offset_ns;
  clock.error_ns = mine.error_ns;
  clock.phase = phase;
  clock.same_clock = mine.same_clock != 0 ? 1 : 0;
  clock.reference_rank = 0;
  write_clock(clock);
}

}  // namespace lumen::mpi
