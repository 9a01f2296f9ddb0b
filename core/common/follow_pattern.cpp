#include "follow_pattern.h"

#include <cstring>

namespace lumen::metadata {

// Parses the pattern into a small tree (fixed arrays: nothing allocated
// but the error text) and emits a Thompson NFA from it; a repetition
// {m,n} emits its operand's instructions m..n times.
class FollowPatternCompiler {
 public:
  FollowPatternCompiler(FollowPattern& out, const std::string& pattern) : out_(out), text_(pattern) {}

  bool compile(std::string* error) {
    out_.size_ = out_.class_count_ = 0;
    const int root = alternation(0);
    if (failed_.empty() && at_ < text_.size()) fail(text_[at_] == ')' ? "')' without '('" : "unexpected character");
    if (failed_.empty()) emit_node(root);
    if (failed_.empty()) emit(FollowPattern::Op::kMatch);
    if (failed_.empty()) return true;
    if (error != nullptr) *error = failed_;
    return false;
  }

 private:
  enum class Kind : uint8_t { kEmpty, kChar, kAny, kClass, kLineStart, kLineEnd, kConcat, kAlternate, kRepeat };
  struct Node {
    Kind kind;
    uint8_t byte;
    uint16_t cls;
    int left, right;  // children; kRepeat: left only
    int min, max;     // kRepeat: max -1 for unbounded
  };
  static constexpr int kMaxNodes = 2048;
  static constexpr int kMaxDepth = 64;
  static constexpr int kMaxCount = 100;

  FollowPattern& out_;
  const std::string& text_;
  size_t at_ = 0;
  int depth_ = 0;
  Node nodes_[kMaxNodes];
  int node_count_ = 0;
  std::string failed_;

  void fail(const char* what) {
    if (failed_.empty()) failed_ = std::string(what) + " at offset " + std::to_string(at_);
  }

  int node(Kind kind, int left = -1, int right = -1) {
    if (node_count_ == kMaxNodes) {
      fail("too long a pattern");
      return 0;
    }
    nodes_[node_count_] = Node{kind, 0, 0, left, right, 0, 0};
    return node_count_++;
  }

  bool more() const { return at_ < text_.size(); }
  char peek() const { return text_[at_]; }

  int alternation(int level) {
    if (level > kMaxDepth) {
      fail("groups nested too deep");
      return node(Kind::kEmpty);
    }
    int left = concatenation(level);
    while (failed_.empty() && more() && peek() == '|') {
      ++at_;
      const int right = concatenation(level);
      left = node(Kind::kAlternate, left, right);
    }
    return left;
  }

  int concatenation(int level) {
    int result = node(Kind::kEmpty);
    while (failed_.empty() && more() && peek() != '|' && peek() != ')') {
      const int next = repetition(level);
      result = nodes_[result].kind == Kind::kEmpty ? next : node(Kind::kConcat, result, next);
    }
    return result;
  }

  bool count(int* value) {
    if (!more() || peek() < '0' || peek() > '9') return false;
    *value = 0;
    while (more() && peek() >= '0' && peek() <= '9') {
      *value = *value * 10 + (peek() - '0');
      ++at_;
      if (*value > kMaxCount) {
        fail("a repetition count above 100");
        return false;
      }
    }
    return true;
  }

  int repetition(int level) {
    int operand = atom(level);
    while (failed_.empty() && more()) {
      int min = 0, max = -1;
      const char c = peek();
      if (c == '*') {
        ++at_;
      } else if (c == '+') {
        ++at_, min = 1;
      } else if (c == '?') {
        ++at_, max = 1;
      } else if (c == '{' && at_ + 1 < text_.size() && text_[at_ + 1] >= '0' && text_[at_ + 1] <= '9') {
        ++at_;
        if (!count(&min)) return operand;
        max = min;
        if (more() && peek() == ',') {
          ++at_;
          max = -1;
          if (more() && peek() != '}' && !count(&max)) return operand;
        }
        if (!more() || peek() != '}') {
          fail("'{' without '}'");
          return operand;
        }
        ++at_;
        if (max >= 0 && max < min) {
          fail("a repetition {m,n} with n below m");
          return operand;
        }
      } else {
        break;
      }
      const Kind kind = nodes_[operand].kind;
      if (kind == Kind::kEmpty || kind == Kind::kLineStart || kind == Kind::kLineEnd) {
        fail("nothing to repeat");
        return operand;
      }
      const int repeat = node(Kind::kRepeat, operand);
      nodes_[repeat].min = min;
      nodes_[repeat].max = max;
      operand = repeat;
    }
    return operand;
  }

  int atom(int level) {
    const char c = peek();
    ++at_;
    switch (c) {
      case '(': {
        const int inner = alternation(level + 1);
        if (!more() || peek() != ')') {
          fail("'(' without ')'");
          return inner;
        }
        ++at_;
        return inner;
      }
      case '*':
      case '+':
      case '?':
        --at_;
        fail("nothing to repeat");
        return node(Kind::kEmpty);
      case '.':
        return node(Kind::kAny);
      case '^':
        return node(Kind::kLineStart);
      case '$':
        return node(Kind::kLineEnd);
      case '[':
        return bracket();
      case '\\':
        return escaped();
      default:
        return literal(static_cast<uint8_t>(c));
    }
  }

  int literal(uint8_t byte) {
    const int n = node(Kind::kChar);
    nodes_[n].byte = byte;
    return n;
  }

  // The class of a shorthand escape (\d, \w, \s) into `bits`; false for
  // any other character.
  static bool shorthand(char c, uint64_t* bits) {
    auto add = [bits](int from, int to) {
      for (int b = from; b <= to; ++b) bits[b >> 6] |= uint64_t{1} << (b & 63);
    };
    if (c == 'd') add('0', '9');
    else if (c == 'w') add('0', '9'), add('a', 'z'), add('A', 'Z'), add('_', '_');
    else if (c == 's') add(' ', ' '), add('\t', '\r');
    else return false;
    return true;
  }

  int new_class(const uint64_t* bits) {
    if (out_.class_count_ == FollowPattern::kMaxClasses) {
      fail("more than 64 bracket expressions");
      return node(Kind::kEmpty);
    }
    std::memcpy(out_.classes_[out_.class_count_], bits, sizeof out_.classes_[0]);
    const int n = node(Kind::kClass);
    nodes_[n].cls = static_cast<uint16_t>(out_.class_count_++);
    return n;
  }

  int escaped() {
    if (!more()) {
      fail("'\\' at the end");
      return node(Kind::kEmpty);
    }
    const char c = peek();
    ++at_;
    if (c >= '1' && c <= '9') {
      fail("back references are not supported");
      return node(Kind::kEmpty);
    }
    uint64_t bits[4] = {};
    if (shorthand(c, bits)) return new_class(bits);
    return literal(static_cast<uint8_t>(c));
  }

  bool named_class(uint64_t* bits) {
    static const struct {
      const char* name;
      const char* ranges;  // pairs of first and last
    } kNamed[] = {{"[:alpha:]", "azAZ"}, {"[:digit:]", "09"}, {"[:alnum:]", "azAZ09"}, {"[:upper:]", "AZ"},
                  {"[:lower:]", "az"},   {"[:space:]", "  \t\r"}, {"[:xdigit:]", "09afAF"}, {"[:punct:]", "!/:@[`{~"}};
    for (const auto& named : kNamed) {
      const size_t length = std::strlen(named.name);
      if (text_.compare(at_, length, named.name) != 0) continue;
      for (const char* r = named.ranges; *r != '\0'; r += 2)
        for (int b = static_cast<uint8_t>(r[0]); b <= static_cast<uint8_t>(r[1]); ++b) bits[b >> 6] |= uint64_t{1} << (b & 63);
      at_ += length;
      return true;
    }
    return false;
  }

  int bracket() {
    uint64_t bits[4] = {};
    const bool negated = more() && peek() == '^';
    if (negated) ++at_;
    bool first = true;
    while (more() && (peek() != ']' || first)) {
      first = false;
      if (peek() == '[' && named_class(bits)) continue;
      int low = static_cast<uint8_t>(peek());
      ++at_;
      if (low == '\\' && more()) {
        if (shorthand(peek(), bits)) {
          ++at_;
          continue;
        }
        low = static_cast<uint8_t>(peek());
        ++at_;
      }
      int high = low;
      if (at_ + 1 < text_.size() && peek() == '-' && text_[at_ + 1] != ']') {
        high = static_cast<uint8_t>(text_[at_ + 1]);
        at_ += 2;
        if (high < low) {
          fail("a range whose end is below its start");
          return node(Kind::kEmpty);
        }
      }
      for (int b = low; b <= high; ++b) bits[b >> 6] |= uint64_t{1} << (b & 63);
    }
    if (!more()) {
      fail("'[' without ']'");
      return node(Kind::kEmpty);
    }
    ++at_;
    if (negated)
      for (uint64_t& word : bits) word = ~word;
    return new_class(bits);
  }

  // ---- emission ----

  size_t emit(FollowPattern::Op op, uint16_t x = 0, uint16_t y = 0, uint8_t byte = 0) {
    if (out_.size_ == FollowPattern::kMaxInstructions) {
      fail("too large a pattern once its repetitions are spelled out");
      return out_.size_ - 1;
    }
    out_.program_[out_.size_] = FollowPattern::Instruction{op, byte, x, y};
    return out_.size_++;
  }
  void patch_x(size_t at, size_t to) { out_.program_[at].x = static_cast<uint16_t>(to); }
  void patch_y(size_t at, size_t to) { out_.program_[at].y = static_cast<uint16_t>(to); }

  // Recursion as deep as the tree: at most kMaxDepth groups, each a few
  // levels of concatenation, alternation and repetition.
  void emit_node(int index) {
    if (!failed_.empty()) return;
    const Node& n = nodes_[index];
    using Op = FollowPattern::Op;
    switch (n.kind) {
      case Kind::kEmpty:
        return;
      case Kind::kChar:
        emit(Op::kChar, 0, 0, n.byte);
        return;
      case Kind::kAny:
        emit(Op::kAny);
        return;
      case Kind::kClass:
        emit(Op::kClass, n.cls);
        return;
      case Kind::kLineStart:
        emit(Op::kLineStart);
        return;
      case Kind::kLineEnd:
        emit(Op::kLineEnd);
        return;
      case Kind::kConcat:
        emit_node(n.left);
        emit_node(n.right);
        return;
      case Kind::kAlternate: {
        const size_t split = emit(Op::kSplit);
        patch_x(split, out_.size_);
        emit_node(n.left);
        const size_t jump = emit(Op::kJump);
        patch_y(split, out_.size_);
        emit_node(n.right);
        patch_x(jump, out_.size_);
        return;
      }
      case Kind::kRepeat:
        for (int i = 0; i < n.min; ++i) emit_node(n.left);
        if (n.max < 0) {  // then as many more as match: a loop
          const size_t split = emit(Op::kSplit);
          patch_x(split, out_.size_);
          emit_node(n.left);
          const size_t back = emit(Op::kJump);
          patch_x(back, split);
          patch_y(split, out_.size_);
          return;
        }
        for (int i = n.min; i < n.max; ++i) {  // each optional copy: a?
          const size_t split = emit(Op::kSplit);
          patch_x(split, out_.size_);
          emit_node(n.left);
          patch_y(split, out_.size_);
        }
        return;
    }
  }
};

bool FollowPattern::compile(const std::string& pattern, std::string* error) {
  FollowPatternCompiler compiler(*this, pattern);
  return compiler.compile(error);
}

namespace {

// The states reached at one position of the text, each instruction once.
struct StateList {
  uint16_t at[FollowPattern::kMaxInstructions];
  size_t count = 0;
};

}  // namespace

bool FollowPattern::search(const char* text, size_t length) const {
  if (size_ == 0) return false;
  StateList lists[2];
  uint32_t seen[kMaxInstructions] = {};  // the generation that added each instruction
  uint16_t pending[2 * kMaxInstructions + 2];
  uint32_t generation = 0;
  bool matched = false;
  // Follows jumps, splits and anchors from `start` at `position`, adding
  // the instructions that consume a character to `list`.
  auto add = [&](StateList& list, uint16_t start, size_t position) {
    size_t top = 0;
    pending[top++] = start;
    while (top > 0) {
      const uint16_t pc = pending[--top];
      if (seen[pc] == generation) continue;
      seen[pc] = generation;
      const Instruction& in = program_[pc];
      switch (in.op) {
        case Op::kJump:
          pending[top++] = in.x;
          break;
        case Op::kSplit:
          pending[top++] = in.y;
          pending[top++] = in.x;
          break;
        case Op::kLineStart:
          if (position == 0) pending[top++] = static_cast<uint16_t>(pc + 1);
          break;
        case Op::kLineEnd:
          if (position == length) pending[top++] = static_cast<uint16_t>(pc + 1);
          break;
        case Op::kMatch:
          matched = true;
          break;
        default:
          list.at[list.count++] = pc;
      }
    }
  };
  StateList* current = &lists[0];
  StateList* next = &lists[1];
  ++generation;
  add(*current, 0, 0);
  for (size_t position = 0; position < length && !matched; ++position) {
    ++generation;
    next->count = 0;
    const auto byte = static_cast<uint8_t>(text[position]);
    for (size_t i = 0; i < current->count; ++i) {
      const uint16_t pc = current->at[i];
      const Instruction& in = program_[pc];
      const bool takes = (in.op == Op::kChar && in.byte == byte) || in.op == Op::kAny ||
                         (in.op == Op::kClass && (classes_[in.x][byte >> 6] >> (byte & 63) & 1u) != 0);
      if (takes) add(*next, static_cast<uint16_t>(pc + 1), position + 1);
    }
    add(*next, 0, position + 1);  // a match may start at any position
    StateList* swap = current;
    current = next;
    next = swap;
  }
  return matched;
}

}  // namespace lumen::metadata
