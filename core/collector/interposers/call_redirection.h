// Redirecting calls already bound by the dynamic linker: the GOT slots
// through which chosen objects call a function are set to an interposer,
// and put back later. Where the runtime was loaded into a running process
// (collect -P) nothing is interposed by preloading: the runtime's own
// interposers (threads, dlopen) and the tracing plugins' are reached this
// way, and its own libraries' calls that must reach it (libunwind's pipe2
// and close, so its validation pipe is the runtime's).
#pragma once

namespace lumen::collector {

// Not signal-safe. In every loaded object `chosen` accepts (by its path as
// the dynamic linker has it, "" for the program), the GOT slots bound to
// `symbol` now hold `replacement`; returns how many. Each is remembered for
// restore_redirected_calls.
int redirect_calls(bool (*chosen)(const char* object_path), const char* symbol, void* replacement);

// Not signal-safe. In every loaded object `chosen` accepts, each PLT slot
// (and, in the C library, each GOT slot: its own calls of malloc and free
// go through them) bound to a function the object holding `interposers`
// defines under the same name and symbol version now holds that
// definition. Returns how many slots; each is remembered for
// restore_calls_to_interposers. Slots taken already are left alone.
int redirect_calls_to_interposers(bool (*chosen)(const char* object_path), const void* interposers);

// Not signal-safe. Puts back every slot redirect_calls_to_interposers
// took, where its object is still loaded and the slot still holds the
// interposer.
void restore_calls_to_interposers();

// Not signal-safe. Puts every redirected slot back as it was, where its
// object is still loaded and the slot still holds the replacement.
void restore_redirected_calls();

}  // namespace lumen::collector
