// A covariant override: Derived.make() returns String where Base.make()
// returns Object, so javac gives Derived a bridge method "Object make()"
// that calls "String make()". Called through a Base reference, the bridge
// is on the stack above the method it bridges; both are named make() by
// Java. The program spins in Derived.make() for the milliseconds its
// argument gives and writes that thread CPU time, as JSON, to the file
// named by LUMEN_TEST_TRUTH.
import java.io.FileWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class JavaBridgeMethods {
  static class Base {
    Object make(long rounds) {
      return null;
    }
  }

  static class Derived extends Base {
    @Override
    String make(long rounds) {
      long x = 1;
      for (long i = 0; i < rounds; ++i) x = x * 6364136223846793005L + 1442695040888963407L;
      return Long.toString(x);
    }
  }

  public static void main(String[] args) throws Exception {
    ThreadMXBean bean = ManagementFactory.getThreadMXBean();
    Base base = new Derived();
    long share = Long.parseLong(args[0]) * 1_000_000L;
    long spent = 0;
    int length = 0;
    while (spent < share) {
      long t0 = bean.getCurrentThreadCpuTime();
      length += base.make(20_000_000).toString().length();
      spent += bean.getCurrentThreadCpuTime() - t0;
    }
    String truth = System.getenv("LUMEN_TEST_TRUTH");
    if (truth != null) {
      try (FileWriter out = new FileWriter(truth)) {
        out.write(String.format("{\"JavaBridgeMethods$Derived.make(long)\": %.6f}%n", spent / 1e9));
      }
    }
    System.out.println("bridge done " + length);
  }
}
