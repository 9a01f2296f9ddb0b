// C++ new and delete reach malloc and free (aligned new: aligned_alloc), so
// the allocations are counted under the functions that call operator new:
// their inclusive figures are exact; operator new itself is the leaf.
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "heap_truth.h"

namespace lumen::test {

struct Node {
  Node* next;
  long payload[4];
};

struct alignas(64) Aligned {
  char bytes[192];
};

// 1000 nodes; all but 3 are deleted.
NOINLINE Node* build_list(int count) {
  Node* head = nullptr;
  for (int i = 0; i < count; ++i) head = new Node{head, {i, i, i, i}};
  heap_truth_add("lumen::test::build_list(int)", count, count * static_cast<long long>(sizeof(Node)), 3,
                 3 * static_cast<long long>(sizeof(Node)));
  return head;
}

NOINLINE void destroy_all_but_three(Node* head) {
  int kept = 0;
  while (head != nullptr) {
    Node* next = head->next;
    if (kept < 3 && head->payload[0] % 250 == 0) ++kept;  // nodes 0, 250, 500 survive
    else delete head;
    head = next;
  }
}

NOINLINE void use_arrays() {
  for (int i = 0; i < 5; ++i) {
    int* numbers = new int[1001];
    touch(numbers, sizeof(int) * 1001);
    delete[] numbers;
  }
  heap_truth_add("lumen::test::use_arrays()", 5, 5 * 1001 * static_cast<long long>(sizeof(int)), 0, 0);
}

NOINLINE void use_aligned_new() {
  for (int i = 0; i < 4; ++i) {
    Aligned* a = new Aligned;
    touch(a, sizeof *a);
    say("aligned new on 64: %d\n", reinterpret_cast<uintptr_t>(a) % 64 == 0);
    delete a;
  }
  heap_truth_add("lumen::test::use_aligned_new()", 4, 4 * static_cast<long long>(sizeof(Aligned)), 0, 0);
}

NOINLINE double reserve_vector() {
  std::vector<double> values;
  values.reserve(777);  // exactly one allocation of 777 doubles
  for (int i = 0; i < 777; ++i) values.push_back(i);
  heap_truth_add("lumen::test::reserve_vector()", 1, 777 * static_cast<long long>(sizeof(double)), 0, 0);
  return values.back();
}

}  // namespace lumen::test

int main() {
  using namespace lumen::test;
  destroy_all_but_three(build_list(1000));
  use_arrays();
  use_aligned_new();
  const double last = reserve_vector();
  heap_truth_write(nullptr);
  say("cpp_target done %d\n", static_cast<int>(last));
  return 0;
}
