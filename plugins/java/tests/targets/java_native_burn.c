/* The JNI native method of JavaHotMethods: burns the calling thread's CPU
 * time in C for the nanoseconds asked; -1 dereferences a null pointer (a
 * JVM that crashes in native code). */
#include <jni.h>
#include <stddef.h>
#include <time.h>

static long long thread_cpu_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1000000000LL + now.tv_nsec;
}

__attribute__((noinline)) long long burn_cpu_in_c(long long nanoseconds) {
  volatile unsigned long long x = 1;
  const long long start = thread_cpu_ns();
  while (thread_cpu_ns() - start < nanoseconds)
    for (int i = 0; i < 10000; ++i) x = x * 2862933555777941757ULL + 3037000493ULL;
  return (long long)x;
}

JNIEXPORT jlong JNICALL Java_JavaHotMethods_burnInC(JNIEnv* env, jclass klass, jlong nanoseconds) {
  (void)env;
  (void)klass;
  if (nanoseconds < 0) {
    volatile int* nowhere = NULL;
    return *nowhere;
  }
  return burn_cpu_in_c(nanoseconds);
}
