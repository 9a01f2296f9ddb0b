/* The collector API: a program marks sample points, pauses and resumes
 * recording, ends its experiment, and describes code it generates at run
 * time. Link with -lcollectorAPI. Every call does nothing when the program
 * runs without collect, so it can stay in production builds.
 *
 * Fortran: call collector_sample('name'), collector_pause(),
 * collector_resume(), collector_terminate_expt() (the library exports the
 * trailing-underscore names with hidden string lengths). */
#ifndef LUMEN_COLLECTOR_API_H
#define LUMEN_COLLECTOR_API_H

#ifdef __cplusplus
extern "C" {
#endif

/* One line-number entry of generated code: `offset` bytes from the start of
 * the function is source line `lineno`. */
typedef struct {
  unsigned int offset;
  unsigned int lineno;
} Lineno;

/* Records a sample point named `name` (may be NULL). */
void collector_sample(const char* name);

/* Stops and restarts recording of every data type; sample points and the
 * load-object map are still kept while paused. */
void collector_pause(void);
void collector_resume(void);

/* Ends the experiment of this process for good; the program runs on. */
void collector_terminate_expt(void);

/* Describes code the program generated: `size` bytes at `vaddr` are the
 * function `name`, so its samples are attributed to that name. `alias`,
 * `sourcename` and the line table are accepted for compatibility and may be
 * NULL / 0. */
void collector_func_load(const char* name, const char* alias, const char* sourcename, void* vaddr, int size,
                         int lntsize, Lineno* lntable);

/* The code at `vaddr` is gone (its address may be reused). */
void collector_func_unload(void* vaddr);

#ifdef __cplusplus
}
#endif

#endif /* LUMEN_COLLECTOR_API_H */
