// Redirecting calls already bound by the dynamic linker: the GOT slots
// through which chosen objects call a function are set to the runtime's
// interposer, and put back later. Where the runtime was loaded into a
// running process (collect -P) it interposes nothing by preloading; its
// own libraries' calls that must reach its interposers (libunwind's pipe2
// and close, so its validation pipe is the runtime's) are redirected so.
#pragma once

namespace lumen::collector {

// Not signal-safe. In every loaded object `chosen` accepts (by its path as
// the dynamic linker has it, "" for the program), the GOT slots bound to
// `symbol` now hold `replacement`; returns how many. Each is remembered for
// restore_redirected_calls.
int redirect_calls(bool (*chosen)(const char* object_path), const char* symbol, void* replacement);

// Not signal-safe. Puts every redirected slot back as it was, where its
// object is still loaded and the slot still holds the replacement.
void restore_redirected_calls();

}  // namespace lumen::collector
