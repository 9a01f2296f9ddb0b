// The Fortran bindings' wrappers, generated from mpi_functions.def. Open
// MPI's Fortran bindings (libmpi_mpifh, libmpi_usempif08) call PMPI_ or
// their own internals, never the C MPI_ functions, and other MPIs may do
// the same: a Fortran program's calls reach no C wrapper. So each Fortran
// entry point is wrapped itself, under every name a compiler may call it
// by: mpif.h and `use mpi` (mpi_send_, mpi_send__, mpi_send, MPI_SEND) and
// `use mpi_f08` (mpi_send_f08_; MPICH names those with a choice buffer
// mpi_send_f08ts_). A wrapper forwards every argument to the definition
// that follows this object in the search order (the MPI library's), and
// records the call as the C wrapper of its function does. Inside, the
// library's calls of C MPI_ functions (MPICH's Fortran bindings make them)
// are not recorded again.
//
// A Fortran binding takes the C function's arguments in its order, each by
// reference, then ierror, then a hidden length per CHARACTER argument; Init
// and Init_thread take no argc and argv. So the number of arguments, which
// a forwarding wrapper must take and pass exactly, follows from the C
// prototype. The exported names are IFUNC symbols whose resolvers return
// the wrapper of that number of arguments: a name is spelled once, its
// arguments never.
#include <cstdio>
#include <atomic>
#include <cerrno>
#include <type_traits>
#include <utility>

#include <unistd.h>

#include "fortran_hooks.h"

namespace lumen::mpi::fortran {

namespace {

template <size_t> using Slot = void*;

template <typename Sequence> struct SlotsOf;
template <size_t... I> struct SlotsOf<std::index_sequence<I...>> {
  using Function = void(Slot<I>...);
};

// A parameter the Fortran binding takes as CHARACTER (with a hidden length).
template <typename T> inline constexpr bool kCharacter = std::is_same_v<std::remove_cv_t<T>, char>;
template <typename T> inline constexpr bool kCharacter<T*> = kCharacter<T>;

// The Fortran binding of a C prototype: how many arguments it takes, and
// where ierror is among them.
template <typename Kind, typename C> struct Prototype;
template <typename Kind, typename... P> struct Prototype<Kind, int(P...)> {
  static constexpr size_t kErrorSlot = sizeof...(P);
  static constexpr size_t kArguments = kErrorSlot + 1 + (size_t{kCharacter<P>} + ... + 0);
};
template <typename... P> struct Prototype<kinds::Init, int(P...)> {  // no argc, argv
  static constexpr size_t kErrorSlot = sizeof...(P) - 2;
  static constexpr size_t kArguments = kErrorSlot + 1;
};

template <typename Proto>
using FortranFunction = typename SlotsOf<std::make_index_sequence<Proto::kArguments>>::Function;

// The definition of an exported name that follows this object: the MPI
// library's. Looked up at its first call.
struct NextDefinition {
  const char* name;
  std::atomic<void*> address{nullptr};
};

// A program calling a name that the MPI library lacks would have failed to
// bind it without the collector.
[[noreturn]] void no_definition(const char* name) {
  char line[256];
  const int length = std::snprintf(line, sizeof line, "lumen: mpi: %s: no definition follows the collector's\n", name);
  const ssize_t ignored = write(STDERR_FILENO, line, static_cast<size_t>(length));
  (void)ignored;
  _exit(127);
}

void* next_address(NextDefinition& next) {
  void* address = next.address.load(std::memory_order_acquire);
  if (__builtin_expect(address == nullptr, 0)) {
    address = next_symbol(next.name);
    if (address == nullptr) no_definition(next.name);
    next.address.store(address, std::memory_order_release);
  }
  return address;
}

// Calls `next` with the arguments in `slots`: one per number of arguments.
template <size_t... I>
void forward(void* next, void* const* slots) {
  reinterpret_cast<void (*)(Slot<I>...)>(next)(slots[I]...);
}
using Forward = void (*)(void*, void* const*);

// One call of a wrapper, which holds only what differs by name: the
// arguments, their number (`forward`) and the next definition. Recording
// is shared by every name of a kind.
template <typename Kind>
__attribute__((noinline)) void run(Function function, Binding binding, size_t error_slot, NextDefinition& next_name,
                                   void** slots, Forward forward_to) {
  void* const next = next_address(next_name);
  CallState state;
  if (!open_call(state, function)) return forward_to(next, slots);
  FortranHookState hooks(state);
  FortranCall call{slots, error_slot, binding, function, hooks};
  call.lend_error();
  // before() under the runtime's re-entry guard where it allocates, as
  // in the C wrappers.
  if constexpr (kBeforeNeedsGuard<Kind>) {
    const TraceGuard guard(runtime());
    call.hooked = static_cast<bool>(guard);
    if (call.hooked) before(Kind{}, call);
  } else {
    before(Kind{}, call);
  }
  forward_to(next, slots);
  const int saved_errno = errno;
  hooks.call.call.result = call.error();
  {
    const TraceGuard guard(runtime());
    if (guard && call.hooked) after(Kind{}, call);
    close_call(state, guard);
  }
  errno = saved_errno;
}

template <Function F, typename Kind, Binding B, size_t ErrorSlot, NextDefinition& Next, typename Sequence>
struct Wrapper;
template <Function F, typename Kind, Binding B, size_t ErrorSlot, NextDefinition& Next, size_t... I>
struct Wrapper<F, Kind, B, ErrorSlot, Next, std::index_sequence<I...>> {
  static void call(Slot<I>... arguments) {
    void* slots[] = {arguments...};
    run<Kind>(F, B, ErrorSlot, Next, slots, &forward<I...>);
  }
};

template <Function F, typename Kind, Binding B, typename Proto, NextDefinition& Next>
FortranFunction<Proto>* wrapper() {
  return &Wrapper<F, Kind, B, Proto::kErrorSlot, Next, std::make_index_sequence<Proto::kArguments>>::call;
}

}  // namespace

}  // namespace lumen::mpi::fortran

// One exported name: its next definition, the resolver that gives the
// wrapper, and the IFUNC symbol. The resolver runs while the dynamic
// loader binds the name, maybe before this object's constructors: it only
// takes an address.
#define LUMEN_MPI_FORTRAN_NAME(name, kind, binding, id, symbol)                                          \
  namespace lumen::mpi::fortran {                                                                      \
  namespace {                                                                                          \
  constinit NextDefinition next_##name##_##id{symbol};                                                  \
  }                                                                                                    \
  }                                                                                                    \
  extern "C" lumen::mpi::fortran::FortranFunction<lumen::mpi::fortran::Prototype_##name>*                \
  lumen_mpi_resolve_##name##_##id() {                                                 \
    using namespace lumen::mpi::fortran;                                                               \
    return wrapper<lumen::mpi::Function::k##name, lumen::mpi::kinds::kind, Binding::binding, Prototype_##name, \
                   next_##name##_##id>();                                                              \
  }                                                                                                    \
  LUMEN_EXPORT lumen::mpi::fortran::FortranFunction<lumen::mpi::fortran::Prototype_##name>             \
      lumen_mpi_fortran_##name##_##id __asm__(symbol)                                                  \
      __attribute__((ifunc("lumen_mpi_resolve_" #name "_" #id)));

// MPICH's mpi_f08 names its entry points with a choice buffer _f08ts_.
#ifdef OPEN_MPI
#define LUMEN_MPI_FORTRAN_F08TS(name, kind, lower_name)
#else
#define LUMEN_MPI_FORTRAN_F08TS(name, kind, lower_name) LUMEN_MPI_FORTRAN_NAME(name, kind, kF08, f08ts, lower_name "_f08ts_")
#endif

#define LUMEN_MPI_FORTRAN(name, kind, lower_name, upper_name)                                                    \
  namespace lumen::mpi::fortran {                                                                      \
  using Prototype_##name = Prototype<kinds::kind, decltype(PMPI_##name)>;                              \
  }                                                                                                    \
  LUMEN_MPI_FORTRAN_NAME(name, kind, kMpifh, bare, lower_name)                                           \
  LUMEN_MPI_FORTRAN_NAME(name, kind, kMpifh, underscore, lower_name "_")                                  \
  LUMEN_MPI_FORTRAN_NAME(name, kind, kMpifh, twice, lower_name "__")                                      \
  LUMEN_MPI_FORTRAN_NAME(name, kind, kMpifh, caps, upper_name)                                           \
  LUMEN_MPI_FORTRAN_NAME(name, kind, kF08, f08, lower_name "_f08_")                                       \
  LUMEN_MPI_FORTRAN_F08TS(name, kind, lower_name)
#include "mpi_fortran_names.def"
#undef LUMEN_MPI_FORTRAN
