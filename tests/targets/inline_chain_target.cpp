// Ten levels of functions inlined into one another (templates, a lambda and
// always_inline), inside one function that is not inlined: chain::run_chain.
// Each level spins for its own share of CPU time, then calls the next
// level; the innermost does the most. Each level measures its whole span
// (its own work and every level inside it): the inclusive time er_print
// must give it with -inline on. Each is named in the truth as DWARF names
// it (a function without a linkage name by its DW_AT_name, as addr2line
// -i -C shows it).
//
// Built at -O2 -g: the levels exist as functions only in DWARF's inlined
// subroutines. Argument: the seconds of the innermost level's work.
#include <cstdlib>

extern "C" {
#include "truth.h"
}

#define ALWAYS_INLINE inline __attribute__((always_inline))

namespace chain {

// The work: no call, so every sample of it lands in the level that spins.
#define SPIN_FOR(seconds)                                              \
  do {                                                                 \
    const double until_ = thread_cpu_seconds() + (seconds);            \
    volatile double x_ = 1.0;                                          \
    while (thread_cpu_seconds() < until_)                              \
      for (int i_ = 0; i_ < 20000; ++i_) x_ = x_ * 1.0000001 + 1e-9;   \
  } while (0)

// The share of each level's own work, innermost (level 1) the largest.
constexpr double kOwnShare = 0.05;

struct Innermost {
  static ALWAYS_INLINE void work(double seconds) {
    const double t0 = thread_cpu_seconds();
    SPIN_FOR(seconds);
    truth_add("chain::Innermost::work(double)", thread_cpu_seconds() - t0);
  }
};

template <int N>
struct Level {
  static ALWAYS_INLINE void descend(double seconds);
};

template <int N>
ALWAYS_INLINE void Level<N>::descend(double seconds) {
  const double t0 = thread_cpu_seconds();
  SPIN_FOR(kOwnShare);
  if constexpr (N == 1)
    Innermost::work(seconds);
  else
    Level<N - 1>::descend(seconds);
  static char name[64];
  if (name[0] == '\0') snprintf(name, sizeof name, "chain::Level<%d>::descend(double)", N);
  truth_add(name, thread_cpu_seconds() - t0);
}

template <typename Body>
ALWAYS_INLINE void measured(Body body, double seconds) {
  const double t0 = thread_cpu_seconds();
  SPIN_FOR(kOwnShare);
  body(seconds);
  truth_add("measured<chain::run_chain(double)::<lambda(double)> >", thread_cpu_seconds() - t0);
}

__attribute__((noinline)) void run_chain(double seconds) {
  const double t0 = thread_cpu_seconds();
  measured(
      [](double s) {
        const double t1 = thread_cpu_seconds();
        Level<7>::descend(s);
        truth_add("operator()", thread_cpu_seconds() - t1);
      },
      seconds);
  truth_add("chain::run_chain(double)", thread_cpu_seconds() - t0);
}

}  // namespace chain

int main(int argc, char** argv) {
  chain::run_chain(argc > 1 ? std::atof(argv[1]) : 0.3);
  truth_write();
  return 0;
}
