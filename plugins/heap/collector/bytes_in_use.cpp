#include "bytes_in_use.h"

namespace lumen::heap {

namespace {

// Built with -mcx16: __sync_val_compare_and_swap on 16 bytes is one
// `lock cmpxchg16b` (the __atomic builtins would call libatomic, which may
// take a lock: not in a signal handler).
struct alignas(16) Word {
  uint64_t in_use;
  uint64_t highest;
};
Word g_word{0, 0};

using Pair = unsigned __int128;

Pair pack(uint64_t in_use, uint64_t highest) { return static_cast<Pair>(highest) << 64 | in_use; }

}  // namespace

uint64_t bytes_in_use_change(int64_t delta, bool& raised) noexcept {
  auto* word = reinterpret_cast<Pair*>(&g_word);
  // A torn first guess costs one more round: the compare-and-swap checks it.
  Pair old = pack(__atomic_load_n(&g_word.in_use, __ATOMIC_RELAXED), __atomic_load_n(&g_word.highest, __ATOMIC_RELAXED));
  for (;;) {
    const uint64_t in_use = static_cast<uint64_t>(old) + static_cast<uint64_t>(delta);
    uint64_t highest = static_cast<uint64_t>(old >> 64);
    raised = in_use > highest;
    if (raised) highest = in_use;
    const Pair seen = __sync_val_compare_and_swap(word, old, pack(in_use, highest));
    if (seen == old) return highest;
    old = seen;
  }
}

void bytes_in_use_forget_after_fork() noexcept {
  g_word.in_use = 0;
  g_word.highest = 0;
}

}  // namespace lumen::heap
