// The opcode table of the Java Virtual Machine: each opcode's mnemonic and
// the shape of the operands that follow it in a method's code.
#pragma once

#include <cstdint>

namespace lumen::java {

enum class OperandShape : uint8_t {
  None,
  SignedByte,       // bipush
  SignedShort,      // sipush
  ConstantByte,     // ldc: a constant-pool index in one byte
  Constant,         // a constant-pool index in two bytes
  Local,            // a local variable's index in one byte
  Increment,        // iinc: local, signed byte
  Branch,           // a signed 16-bit offset from the instruction
  WideBranch,       // a signed 32-bit offset
  InvokeInterface,  // index, count, 0
  InvokeDynamic,    // index, 0, 0
  ArrayType,        // newarray: the primitive type's code
  MultiArray,       // index, dimensions
  TableSwitch,      // padding to 4 bytes, default, low, high, offsets
  LookupSwitch,     // padding to 4 bytes, default, pair count, (match, offset) pairs
  Wide,             // the next opcode with a 16-bit local index (and increment)
};

struct Opcode {
  const char* name = nullptr;  // nullptr: no opcode
  OperandShape operands = OperandShape::None;
};

const Opcode& opcode(uint8_t code);

}  // namespace lumen::java
