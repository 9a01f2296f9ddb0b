/* libcollectorAPI.so: forwards the collector API to the collector runtime
 * (liblumen_collector.so, preloaded by collect) when it is there, found by
 * name with dlsym(RTLD_DEFAULT); without collect every call returns at once.
 * The lookup is repeated until it succeeds once, so a call made before the
 * runtime was found costs only a failed lookup. */
#define _GNU_SOURCE
#include "collectorAPI.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

typedef void (*sample_fn)(const char*);
typedef void (*void_fn)(void);
typedef void (*func_load_fn)(const char*, const void*, unsigned long);
typedef void (*func_unload_fn)(const void*);

static void* runtime_symbol(const char* name, void** cache) {
  void* symbol = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (symbol == NULL) {
    symbol = dlsym(RTLD_DEFAULT, name);
    if (symbol != NULL) __atomic_store_n(cache, symbol, __ATOMIC_RELEASE);
  }
  return symbol;
}

#define RUNTIME(type, name)                    \
  static void* name##_cache;                   \
  type name = (type)runtime_symbol(#name, &name##_cache)

void collector_sample(const char* name) {
  RUNTIME(sample_fn, lumen_api_sample);
  if (lumen_api_sample) lumen_api_sample(name);
}

void collector_pause(void) {
  RUNTIME(void_fn, lumen_api_pause);
  if (lumen_api_pause) lumen_api_pause();
}

void collector_resume(void) {
  RUNTIME(void_fn, lumen_api_resume);
  if (lumen_api_resume) lumen_api_resume();
}

void collector_terminate_expt(void) {
  RUNTIME(void_fn, lumen_api_terminate);
  if (lumen_api_terminate) lumen_api_terminate();
}

void collector_func_load(const char* name, const char* alias, const char* sourcename, void* vaddr, int size,
                         int lntsize, Lineno* lntable) {
  (void)alias, (void)sourcename, (void)lntsize, (void)lntable;
  RUNTIME(func_load_fn, lumen_api_func_load);
  if (lumen_api_func_load && name != NULL && vaddr != NULL && size > 0)
    lumen_api_func_load(name, vaddr, (unsigned long)size);
}

void collector_func_unload(void* vaddr) {
  RUNTIME(func_unload_fn, lumen_api_func_unload);
  if (lumen_api_func_unload && vaddr != NULL) lumen_api_func_unload(vaddr);
}

/* ---- Fortran: trailing underscore, arguments by reference, and the
 * length of each CHARACTER argument passed after the others. ---- */

void collector_sample_(const char* name, size_t length) {
  char copy[256];
  size_t n = length < sizeof copy - 1 ? length : sizeof copy - 1;
  while (n > 0 && name[n - 1] == ' ') --n; /* Fortran pads with blanks */
  memcpy(copy, name, n);
  copy[n] = '\0';
  collector_sample(copy);
}
void collector_pause_(void) { collector_pause(); }
void collector_resume_(void) { collector_resume(); }
void collector_terminate_expt_(void) { collector_terminate_expt(); }
