/* What an MPI test target knows of its own MPI calls, by Oracle's counting
 * rules: per MPI function the calls made, the point-to-point sends started
 * and their bytes (count x type size), the receives completed and their
 * bytes, and the calls that did neither; per destination the messages and
 * bytes sent; per size in bytes the messages sent. Each rank writes its
 * account to TRUTH_DIR/rank<N>.json at the end. */
#ifndef LUMEN_MPI_TRUTH_H
#define LUMEN_MPI_TRUTH_H

#include <stdio.h>
#include <string.h>

#define TRUTH_MAX_FUNCTIONS 64
#define TRUTH_MAX_RANKS 1024
#define TRUTH_MAX_SIZES 256

struct truth_function {
  const char* name;
  long long calls, sends, bytes_sent, receives, bytes_received;
  long long message_calls; /* calls that sent or received at least one message */
};

static struct truth_function truth_functions[TRUTH_MAX_FUNCTIONS];
static int truth_function_count;
static long long truth_sent_messages[TRUTH_MAX_RANKS];
static long long truth_sent_bytes[TRUTH_MAX_RANKS];
static long long truth_sizes[TRUTH_MAX_SIZES];          /* distinct message sizes sent, */
static long long truth_size_messages[TRUTH_MAX_SIZES];  /* and the messages of each */
static int truth_size_count;
static struct truth_function* truth_last_call;
static int truth_last_call_had_message;

static struct truth_function* truth_function_named(const char* name) {
  for (int i = 0; i < truth_function_count; ++i)
    if (strcmp(truth_functions[i].name, name) == 0) return &truth_functions[i];
  struct truth_function* f = &truth_functions[truth_function_count++];
  f->name = name;
  return f;
}

/* One call of `name`, after it returned; its messages follow. */
static void truth_call(const char* name) {
  truth_last_call = truth_function_named(name);
  truth_last_call->calls += 1;
  truth_last_call_had_message = 0;
}
static void truth_message_of_last_call(struct truth_function* f) {
  if (f == truth_last_call && !truth_last_call_had_message) {
    f->message_calls += 1;
    truth_last_call_had_message = 1;
  }
}
/* A send `name` started to world rank `to`. */
static void truth_send(const char* name, int to, long long bytes) {
  struct truth_function* f = truth_function_named(name);
  truth_message_of_last_call(f);
  f->sends += 1;
  f->bytes_sent += bytes;
  truth_sent_messages[to] += 1;
  truth_sent_bytes[to] += bytes;
  int size = 0;
  while (size < truth_size_count && truth_sizes[size] != bytes) ++size;
  if (size == truth_size_count && truth_size_count < TRUTH_MAX_SIZES) truth_sizes[truth_size_count++] = bytes;
  if (size < truth_size_count) truth_size_messages[size] += 1;
}
/* A receive `name` completed. */
static void truth_receive(const char* name, long long bytes) {
  struct truth_function* f = truth_function_named(name);
  truth_message_of_last_call(f);
  f->receives += 1;
  f->bytes_received += bytes;
}

static void truth_write(const char* dir, int rank, int size) {
  /* Written under a temporary name and renamed: a reader sees all or nothing. */
  char path[4096], temporary[4200];
  snprintf(path, sizeof path, "%s/rank%d.json", dir, rank);
  snprintf(temporary, sizeof temporary, "%s.tmp", path);
  FILE* out = fopen(temporary, "w");
  if (out == NULL) return;
  fprintf(out, "{\"rank\": %d, \"size\": %d, \"functions\": {", rank, size);
  for (int i = 0; i < truth_function_count; ++i) {
    const struct truth_function* f = &truth_functions[i];
    fprintf(out, "%s\"%s\": {\"calls\": %lld, \"sends\": %lld, \"bytes_sent\": %lld, \"receives\": %lld, "
                 "\"bytes_received\": %lld, \"other\": %lld}",
            i ? ", " : "", f->name, f->calls, f->sends, f->bytes_sent, f->receives, f->bytes_received,
            f->calls - f->message_calls);
  }
  fprintf(out, "}, \"sent_to\": {");
  int first = 1;
  for (int to = 0; to < size && to < TRUTH_MAX_RANKS; ++to) {
    if (truth_sent_messages[to] == 0) continue;
    fprintf(out, "%s\"%d\": {\"messages\": %lld, \"bytes\": %lld}", first ? "" : ", ", to, truth_sent_messages[to],
            truth_sent_bytes[to]);
    first = 0;
  }
  fprintf(out, "}, \"sent_sizes\": {");
  for (int size = 0; size < truth_size_count; ++size)
    fprintf(out, "%s\"%lld\": %lld", size ? ", " : "", truth_sizes[size], truth_size_messages[size]);
  fprintf(out, "}}\n");
  fclose(out);
  rename(temporary, path);
}

#endif
