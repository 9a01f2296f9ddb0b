// A method the JIT compiles more than once: hot(int)'s loop is compiled on
// stack (OSR) and the method at tier 3 (C1 with profiling), then, once it
// has been called often enough, at tier 4 (C2). The test raises tier 4's
// thresholds so that the tier-3 code runs long enough to be sampled before
// the C2 code replaces it. Runs for the milliseconds its argument gives.
public class JavaCompiledVersions {
  static long sink;

  static long hot(int n) {
    long s = 0;
    for (int i = 0; i < n; ++i) s += (long) i * i % 7;
    return s;
  }

  public static void main(String[] args) {
    long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000L;
    while (System.nanoTime() < end) sink += hot(1_000_000);
    System.out.println("compiled versions done " + sink);
  }
}
