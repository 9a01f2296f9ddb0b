#include "bytes_in_use.h"

namespace lumen::heap {

namespace {

using Pair = unsigned __int128;

// Built with -mcx16: __sync_val_compare_and_swap on 16 bytes is one
// `lock cmpxchg16b` (the __atomic builtins would call libatomic, which may
// take a lock: not in a signal handler). Every event of every thread takes
// this word's line; a line of its own, so that no other datum moves with it.
struct alignas(64) Word {
  Pair value;  // bytes in use (low 64 bits), their highest value (high 64 bits)
  unsigned char unshared[64 - sizeof(Pair)];
};
static_assert(sizeof(Word) == 64);
Word g_word{};

// What the calling thread last left in or found at the word: the guess its
// next compare-and-swap starts from. The compare-and-swap decides, never
// the guess: a wrong one costs one more locked operation, on a line that
// operation has just taken exclusive (reading the word first would take it
// shared and then take it again to write).
__attribute__((tls_model("initial-exec"))) thread_local Pair t_guess = 0;

Pair pack(uint64_t in_use, uint64_t highest) { return static_cast<Pair>(highest) << 64 | in_use; }

}  // namespace

uint64_t bytes_in_use_change(int64_t delta, bool& raised) noexcept {
  Pair old = t_guess;
  for (;;) {
    const uint64_t in_use = static_cast<uint64_t>(old) + static_cast<uint64_t>(delta);
    uint64_t highest = static_cast<uint64_t>(old >> 64);
    raised = in_use > highest;
    if (raised) highest = in_use;
    const Pair fresh = pack(in_use, highest);
    const Pair seen = __sync_val_compare_and_swap(&g_word.value, old, fresh);
    if (seen == old) {
      t_guess = fresh;
      return highest;
    }
    old = seen;
  }
}

void bytes_in_use_forget_after_fork() noexcept {
  g_word.value = 0;
  t_guess = 0;
}

}  // namespace lumen::heap
