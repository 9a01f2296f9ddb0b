// A self-timed Java program of monitor waits: a contended synchronized
// block whose holder keeps the lock a known time, and an Object.wait ended
// by notify. Each waiter measures its own waits with System.nanoTime and
// the totals are written, as JSON, to the file named by LUMEN_TEST_TRUTH.
import java.io.FileWriter;
import java.util.concurrent.CountDownLatch;

public class JavaMonitors {
  static final class HeldLock {}

  static final class Gate {
    boolean open;
  }

  static final HeldLock lock = new HeldLock();
  static final Gate gate = new Gate();
  static final int ROUNDS = 5;
  static final long HOLD_MS = 120;

  // Blocks on the lock the holder took; returns how long it waited.
  static long contend() {
    long t0 = System.nanoTime();
    synchronized (lock) {
      return System.nanoTime() - t0;
    }
  }

  static long awaitGate() throws InterruptedException {
    long t0 = System.nanoTime();
    synchronized (gate) {
      while (!gate.open) gate.wait();
      return System.nanoTime() - t0;
    }
  }

  public static void main(String[] args) throws Exception {
    long contended = 0;
    for (int round = 0; round < ROUNDS; ++round) {
      CountDownLatch held = new CountDownLatch(1);
      Thread holder = new Thread(() -> {
        synchronized (lock) {
          held.countDown();
          try {
            Thread.sleep(HOLD_MS);
          } catch (InterruptedException e) {
            throw new RuntimeException(e);
          }
        }
      }, "lock-holder");
      holder.start();
      held.await();
      contended += contend();
      holder.join();
    }
    final long[] waited = new long[1];
    Thread waiter = new Thread(() -> {
      try {
        waited[0] = awaitGate();
      } catch (InterruptedException e) {
        throw new RuntimeException(e);
      }
    }, "gate-waiter");
    waiter.start();
    // Notified once the waiter waits (its state says so), a known time later.
    while (waiter.getState() != Thread.State.WAITING) Thread.sleep(1);
    Thread.sleep(200);
    synchronized (gate) {
      gate.open = true;
      gate.notifyAll();
    }
    waiter.join();
    String truth = System.getenv("LUMEN_TEST_TRUTH");
    if (truth != null) {
      try (FileWriter out = new FileWriter(truth)) {
        out.write(String.format("{\"JavaMonitors.contend()\": %.6f, \"contend_count\": %d,"
                + " \"JavaMonitors.awaitGate()\": %.6f, \"await_count\": 1}%n",
            contended / 1e9, ROUNDS, waited[0] / 1e9));
      }
    }
    System.out.println("monitors done");
  }
}
