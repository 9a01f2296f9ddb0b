// A self-timed Java program of two recursions, as gprofng's jsynprog has
// them: one 80 calls deep, whose stacks a profiler keeps whole, and one 500
// calls deep, deeper than a recorded stack holds, whose stacks are cut. Each
// recursion measures its own thread CPU time with ThreadMXBean and the totals
// are written, as JSON, to the file named by LUMEN_TEST_TRUTH.
import java.io.FileWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class JavaDeepStacks {
  static final ThreadMXBean BEAN = ManagementFactory.getThreadMXBean();
  static volatile long sink;

  static long spin(long rounds) {
    long x = 1;
    for (long i = 0; i < rounds; ++i) x = x * 6364136223846793005L + 1442695040888963407L;
    return x;
  }

  static long shallow(int depth, long rounds) {
    if (depth == 0) return spin(rounds);
    return shallow(depth - 1, rounds) + depth;
  }

  static long deep(int depth, long rounds) {
    if (depth == 0) return spin(rounds);
    return deep(depth - 1, rounds) + depth;
  }

  static long cpu() { return BEAN.getCurrentThreadCpuTime(); }

  public static void main(String[] args) throws Exception {
    final long shareNs = Long.parseLong(args.length > 0 ? args[0] : "600") * 1_000_000L;
    // Each call lasts tens of milliseconds, many clock ticks.
    long s0 = cpu();
    while (cpu() - s0 < shareNs) sink += shallow(80, 20_000_000);
    long shallowNs = cpu() - s0;
    long d0 = cpu();
    while (cpu() - d0 < shareNs) sink += deep(500, 20_000_000);
    long deepNs = cpu() - d0;
    String truth = System.getenv("LUMEN_TEST_TRUTH");
    if (truth != null) {
      try (FileWriter out = new FileWriter(truth)) {
        // Plain appends: formatting's first use costs main tens of milliseconds.
        StringBuilder json = new StringBuilder("{\"JavaDeepStacks.shallow(int, long)\": ");
        json.append(shallowNs / 1e9).append(", \"JavaDeepStacks.deep(int, long)\": ").append(deepNs / 1e9).append("}\n");
        out.write(json.toString());
      }
    }
    // No string concatenation here: its bootstrap would be main's time.
    System.out.print("deep stacks done ");
    System.out.println(sink & 1);
  }
}
