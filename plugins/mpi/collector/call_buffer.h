// A call's scratch array (the requests a Waitall was given, the statuses
// lent to it): inline for the sizes a program's windows have, on the heap
// beyond. A traced call then allocates nothing for them.
#pragma once

#include <cstddef>
#include <vector>

namespace lumen::mpi {

template <typename T, size_t kInline>
class CallBuffer {
 public:
  // `count` elements, their values undefined.
  T* resize(size_t count) {
    count_ = count;
    if (count <= kInline) return data_ = inline_;
    heap_.resize(count);
    return data_ = heap_.data();
  }
  T* data() { return data_; }
  size_t size() const { return count_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  T inline_[kInline];  // no initializer: not cleared per call
  std::vector<T> heap_;
  T* data_ = inline_;
  size_t count_ = 0;
};

}  // namespace lumen::mpi
