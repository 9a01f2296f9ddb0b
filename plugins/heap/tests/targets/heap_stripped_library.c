/* A library stripped of its symbol table (only its exported names are
 * left): its static function allocate_unnamed has no name, and er_print
 * shows it as <static>@0xOFF of this library. */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static NOINLINE void* allocate_unnamed(size_t bytes) {
  void* block = malloc(bytes);
  __asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays on the stack */
  return block;
}

void* stripped_leak(size_t bytes) {
  void* block = allocate_unnamed(bytes);
  __asm__ volatile("" ::: "memory");
  return block;
}
