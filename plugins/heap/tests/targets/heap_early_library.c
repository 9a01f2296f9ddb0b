#include "heap_early_library.h"

#include <stdlib.h>

static void* block;

__attribute__((constructor)) static void allocate_early(void) {
  block = malloc(4321);
  if (block != NULL) ((char*)block)[0] = 'e';
}

void* early_block(void) { return block; }
