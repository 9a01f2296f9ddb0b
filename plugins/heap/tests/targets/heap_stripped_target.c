/* Leaks blocks allocated by a function that has no name: the static
 * allocate_unnamed of a stripped library. Its truth is under that name. */
#include "heap_truth.h"

void* stripped_leak(size_t bytes);

int main(void) {
  for (int i = 0; i < 3; ++i)
    if (stripped_leak(4099) == NULL) return 1;
  heap_truth_add("allocate_unnamed", 3, 3 * 4099, 3, 3 * 4099);
  heap_truth_write(NULL);
  say("heap_stripped_target done\n");
  return 0;
}
