/* The JNI native method of JavaAllocations: allocates and frees, in C, the
 * number of blocks asked for (of an odd size no JVM allocation shares). */
#include <jni.h>
#include <stdlib.h>

__attribute__((noinline)) static long malloc_in_c(int count) {
  long touched = 0;
  for (int i = 0; i < count; ++i) {
    volatile char* block = malloc(1999993);
    if (block == NULL) continue;
    block[0] = (char)i;
    touched += block[0] != 0;
    free((void*)block);
  }
  return touched;
}

JNIEXPORT jlong JNICALL Java_JavaAllocations_mallocInC(JNIEnv* env, jclass klass, jint count) {
  (void)env;
  (void)klass;
  return malloc_in_c(count);
}
