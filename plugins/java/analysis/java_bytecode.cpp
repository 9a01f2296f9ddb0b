#include "java_bytecode.h"

#include <string>

#include "java_opcodes.h"

namespace lumen::java {

namespace {

// Reads big-endian operands of one method's code; any read past the end
// marks the reader short instead.
class CodeReader {
 public:
  CodeReader(const uint8_t* code, size_t length) : code_(code), length_(length) {}
  size_t at() const { return at_; }
  bool short_read() const { return short_; }
  void skip(size_t bytes) { at_ = bytes <= length_ - at_ ? at_ + bytes : (short_ = true, length_); }
  uint32_t unsigned_bytes(int count) {
    uint32_t value = 0;
    for (int i = 0; i < count; ++i) {
      if (at_ >= length_) {
        short_ = true;
        return 0;
      }
      value = (value << 8) | code_[at_++];
    }
    return value;
  }
  int32_t signed_bytes(int count) {
    const uint32_t value = unsigned_bytes(count);
    const int shift = 32 - 8 * count;
    return static_cast<int32_t>(value << shift) >> shift;
  }

 private:
  const uint8_t* code_;
  size_t length_;
  size_t at_ = 0;
  bool short_ = false;
};

const char* array_type_name(uint32_t type) {
  static const char* const kNames[] = {"boolean", "char", "float", "double", "byte", "short", "int", "long"};
  return type >= 4 && type <= 11 ? kNames[type - 4] : "?";
}

// A switch's cases, "{1: 28, 2: 30, default: 32}", bounded so that a
// damaged count cannot make the text (or the loop) huge.
std::string switch_text(CodeReader& in, int32_t bci, bool table) {
  in.skip((4 - (in.at() % 4)) % 4);
  const int32_t fallback = in.signed_bytes(4);
  std::string text = " {";
  int64_t cases = 0, low = 0;
  if (table) {
    low = in.signed_bytes(4);
    cases = int64_t(in.signed_bytes(4)) - low + 1;
  } else {
    cases = in.signed_bytes(4);
  }
  if (cases < 0 || cases > 65536) cases = 0;
  for (int64_t i = 0; i < cases && !in.short_read(); ++i) {
    const int64_t match = table ? low + i : in.signed_bytes(4);
    const int32_t offset = in.signed_bytes(4);
    text += std::to_string(match) + ": " + std::to_string(int64_t{bci} + offset) + ", ";
  }
  return text + "default: " + std::to_string(int64_t{bci} + fallback) + "}";
}

std::string operands_text(OperandShape shape, CodeReader& in, int32_t bci) {
  using enum OperandShape;
  switch (shape) {
    case None: return "";
    case SignedByte: return " " + std::to_string(in.signed_bytes(1));
    case SignedShort: return " " + std::to_string(in.signed_bytes(2));
    case ConstantByte: return " #" + std::to_string(in.unsigned_bytes(1));
    case Constant: return " #" + std::to_string(in.unsigned_bytes(2));
    case Local: return " " + std::to_string(in.unsigned_bytes(1));
    case Increment: {
      const uint32_t local = in.unsigned_bytes(1);
      return " " + std::to_string(local) + ", " + std::to_string(in.signed_bytes(1));
    }
    case Branch: return " " + std::to_string(int64_t{bci} + in.signed_bytes(2));
    case WideBranch: return " " + std::to_string(int64_t{bci} + in.signed_bytes(4));
    case InvokeInterface: {
      const uint32_t index = in.unsigned_bytes(2);
      const uint32_t count = in.unsigned_bytes(1);
      in.skip(1);
      return " #" + std::to_string(index) + ", " + std::to_string(count);
    }
    case InvokeDynamic: {
      const uint32_t index = in.unsigned_bytes(2);
      in.skip(2);
      return " #" + std::to_string(index);
    }
    case ArrayType: return std::string(" ") + array_type_name(in.unsigned_bytes(1));
    case MultiArray: {
      const uint32_t index = in.unsigned_bytes(2);
      return " #" + std::to_string(index) + ", " + std::to_string(in.unsigned_bytes(1));
    }
    case TableSwitch: return switch_text(in, bci, true);
    case LookupSwitch: return switch_text(in, bci, false);
    case Wide: {
      // The modified instruction, with a 16-bit local (and increment).
      const Opcode& modified = opcode(static_cast<uint8_t>(in.unsigned_bytes(1)));
      if (modified.name == nullptr || (modified.operands != Local && modified.operands != Increment)) return " ?";
      std::string text = std::string(" ") + modified.name + " " + std::to_string(in.unsigned_bytes(2));
      if (modified.operands == Increment) text += ", " + std::to_string(in.signed_bytes(2));
      return text;
    }
  }
  return "";
}

}  // namespace

std::vector<BytecodeInstruction> disassemble_bytecode(const uint8_t* code, size_t length) {
  std::vector<BytecodeInstruction> listing;
  CodeReader in(code, length);
  while (in.at() < length) {
    const int32_t bci = static_cast<int32_t>(in.at());
    const Opcode& op = opcode(static_cast<uint8_t>(in.unsigned_bytes(1)));
    if (op.name == nullptr) {
      listing.push_back({bci, std::to_string(bci) + ": <no opcode " + std::to_string(code[bci]) + "; listing ends>"});
      break;
    }
    std::string text = std::to_string(bci) + ": " + op.name + operands_text(op.operands, in, bci);
    if (in.short_read()) {
      listing.push_back({bci, std::to_string(bci) + ": " + op.name + " <cut short>"});
      break;
    }
    listing.push_back({bci, std::move(text)});
  }
  return listing;
}

}  // namespace lumen::java
