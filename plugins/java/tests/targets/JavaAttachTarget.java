// A JVM to attach to (collect -P): it runs until DIR/stop appears, and
// measures itself all along. Two threads alternate two hot methods; every
// 400 ms a new thread runs a third for 150 ms and ends (threads the JVM
// starts while collect is attached). Each call's thread CPU time is added
// to its method's total, and every 100 ms the totals (seconds) are written
// to the file LUMEN_TEST_TRUTH names, as {"functions": {...}}, replaced
// whole. DIR/ready appears once all of it runs. At the stop the program
// checks that no thread of the collector's is left among its Java threads,
// and exits with status 3 when that holds (1 otherwise).
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicLong;

public class JavaAttachTarget {
  static final ThreadMXBean BEAN = ManagementFactory.getThreadMXBean();
  static final AtomicLong alphaNs = new AtomicLong();
  static final AtomicLong betaNs = new AtomicLong();
  static final AtomicLong gammaNs = new AtomicLong();
  static volatile boolean stopping = false;
  static volatile long sink;

  static long spinAlpha(long rounds) {
    long x = 1;
    for (long i = 0; i < rounds; ++i) x = x * 6364136223846793005L + 1442695040888963407L;
    return x;
  }

  static double spinBeta(long rounds) {
    double y = 1.0;
    for (long i = 0; i < rounds; ++i) y = y * 1.0000001 + 0.5 / (y + 1.0);
    return y;
  }

  static long spinGamma(long rounds) {
    long z = 7;
    for (long i = 0; i < rounds; ++i) z ^= (z << 13) ^ (z >>> 7) ^ i;
    return z;
  }

  static long cpu() { return BEAN.getCurrentThreadCpuTime(); }

  // Calls of a few tens of milliseconds each, every one timed.
  static void work() {
    while (!stopping) {
      long t0 = cpu();
      sink += spinAlpha(5_000_000);
      long t1 = cpu();
      sink += (long) spinBeta(2_500_000);
      long t2 = cpu();
      alphaNs.addAndGet(t1 - t0);
      betaNs.addAndGet(t2 - t1);
    }
  }

  static void shortLived() {
    long began = cpu();
    while (cpu() - began < 150_000_000L) {
      long t0 = cpu();
      sink += spinGamma(2_000_000);
      gammaNs.addAndGet(cpu() - t0);
    }
  }

  static void writeTruth(Path truth) throws IOException {
    Path next = Paths.get(truth + ".next");
    Files.writeString(next, String.format("{\"functions\": {\"JavaAttachTarget.spinAlpha(long)\": %.6f, "
            + "\"JavaAttachTarget.spinBeta(long)\": %.6f, \"JavaAttachTarget.spinGamma(long)\": %.6f}}%n",
        alphaNs.get() / 1e9, betaNs.get() / 1e9, gammaNs.get() / 1e9));
    Files.move(next, truth, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    Path truth = Paths.get(System.getenv("LUMEN_TEST_TRUTH"));
    Thread[] workers = new Thread[2];
    for (int i = 0; i < workers.length; ++i) {
      workers[i] = new Thread(JavaAttachTarget::work, "attach-worker-" + i);
      workers[i].start();
    }
    writeTruth(truth);
    Files.writeString(dir.resolve("ready"), "ready\n");
    long tick = 0;
    while (!Files.exists(dir.resolve("stop"))) {
      if (tick++ % 4 == 0) new Thread(JavaAttachTarget::shortLived, "attach-short-" + tick).start();
      Thread.sleep(100);
      writeTruth(truth);
    }
    stopping = true;
    for (Thread t : workers) t.join();
    boolean clean = true;
    for (Thread t : Thread.getAllStackTraces().keySet())
      if (t.getName().startsWith("lumen")) {
        System.err.println("a thread of the collector's is left: " + t.getName());
        clean = false;
      }
    System.out.println("done " + (sink & 1));
    System.exit(clean ? 3 : 1);
  }
}
