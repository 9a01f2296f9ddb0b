// std::thread workers allocating with new at once: each of 4 threads builds
// a list of 1000 nodes, waits for the others (so the peak is all four lists,
// whatever the interleaving), and deletes all but every 250th (4 leaks a
// thread); main gathers the threads' results in a vector that grows.
// Truth (heap_truth.h): the workers' nodes, the vector's buffers, and
// pthread_create's TLS vectors (heap_thread_vector.h). std::thread's own
// state block per thread (allocated by the constructor, freed by the
// thread) is the library's, not counted here.
#include <barrier>
#include <thread>
#include <vector>

#include "heap_thread_vector.h"

namespace lumen::test {

struct Node {
  Node* next;
  long payload[4];
};

constexpr int kThreads = 4;
constexpr int kNodes = 1000;
constexpr int kKeepEvery = 250;

NOINLINE long build_and_trim(int thread, std::barrier<>& built) {
  Node* head = nullptr;
  for (int i = 0; i < kNodes; ++i) head = new Node{head, {thread, i, i, i}};
  built.arrive_and_wait();
  long kept = 0;
  while (head != nullptr) {
    Node* next = head->next;
    if (head->payload[1] % kKeepEvery == 0) kept += head->payload[1];  // leaked
    else delete head;
    head = next;
  }
  const long long node = sizeof(Node);
  heap_truth_add("lumen::test::build_and_trim(int, std::barrier<std::__empty_completion>&)", kNodes, kNodes * node, kNodes / kKeepEvery,
                 kNodes / kKeepEvery * node);
  return kept;
}

// push_back from an empty vector: buffers of 1, 2 and 4 longs, the first
// two freed as it grows, the last freed when it goes out of scope.
NOINLINE long gather(const long* results) {
  std::vector<long> all;
  for (int t = 0; t < kThreads; ++t) all.push_back(results[t]);
  long sum = 0;
  for (long r : all) sum += r;
  heap_truth_add("lumen::test::gather(long const*)", 3, (1 + 2 + 4) * static_cast<long long>(sizeof(long)), 0, 0);
  return sum;
}

}  // namespace lumen::test

int main() {
  using namespace lumen::test;
  long results[kThreads] = {};
  std::barrier built(kThreads);
  std::thread threads[kThreads];
  for (int t = 0; t < kThreads; ++t)
    threads[t] = std::thread([t, &results, &built] { results[t] = build_and_trim(t, built); });
  for (std::thread& thread : threads) thread.join();
  heap_truth_thread_vectors(kThreads);
  const long sum = gather(results);
  heap_truth_write(nullptr);
  say("cpp_threads_target done %ld\n", sum);
  return 0;
}
