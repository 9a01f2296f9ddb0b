// The next definition of a libc function (the one the sync interposers
// stand in front of), found with dlvsym(RTLD_NEXT) under the symbol version
// the caller bound to, on first use.
//
// Constant-initialized, so a wrapper called before this object's
// constructors ran (by another preloaded object's constructor) still works.
// Resolution may happen on several threads at once: they all store the same
// address.
#pragma once

#include <atomic>

namespace lumen::sync {

// dlvsym(RTLD_NEXT, name, version), else dlsym(RTLD_NEXT, name).
void* resolve_next(const char* name, const char* version);

template <typename Signature>
class RealFunction;

template <typename Result, typename... Args>
class RealFunction<Result(Args...)> {
 public:
  using Pointer = Result (*)(Args...);

  constexpr RealFunction(const char* name, const char* version) : name_(name), version_(version) {}

  Pointer get() {
    void* address = address_.load(std::memory_order_acquire);
    if (__builtin_expect(address == nullptr, 0)) address = resolve();
    return reinterpret_cast<Pointer>(address);
  }

  void* resolve() {
    void* address = resolve_next(name_, version_);
    address_.store(address, std::memory_order_release);
    return address;
  }

 private:
  const char* name_;
  const char* version_;
  std::atomic<void*> address_{nullptr};
};

}  // namespace lumen::sync
