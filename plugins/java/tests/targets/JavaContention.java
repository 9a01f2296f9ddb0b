// A self-timed Java program of contended locks: four threads take two
// plain Object monitors (in enterA and enterB) and a ReentrantLock (in
// enterLock, which parks in LockSupport.park) in turn, each holding it
// 10 ms, asleep after allocating garbage, so that the others wait and the
// garbage collector runs; asleep, the holders leave the CPUs to the
// waiters, whose time outside the JVM's waits stays short. Each thread
// times every acquisition with System.nanoTime, and how long in it the
// thread was kept from a CPU (its run delay, /proc/thread-self/schedstat:
// a trace's wait and the program's clock may differ by that much); the
// totals by method, and the monitors' identity hash codes (as
// Object.toString shows them), are written as JSON to the file named by
// LUMEN_TEST_TRUTH.
import java.io.FileWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

public class JavaContention {
  static final Object lockA = new Object();
  static final Object lockB = new Object();
  static final ReentrantLock lock = new ReentrantLock();
  static final int THREADS = 4;
  static final int ROUNDS = 12;
  static final long HOLD_MS = 10;
  static final AtomicLong waitedA = new AtomicLong();
  static final AtomicLong waitedB = new AtomicLong();
  static final AtomicLong waitedLock = new AtomicLong();
  static final AtomicLong delayedA = new AtomicLong();
  static final AtomicLong delayedB = new AtomicLong();
  static final AtomicLong delayedLock = new AtomicLong();
  static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");
  static volatile long sink;

  // Keeps the lock a while: allocates 4 MiB of garbage, then sleeps.
  static void hold() {
    long s = 0;
    for (int i = 0; i < 4096; ++i) s += new byte[1024].length;
    sink += s;
    try {
      Thread.sleep(HOLD_MS);
    } catch (InterruptedException e) {
      throw new RuntimeException(e);
    }
  }

  // The calling thread's time runnable but not running so far (ns).
  static long runDelayNs() {
    try {
      return Long.parseLong(Files.readString(SCHEDSTAT).trim().split(" ")[1]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  static long enterA() {
    long d0 = runDelayNs();
    long t0 = System.nanoTime();
    synchronized (lockA) {
      long waited = System.nanoTime() - t0;
      delayedA.addAndGet(runDelayNs() - d0);
      hold();
      return waited;
    }
  }

  static long enterB() {
    long d0 = runDelayNs();
    long t0 = System.nanoTime();
    synchronized (lockB) {
      long waited = System.nanoTime() - t0;
      delayedB.addAndGet(runDelayNs() - d0);
      hold();
      return waited;
    }
  }

  // Timed only when the lock is taken: then lock() waits, and a thread
  // kept from a CPU before it is no wait of the lock's.
  static long enterLock() {
    long d0 = runDelayNs();
    long t0 = System.nanoTime();
    long waited = 0;
    if (!lock.tryLock()) {
      lock.lock();
      waited = System.nanoTime() - t0;
      delayedLock.addAndGet(runDelayNs() - d0);
    }
    try {
      hold();
      return waited;
    } finally {
      lock.unlock();
    }
  }

  static void contend() {
    long a = 0, b = 0, l = 0;
    for (int round = 0; round < ROUNDS; ++round) {
      a += enterA();
      b += enterB();
      l += enterLock();
    }
    waitedA.addAndGet(a);
    waitedB.addAndGet(b);
    waitedLock.addAndGet(l);
  }

  public static void main(String[] args) throws Exception {
    Thread[] threads = new Thread[THREADS];
    for (int i = 0; i < THREADS; ++i) {
      threads[i] = new Thread(JavaContention::contend, "contender-" + i);
      threads[i].start();
    }
    for (Thread t : threads) t.join();
    String truth = System.getenv("LUMEN_TEST_TRUTH");
    if (truth != null) {
      try (FileWriter out = new FileWriter(truth)) {
        out.write(String.format("{\"JavaContention.enterA()\": %.6f, \"JavaContention.enterB()\": %.6f,"
                + " \"JavaContention.enterLock()\": %.6f, \"lockA\": \"%s\", \"lockB\": \"%s\","
                + " \"run_delay\": {\"JavaContention.enterA()\": %.6f, \"JavaContention.enterB()\": %.6f,"
                + " \"JavaContention.enterLock()\": %.6f}}%n",
            waitedA.get() / 1e9, waitedB.get() / 1e9, waitedLock.get() / 1e9,
            Integer.toHexString(System.identityHashCode(lockA)), Integer.toHexString(System.identityHashCode(lockB)),
            delayedA.get() / 1e9, delayedB.get() / 1e9, delayedLock.get() / 1e9));
      }
    }
    System.out.println("contention done");
  }
}
