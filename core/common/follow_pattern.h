// The regular expression of `collect -F =REGEX`, which selects the
// descendant processes to collect by their command line. collect checks it
// (and says where it is wrong); the runtime inside the target compiles it
// once and matches each new image's command line. Matching runs in time
// linear in the command line (an NFA simulated over all its states at once,
// never backtracking), with no recursion, no allocation and no exception:
// a command line of any length cannot make the target's stack overflow.
//
// The syntax is POSIX's extended regular expressions without back
// references: literal characters, `.`, bracket expressions (`[a-z_]`,
// `[^0-9]`), `\d` `\w` `\s` and `\` before any other character for the
// character itself, groups `( )`, alternation `|`, the repetitions `*`, `+`,
// `?`, `{m}`, `{m,}`, `{m,n}` (m, n at most 100), and the anchors `^` and
// `$`. It matches anywhere in the command line unless anchored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lumen::metadata {

class FollowPattern {
 public:
  static constexpr size_t kMaxInstructions = 2048;
  static constexpr size_t kMaxClasses = 64;

  // Compiles `pattern`; false with `error` saying what and where when it is
  // not one this syntax has, or compiles to more than kMaxInstructions.
  bool compile(const std::string& pattern, std::string* error);

  // [no allocation] Whether the pattern matches somewhere in `text`.
  bool search(const char* text, size_t length) const;

  enum class Op : uint8_t { kChar, kAny, kClass, kSplit, kJump, kLineStart, kLineEnd, kMatch };
  struct Instruction {
    Op op;
    uint8_t byte;       // kChar
    uint16_t x, y;      // kClass: class; kSplit: both; kJump: x
  };

 private:
  Instruction program_[kMaxInstructions];
  uint64_t classes_[kMaxClasses][4];
  size_t size_ = 0;
  size_t class_count_ = 0;
  friend class FollowPatternCompiler;
};

}  // namespace lumen::metadata
