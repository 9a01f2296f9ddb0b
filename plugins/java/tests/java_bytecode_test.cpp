// Java bytecode as text: opcodes named as the JVM specification names
// them, operands decoded by their shapes, damaged code said so.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../analysis/java_bytecode.h"

namespace lumen::java {
namespace {

std::vector<std::string> texts(const std::vector<uint8_t>& code) {
  std::vector<std::string> out;
  for (const BytecodeInstruction& i : disassemble_bytecode(code.data(), code.size())) out.push_back(i.text);
  return out;
}

TEST(JavaBytecode, ALoopAsJavacCompilesIt) {
  // for (int i = 0; i < 100; ++i) x += i; return x;  (javac 17)
  const std::vector<uint8_t> code{0x03, 0x3c, 0x03, 0x3d, 0x1c, 0x10, 0x64, 0xa2, 0x00, 0x0d, 0x1b, 0x1c,
                                  0x60, 0x3c, 0x84, 0x02, 0x01, 0xa7, 0xff, 0xf3, 0x1b, 0xac};
  EXPECT_EQ(texts(code), (std::vector<std::string>{"0: iconst_0", "1: istore_1", "2: iconst_0", "3: istore_2",
                                                   "4: iload_2", "5: bipush 100", "7: if_icmpge 20", "10: iload_1",
                                                   "11: iload_2", "12: iadd", "13: istore_1", "14: iinc 2, 1",
                                                   "17: goto 4", "20: iload_1", "21: ireturn"}));
}

TEST(JavaBytecode, OperandsOfEveryShape) {
  const std::vector<uint8_t> code{
      0x11, 0xff, 0x38,              // 0: sipush -200
      0x12, 0x07,                    // 3: ldc #7
      0x14, 0x01, 0x02,              // 5: ldc2_w #258
      0xb9, 0x00, 0x09, 0x02, 0x00,  // 8: invokeinterface #9, 2
      0xba, 0x00, 0x0b, 0x00, 0x00,  // 13: invokedynamic #11
      0xbc, 0x0a,                    // 18: newarray int
      0xc5, 0x00, 0x04, 0x03,        // 20: multianewarray #4, 3
      0xc4, 0x84, 0x01, 0x2c, 0xfc, 0x18,  // 24: wide iinc 300, -1000
      0xc4, 0x15, 0x01, 0x00,        // 30: wide iload 256
      0xc8, 0xff, 0xff, 0xff, 0xde,  // 34: goto_w 0
      0xb1};                         // 39: return
  EXPECT_EQ(texts(code), (std::vector<std::string>{"0: sipush -200", "3: ldc #7", "5: ldc2_w #258",
                                                   "8: invokeinterface #9, 2", "13: invokedynamic #11",
                                                   "18: newarray int", "20: multianewarray #4, 3",
                                                   "24: wide iinc 300, -1000", "30: wide iload 256", "34: goto_w 0",
                                                   "39: return"}));
}

TEST(JavaBytecode, SwitchesArePaddedToFourBytesFromTheMethodsStart) {
  const std::vector<uint8_t> code{
      0x1a,                                                // 0: iload_0
      0xaa, 0x00, 0x00,                                    // 1: tableswitch, padded to 4
      0x00, 0x00, 0x00, 0x1f,                              // default 1 + 31 = 32
      0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,      // low 1, high 2
      0x00, 0x00, 0x00, 0x1b, 0x00, 0x00, 0x00, 0x1d,      // 28, 30
      0xab, 0x00, 0x00, 0x00,                              // 24: lookupswitch, padded to 28
      0x00, 0x00, 0x00, 0x08,                              // default 32
      0x00, 0x00, 0x00, 0x01,                              // one pair
      0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x06};     // -1: 30
  EXPECT_EQ(texts(code), (std::vector<std::string>{"0: iload_0", "1: tableswitch {1: 28, 2: 30, default: 32}",
                                                   "24: lookupswitch {-1: 30, default: 32}"}));
}

TEST(JavaBytecode, DamagedCodeEndsTheListingSayingWhy) {
  EXPECT_EQ(texts({0x03, 0x11, 0x01}), (std::vector<std::string>{"0: iconst_0", "1: sipush <cut short>"}));
  EXPECT_EQ(texts({0x03, 0xcb, 0x03}), (std::vector<std::string>{"0: iconst_0", "1: <no opcode 203; listing ends>"}));
  // A switch whose count is absurd lists no cases rather than run away.
  const std::vector<uint8_t> huge{0xab, 0, 0, 0, 0, 0, 0, 8, 0x7f, 0xff, 0xff, 0xff};
  EXPECT_EQ(texts(huge), (std::vector<std::string>{"0: lookupswitch {default: 8}"}));
}

}  // namespace
}  // namespace lumen::java
