// The opcodes of the Java Virtual Machine Specification (Java SE 17,
// chapter 6 "The Java Virtual Machine Instruction Set", and chapter 7
// "Opcode Mnemonics by Opcode"), with the shape of their operands.
#include "java_opcodes.h"

namespace lumen::java {

namespace {

using enum OperandShape;

// Indexed by opcode; 0xcb..0xfd are unassigned.
constexpr Opcode kOpcodes[256] = {
    {"nop", None}, {"aconst_null", None}, {"iconst_m1", None}, {"iconst_0", None},             // 0x00
    {"iconst_1", None}, {"iconst_2", None}, {"iconst_3", None}, {"iconst_4", None},            // 0x04
    {"iconst_5", None}, {"lconst_0", None}, {"lconst_1", None}, {"fconst_0", None},            // 0x08
    {"fconst_1", None}, {"fconst_2", None}, {"dconst_0", None}, {"dconst_1", None},            // 0x0c
    {"bipush", SignedByte}, {"sipush", SignedShort}, {"ldc", ConstantByte}, {"ldc_w", Constant},  // 0x10
    {"ldc2_w", Constant}, {"iload", Local}, {"lload", Local}, {"fload", Local},                 // 0x14
    {"dload", Local}, {"aload", Local}, {"iload_0", None}, {"iload_1", None},                   // 0x18
    {"iload_2", None}, {"iload_3", None}, {"lload_0", None}, {"lload_1", None},                 // 0x1c
    {"lload_2", None}, {"lload_3", None}, {"fload_0", None}, {"fload_1", None},                 // 0x20
    {"fload_2", None}, {"fload_3", None}, {"dload_0", None}, {"dload_1", None},                 // 0x24
    {"dload_2", None}, {"dload_3", None}, {"aload_0", None}, {"aload_1", None},                 // 0x28
    {"aload_2", None}, {"aload_3", None}, {"iaload", None}, {"laload", None},                   // 0x2c
    {"faload", None}, {"daload", None}, {"aaload", None}, {"baload", None},                     // 0x30
    {"caload", None}, {"saload", None}, {"istore", Local}, {"lstore", Local},                   // 0x34
    {"fstore", Local}, {"dstore", Local}, {"astore", Local}, {"istore_0", None},                // 0x38
    {"istore_1", None}, {"istore_2", None}, {"istore_3", None}, {"lstore_0", None},             // 0x3c
    {"lstore_1", None}, {"lstore_2", None}, {"lstore_3", None}, {"fstore_0", None},             // 0x40
    {"fstore_1", None}, {"fstore_2", None}, {"fstore_3", None}, {"dstore_0", None},             // 0x44
    {"dstore_1", None}, {"dstore_2", None}, {"dstore_3", None}, {"astore_0", None},             // 0x48
    {"astore_1", None}, {"astore_2", None}, {"astore_3", None}, {"iastore", None},              // 0x4c
    {"lastore", None}, {"fastore", None}, {"dastore", None}, {"aastore", None},                 // 0x50
    {"bastore", None}, {"castore", None}, {"sastore", None}, {"pop", None},                     // 0x54
    {"pop2", None}, {"dup", None}, {"dup_x1", None}, {"dup_x2", None},                          // 0x58
    {"dup2", None}, {"dup2_x1", None}, {"dup2_x2", None}, {"swap", None},                       // 0x5c
    {"iadd", None}, {"ladd", None}, {"fadd", None}, {"dadd", None},                             // 0x60
    {"isub", None}, {"lsub", None}, {"fsub", None}, {"dsub", None},                             // 0x64
    {"imul", None}, {"lmul", None}, {"fmul", None}, {"dmul", None},                             // 0x68
    {"idiv", None}, {"ldiv", None}, {"fdiv", None}, {"ddiv", None},                             // 0x6c
    {"irem", None}, {"lrem", None}, {"frem", None}, {"drem", None},                             // 0x70
    {"ineg", None}, {"lneg", None}, {"fneg", None}, {"dneg", None},                             // 0x74
    {"ishl", None}, {"lshl", None}, {"ishr", None}, {"lshr", None},                             // 0x78
    {"iushr", None}, {"lushr", None}, {"iand", None}, {"land", None},                           // 0x7c
    {"ior", None}, {"lor", None}, {"ixor", None}, {"lxor", None},                               // 0x80
    {"iinc", Increment}, {"i2l", None}, {"i2f", None}, {"i2d", None},                           // 0x84
    {"l2i", None}, {"l2f", None}, {"l2d", None}, {"f2i", None},                                 // 0x88
    {"f2l", None}, {"f2d", None}, {"d2i", None}, {"d2l", None},                                 // 0x8c
    {"d2f", None}, {"i2b", None}, {"i2c", None}, {"i2s", None},                                 // 0x90
    {"lcmp", None}, {"fcmpl", None}, {"fcmpg", None}, {"dcmpl", None},                          // 0x94
    {"dcmpg", None}, {"ifeq", Branch}, {"ifne", Branch}, {"iflt", Branch},                      // 0x98
    {"ifge", Branch}, {"ifgt", Branch}, {"ifle", Branch}, {"if_icmpeq", Branch},                // 0x9c
    {"if_icmpne", Branch}, {"if_icmplt", Branch}, {"if_icmpge", Branch}, {"if_icmpgt", Branch},  // 0xa0
    {"if_icmple", Branch}, {"if_acmpeq", Branch}, {"if_acmpne", Branch}, {"goto", Branch},      // 0xa4
    {"jsr", Branch}, {"ret", Local}, {"tableswitch", TableSwitch}, {"lookupswitch", LookupSwitch},  // 0xa8
    {"ireturn", None}, {"lreturn", None}, {"freturn", None}, {"dreturn", None},                 // 0xac
    {"areturn", None}, {"return", None}, {"getstatic", Constant}, {"putstatic", Constant},      // 0xb0
    {"getfield", Constant}, {"putfield", Constant}, {"invokevirtual", Constant},                // 0xb4
    {"invokespecial", Constant},
    {"invokestatic", Constant}, {"invokeinterface", InvokeInterface}, {"invokedynamic", InvokeDynamic},  // 0xb8
    {"new", Constant},
    {"newarray", ArrayType}, {"anewarray", Constant}, {"arraylength", None}, {"athrow", None},  // 0xbc
    {"checkcast", Constant}, {"instanceof", Constant}, {"monitorenter", None}, {"monitorexit", None},  // 0xc0
    {"wide", Wide}, {"multianewarray", MultiArray}, {"ifnull", Branch}, {"ifnonnull", Branch},  // 0xc4
    {"goto_w", WideBranch}, {"jsr_w", WideBranch}, {"breakpoint", None},                        // 0xc8
    // 0xcb..0xfd: none
    {}, {}, {}, {}, {},                                                                           // 0xcb
    {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {},                               // 0xd0
    {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {},                               // 0xe0
    {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {},                                       // 0xf0
    {"impdep1", None}, {"impdep2", None},                                                         // 0xfe
};

}  // namespace

const Opcode& opcode(uint8_t code) { return kOpcodes[code]; }

}  // namespace lumen::java
