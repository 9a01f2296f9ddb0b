/* A program that relies on deferred cancellation acting only at
 * cancellation points, and checks it:
 *   cancellation_target WORKERS ROUNDS
 * Each worker asks for its own cancellation (deferred: it stays pending)
 * and then, ROUNDS times, makes calls that are no cancellation points but
 * that a collector traces or samples: a shared mutex and a read-write lock,
 * malloc and free, lseek, dup2, mmap and munmap, and some computing. Then
 * it counts itself as having reached its own cancellation point, and calls
 * pthread_testcancel, where it is cancelled. Then two threads block in
 * cancellation points a collector interposes (pthread_cond_wait, read of
 * a pipe) and the main thread cancels them. Prints
 *   reached: W of W
 *   cancelled at the point: W of W
 *   lock free: yes
 *   cancelled while blocked: 2 of 2
 * A worker cancelled anywhere else is missing from both counts; one
 * cancelled while holding the mutex leaves it locked (the others would
 * wait for ever: the main thread gives up after 20 s and says so). C++,
 * so that cancellation's unwinding passes through C++ frames, as in the
 * programs where it ends in std::terminate when it starts inside a
 * function that may not throw. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace {

pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_rwlock_t g_rwlock = PTHREAD_RWLOCK_INITIALIZER;
std::atomic<int> g_reached{0};
std::atomic<int> g_cancelled_at_point{0};
volatile unsigned long g_sink;
int g_rounds = 0;
int g_fd = -1;

// A C++ object whose destructor cancellation's unwinding runs.
struct CountsCancellation {
  bool at_point = false;
  ~CountsCancellation() {
    if (at_point) g_cancelled_at_point.fetch_add(1);
  }
};

void work_without_cancellation_points(int round) {
  pthread_mutex_lock(&g_mutex);
  g_sink = g_sink + static_cast<unsigned long>(round);
  pthread_mutex_unlock(&g_mutex);
  pthread_rwlock_rdlock(&g_rwlock);
  g_sink = g_sink + 1;
  pthread_rwlock_unlock(&g_rwlock);
  void* block = malloc(64 + static_cast<size_t>(round % 512));
  free(block);
  lseek(g_fd, 0, SEEK_SET);
  dup2(g_fd, g_fd);
  void* map = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map != MAP_FAILED) munmap(map, 4096);
  unsigned long sum = 0;
  for (int i = 0; i < 20000; ++i) sum += static_cast<unsigned long>(i) * static_cast<unsigned long>(round);
  g_sink = g_sink + sum;
}

void* worker(void*) {
  CountsCancellation counts;
  pthread_cancel(pthread_self());  // pending until a cancellation point
  for (int round = 0; round < g_rounds; ++round) work_without_cancellation_points(round);
  g_reached.fetch_add(1);
  counts.at_point = true;
  pthread_testcancel();
  counts.at_point = false;  // not cancelled: it returns
  return nullptr;
}

pthread_cond_t g_never = PTHREAD_COND_INITIALIZER;
std::atomic<int> g_cancelled_blocked{0};

struct CountsBlockedCancellation {
  ~CountsBlockedCancellation() { g_cancelled_blocked.fetch_add(1); }
};

void unlock_mutex(void*) { pthread_mutex_unlock(&g_mutex); }

void* wait_for_ever(void*) {
  CountsBlockedCancellation counts;
  pthread_mutex_lock(&g_mutex);
  pthread_cleanup_push(unlock_mutex, nullptr);
  for (;;) pthread_cond_wait(&g_never, &g_mutex);
  pthread_cleanup_pop(1);
  return nullptr;
}

void* read_for_ever(void* pipe_end) {
  CountsBlockedCancellation counts;
  char byte;
  for (;;)
    if (read(*static_cast<int*>(pipe_end), &byte, 1) <= 0) break;
  return nullptr;
}

// Cancels threads blocked in cancellation points; true when both ended
// within 20 s.
bool cancel_blocked_threads() {
  int ends[2];
  if (pipe(ends) != 0) return false;
  pthread_t blocked[2];
  pthread_create(&blocked[0], nullptr, wait_for_ever, nullptr);
  pthread_create(&blocked[1], nullptr, read_for_ever, &ends[0]);
  const timespec settle{0, 50 * 1000 * 1000};
  nanosleep(&settle, nullptr);
  timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 20;
  for (pthread_t thread : blocked) {
    pthread_cancel(thread);
    void* result = nullptr;
    if (pthread_timedjoin_np(thread, &result, &deadline) == ETIMEDOUT || result != PTHREAD_CANCELED) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: cancellation_target WORKERS ROUNDS\n");
    return 2;
  }
  const int workers = atoi(argv[1]);
  g_rounds = atoi(argv[2]);
  g_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (workers <= 0 || workers > 256 || g_fd < 0) return 2;
  pthread_t threads[256];
  for (int i = 0; i < workers; ++i)
    if (pthread_create(&threads[i], nullptr, worker, nullptr) != 0) return 2;
  timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 20;
  for (int i = 0; i < workers; ++i) {
    void* result = nullptr;
    if (pthread_timedjoin_np(threads[i], &result, &deadline) == ETIMEDOUT) {
      printf("worker %d never ended: the others wait for a lock a cancelled worker held\n", i);
      fflush(stdout);
      _exit(3);
    }
  }
  printf("reached: %d of %d\n", g_reached.load(), workers);
  printf("cancelled at the point: %d of %d\n", g_cancelled_at_point.load(), workers);
  const bool free_now = pthread_mutex_trylock(&g_mutex) == 0;
  printf("lock free: %s\n", free_now ? "yes" : "no");
  if (free_now) pthread_mutex_unlock(&g_mutex);
  if (!cancel_blocked_threads()) {
    printf("a thread blocked in a cancellation point was not cancelled\n");
    fflush(stdout);
    _exit(4);
  }
  printf("cancelled while blocked: %d of 2\n", g_cancelled_blocked.load());
  return 0;
}
