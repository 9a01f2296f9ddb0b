// A self-timed Java program: hot methods on several threads (JIT-compiled
// while it runs), a deep recursion, and a JNI native method burning CPU in
// C. Every method measures its own thread CPU time with ThreadMXBean and the
// totals are written, as JSON, to the file named by LUMEN_TEST_TRUTH, with
// the names of the threads alive at the end.
import java.io.FileWriter;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.AtomicLong;

public class JavaHotMethods {
  static final ThreadMXBean BEAN = ManagementFactory.getThreadMXBean();
  static final AtomicLong alphaNs = new AtomicLong();
  static final AtomicLong betaNs = new AtomicLong();
  static final AtomicLong recursionNs = new AtomicLong();
  static final AtomicLong nativeNs = new AtomicLong();
  static volatile long sink;

  static native long burnInC(long nanoseconds);

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

  static long descend(int depth, long rounds) {
    if (depth == 0) return spinAlpha(rounds);
    return descend(depth - 1, rounds) + depth;
  }

  static long cpu() { return BEAN.getCurrentThreadCpuTime(); }

  // Runs on each worker: alternates the methods until each has had its share.
  // Each call lasts tens of milliseconds: a CPU-time timer is noticed on the
  // next scheduler tick (4 ms here), so a sample due in a call much shorter
  // than that lands in the next one.
  static void work(long shareNs) {
    long alpha = 0, beta = 0;
    while (alpha < shareNs || beta < shareNs) {
      long t0 = cpu();
      sink += spinAlpha(20_000_000);
      long t1 = cpu();
      sink += (long) spinBeta(10_000_000);
      long t2 = cpu();
      alpha += t1 - t0;
      beta += t2 - t1;
    }
    alphaNs.addAndGet(alpha);
    betaNs.addAndGet(beta);
  }

  static String quoted(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  // The threads alive now: the Java names of those Java shows, and every
  // thread of the process by its kernel id with the name the system knows
  // it by (/proc/self/task/TID/comm: the JVM's own threads, which Java does
  // not show, and the first 15 bytes of a Java thread's name); and the
  // calling thread's kernel id.
  static String threadsJson() throws IOException {
    StringBuilder json = new StringBuilder("\"java_threads\": [");
    String separator = "";
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      json.append(separator).append(quoted(t.getName()));
      separator = ", ";
    }
    json.append("], \"system_threads\": {");
    separator = "";
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/self/task"))) {
      for (Path task : tasks) {
        String comm = Files.readString(task.resolve("comm")).trim();
        json.append(separator).append(quoted(task.getFileName().toString())).append(": ").append(quoted(comm));
        separator = ", ";
      }
    }
    // The calling (main) thread's kernel id: /proc/thread-self is its task.
    String self = Paths.get("/proc/thread-self").toRealPath().getFileName().toString();
    return json.append("}, \"main_thread\": ").append(quoted(self)).toString();
  }

  public static void main(String[] args) throws Exception {
    System.load(args[0]);
    final long shareNs = Long.parseLong(args.length > 1 ? args[1] : "600") * 1_000_000L;
    Thread[] workers = new Thread[3];
    for (int i = 0; i < workers.length; ++i) {
      workers[i] = new Thread(() -> work(shareNs), "hot-worker-" + i);
      workers[i].start();
    }
    long r0 = cpu();
    // Calls of tens of milliseconds: the clock read between them is the
    // recursion's measured time and no frame of descend's.
    while (cpu() - r0 < shareNs) sink += descend(120, 20_000_000);
    recursionNs.addAndGet(cpu() - r0);
    long n0 = cpu();
    sink += burnInC(shareNs);
    nativeNs.addAndGet(cpu() - n0);
    for (Thread t : workers) t.join();
    String truth = System.getenv("LUMEN_TEST_TRUTH");
    if (truth != null) {
      try (FileWriter out = new FileWriter(truth)) {
        out.write(String.format("{\"JavaHotMethods.spinBeta(long)\": %.6f, \"JavaHotMethods.descend(int, long)\": %.6f,"
                + " \"JavaHotMethods.burnInC(long)\": %.6f, \"spin_alpha_outside_recursion\": %.6f, %s}%n",
            betaNs.get() / 1e9, recursionNs.get() / 1e9, nativeNs.get() / 1e9, alphaNs.get() / 1e9, threadsJson()));
      }
    }
    if (args.length > 2 && args[2].equals("crash")) burnInC(-1);
    System.out.println("done " + (sink & 1));
  }
}
