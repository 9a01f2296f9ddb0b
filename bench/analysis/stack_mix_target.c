/* A CPU-bound program with many distinct call stacks, for
 * bench/analysis/analysis_speed.sh: 64 functions that call each other along
 * paths chosen by a pseudo-random state, up to 12 deep, so that a profile of
 * it holds thousands of distinct stacks. Runs for SECONDS seconds of wall time.
 *   stack_mix_target SECONDS
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define NFUNCS 64
typedef uint64_t (*fn_t)(uint64_t state, int depth);
static fn_t funcs[NFUNCS];

static uint64_t step(uint64_t s) { return s * 6364136223846793005ull + 1442695040888963407ull; }

static __attribute__((noinline)) uint64_t spin(uint64_t s, int n) {
  for (int i = 0; i < n; ++i) s = step(s) ^ (s >> 29);
  return s;
}

#define F(i)                                                                \
  static __attribute__((noinline)) uint64_t f##i(uint64_t s, int depth) {   \
    s = spin(s, 200 + (i) * 7);                                             \
    if (depth < 12 && (s >> 60) < 13) {                                     \
      s = funcs[(s >> 32) % NFUNCS](step(s), depth + 1);                    \
      s = funcs[(s >> 40) % NFUNCS](step(s), depth + 1);                    \
    }                                                                       \
    return s + (i);                                                         \
  }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)
F(16) F(17) F(18) F(19) F(20) F(21) F(22) F(23) F(24) F(25) F(26) F(27) F(28) F(29) F(30) F(31)
F(32) F(33) F(34) F(35) F(36) F(37) F(38) F(39) F(40) F(41) F(42) F(43) F(44) F(45) F(46) F(47)
F(48) F(49) F(50) F(51) F(52) F(53) F(54) F(55) F(56) F(57) F(58) F(59) F(60) F(61) F(62) F(63)

int main(int argc, char** argv) {
  fn_t all[NFUNCS] = {f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15,
                      f16, f17, f18, f19, f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31,
                      f32, f33, f34, f35, f36, f37, f38, f39, f40, f41, f42, f43, f44, f45, f46, f47,
                      f48, f49, f50, f51, f52, f53, f54, f55, f56, f57, f58, f59, f60, f61, f62, f63};
  for (int i = 0; i < NFUNCS; ++i) funcs[i] = all[i];
  double seconds = argc > 1 ? atof(argv[1]) : 10.0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  uint64_t s = 12345;
  volatile uint64_t sink = 0;
  do {
    for (int k = 0; k < 100; ++k) { s = step(s); sink += funcs[s % NFUNCS](s, 0); }
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
  return sink == 42 ? 1 : 0; /* keeps sink live; exit 0 */
}
