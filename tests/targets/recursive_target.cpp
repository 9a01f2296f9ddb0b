// Recursion: lumen::test::descend(n) calls itself n levels deep, burning CPU
// at every level, and at the bottom calls bottom_work(). Each function's own
// CPU time is measured, and descend's at each level ("descend level 9" is
// the outermost call, main's); descend's inclusive time must count each
// sample once however many times descend is on the stack.
extern "C" {
#include "truth.h"
}

namespace lumen::test {

__attribute__((noinline)) void bottom_work(double seconds) {
  const double t0 = thread_cpu_seconds();
  burn_cpu(seconds);
  truth_add("lumen::test::bottom_work(double)", thread_cpu_seconds() - t0);
}

constexpr int kLevels = 10;
// truth_add tells entries apart by the name's address: one literal a level.
const char* const kLevelNames[kLevels] = {"descend level 0", "descend level 1", "descend level 2", "descend level 3",
                                          "descend level 4", "descend level 5", "descend level 6", "descend level 7",
                                          "descend level 8", "descend level 9"};

__attribute__((noinline)) int descend(int depth, double per_level) {
  const double t0 = thread_cpu_seconds();
  burn_cpu(per_level);
  const double spent = thread_cpu_seconds() - t0;
  truth_add("lumen::test::descend(int, double)", spent);
  truth_add(kLevelNames[depth], spent);
  if (depth == 0) {
    bottom_work(0.4);
    return 0;
  }
  return 1 + descend(depth - 1, per_level);  // not a tail call: adds 1 after
}

}  // namespace lumen::test

int main() {
  const int levels = lumen::test::descend(lumen::test::kLevels - 1, 0.06);
  truth_write();
  return levels == lumen::test::kLevels - 1 ? 0 : 1;
}
