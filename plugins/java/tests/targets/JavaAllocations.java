// A self-measuring Java program of allocations: one method allocates
// arrays of longs, one small objects of its own class, one nothing at all;
// given a native library, a JNI method mallocs a known number of blocks.
// Each counts what it allocates and measures the bytes its thread
// allocated meanwhile (ThreadMXBean's allocated bytes, the JVM's own
// accounting), and how many of its objects stay reachable to the end (the
// last KEPT, held by static arrays; the others are garbage); the figures
// are written, as JSON, to the file named by LUMEN_TEST_TRUTH.
import java.io.FileWriter;
import java.lang.management.ManagementFactory;

public class JavaAllocations {
  static final class Point {
    final int x;
    final int y;

    Point(int x, int y) {
      this.x = x;
      this.y = y;
    }
  }

  static final int KEPT = 4096;
  // What the methods allocate escapes into these, so that the JIT's escape
  // analysis cannot take the allocations away.
  static final long[][] buffers = new long[KEPT][];
  static final Point[] points = new Point[KEPT];
  static long result;

  static final com.sun.management.ThreadMXBean threads =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  static void allocateBuffers(int count) {
    for (int i = 0; i < count; ++i) buffers[i % KEPT] = new long[1000];
  }

  static void allocatePoints(int count) {
    for (int i = 0; i < count; ++i) points[i % KEPT] = new Point(i, -i);
  }

  static long computeOnly(long rounds) {
    long x = 1;
    for (long i = 0; i < rounds; ++i) x = x * 6364136223846793005L + 1442695040888963407L;
    return x;
  }

  // Allocates and frees `count` blocks with malloc, in C (java_native_malloc.c).
  static native long mallocInC(int count);

  static final int MALLOC_COUNT = 1000;

  // JavaAllocations [SCALE [NATIVE_LIBRARY]]
  public static void main(String[] args) throws Exception {
    final int scale = args.length > 0 ? Integer.parseInt(args[0]) : 1;
    int mallocs = 0;
    if (args.length > 1) {
      System.load(args[1]);
      mallocInC(MALLOC_COUNT);
      mallocs = MALLOC_COUNT;
    }
    final int bufferCount = 8000 * scale;
    final int pointCount = 2_800_000 * scale;
    // The first reading allocates nothing after this one.
    threads.getCurrentThreadAllocatedBytes();
    long before = threads.getCurrentThreadAllocatedBytes();
    allocateBuffers(bufferCount);
    final long bufferBytes = threads.getCurrentThreadAllocatedBytes() - before;
    before = threads.getCurrentThreadAllocatedBytes();
    allocatePoints(pointCount);
    final long pointBytes = threads.getCurrentThreadAllocatedBytes() - before;
    before = threads.getCurrentThreadAllocatedBytes();
    result = computeOnly(50_000_000L * scale);
    final long computeBytes = threads.getCurrentThreadAllocatedBytes() - before;
    String truth = System.getenv("LUMEN_TEST_TRUTH");
    if (truth != null) {
      try (FileWriter out = new FileWriter(truth)) {
        out.write(String.format("{\"JavaAllocations.allocateBuffers(int)\": {\"bytes\": %d, \"objects\": %d, \"retained\": %d},"
                + " \"JavaAllocations.allocatePoints(int)\": {\"bytes\": %d, \"objects\": %d, \"retained\": %d},"
                + " \"JavaAllocations.computeOnly(long)\": {\"bytes\": %d, \"objects\": 0},"
                + " \"JavaAllocations.mallocInC(int)\": {\"mallocs\": %d}}%n",
            bufferBytes, bufferCount, Math.min(bufferCount, KEPT), pointBytes, pointCount, Math.min(pointCount, KEPT),
            computeBytes, mallocs));
      }
    }
    System.out.println("allocations done " + (result & 1));
  }
}
