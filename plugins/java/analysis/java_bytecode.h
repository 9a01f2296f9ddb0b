// Java bytecode as text, for -disasm of a Java method: each instruction at
// its bytecode index, its opcode named as the Java Virtual Machine
// Specification (chapter 6) names it, with its operands (constant-pool
// indexes as "#12", branch targets as bytecode indexes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lumen::java {

struct BytecodeInstruction {
  int32_t bci = 0;
  std::string text;  // "7: ifge 20"
};

// The instructions of `length` bytes of a method's code. Bytes that end
// inside an instruction (a record cut short) or hold no opcode end the
// listing with a line saying so.
std::vector<BytecodeInstruction> disassemble_bytecode(const uint8_t* code, size_t length);

}  // namespace lumen::java
