/* A user's own OMPT tool, for the test that the plugin chains to a tool
 * named in OMP_TOOL_LIBRARIES: it counts the parallel regions and implicit
 * tasks the runtime reports to it and writes the counts, at the runtime's
 * finalize, to the file named by COUNTING_TOOL_OUTPUT. */
#include LUMEN_OMP_TOOLS_HEADER
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int regions, implicit_tasks;

static void on_parallel_begin(ompt_data_t* task, const ompt_frame_t* frame, ompt_data_t* parallel,
                              unsigned int requested, int flags, const void* codeptr) {
  (void)task, (void)frame, (void)parallel, (void)requested, (void)flags, (void)codeptr;
  atomic_fetch_add(&regions, 1);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task,
                             unsigned int team, unsigned int index, int flags) {
  (void)parallel, (void)task, (void)team, (void)index;
  if (endpoint == ompt_scope_begin && (flags & ompt_task_implicit)) atomic_fetch_add(&implicit_tasks, 1);
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t* data) {
  (void)device, (void)data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  set_callback(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set_callback(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  return 1;
}

static void finalize(ompt_data_t* data) {
  (void)data;
  const char* path = getenv("COUNTING_TOOL_OUTPUT");
  FILE* out = path != NULL ? fopen(path, "w") : NULL;
  if (out == NULL) return;
  fprintf(out, "{\"regions\": %d, \"implicit_tasks\": %d}\n", atomic_load(&regions), atomic_load(&implicit_tasks));
  fclose(out);
}

ompt_start_tool_result_t* ompt_start_tool(unsigned int version, const char* runtime) {
  (void)version, (void)runtime;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
