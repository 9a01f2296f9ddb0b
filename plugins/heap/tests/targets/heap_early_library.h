/* A library whose constructor allocates a block before the collector starts
 * (the dynamic linker runs a program's own libraries' constructors before
 * those of the preloaded ones). */
#ifndef LUMEN_HEAP_EARLY_LIBRARY_H
#define LUMEN_HEAP_EARLY_LIBRARY_H

void* early_block(void);

#endif
