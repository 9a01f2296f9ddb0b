// Recursion: lumen::test::descend(n) calls itself n levels deep, burning CPU
// at every level, and at the bottom calls bottom_work(). Each function's own
// CPU time is measured; descend's inclusive time must count each sample
// once however many times descend is on the stack.
extern "C" {
#include "truth.h"
}

namespace lumen::test {

__attribute__((noinline)) void bottom_work(double seconds) {
  const double t0 = thread_cpu_seconds();
  burn_cpu(seconds);
  truth_add("lumen::test::bottom_work(double)", thread_cpu_seconds() - t0);
}

__attribute__((noinline)) int descend(int depth, double per_level) {
  const double t0 = thread_cpu_seconds();
  burn_cpu(per_level);
  truth_add("lumen::test::descend(int, double)", thread_cpu_seconds() - t0);
  if (depth == 0) {
    bottom_work(0.4);
    return 0;
  }
  return 1 + descend(depth - 1, per_level);  // not a tail call: adds 1 after
}

}  // namespace lumen::test

int main() {
  const int levels = lumen::test::descend(9, 0.06);
  truth_write();
  return levels == 9 ? 0 : 1;
}
