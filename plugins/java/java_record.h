// The Java plugin's records and the frames it adds to recorded stacks,
// declared once for both halves.
//
// A Java frame on a recorded stack is a 64-bit word in a code address space
// no process can map (bit 63 set, below the kernel's): the method's jmethodID (8-aligned, below
// 2^47) shifted into bits 17..60 and the bytecode index (+ kBciBias, so that
// a native method's -3 and a return address's "minus one" stay inside the
// method) in bits 0..16. Each method is described to the load-object map as
// a function covering its 2^17 words, so every view names it without
// knowing Java; interpreted and compiled executions of a method share it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lumen::java {

inline constexpr const char* kDataFile = "JAVA_CLASSES";

inline constexpr uint64_t kJavaFrameTag = 1ull << 63;
inline constexpr int kMethodShift = 17;
inline constexpr uint64_t kMethodSpan = 1ull << kMethodShift;
inline constexpr int64_t kBciBias = 4;
inline constexpr uint64_t kMaxMethodId = 1ull << 47;

// Method slots 0 and 1 never hold a jmethodID (it is a pointer): they name
// the two pseudo-functions of Java profiling.
inline constexpr uint64_t kJvmSystemBase = kJavaFrameTag;
inline constexpr uint64_t kNoJavaStackBase = kJavaFrameTag | kMethodSpan;
inline constexpr const char* kJvmSystemName = "<JVM-System>";
inline constexpr const char* kNoJavaStackName = "<no Java callstack recorded>";
// Slot 2: a method without a jmethodID (its class never went through the
// agent), which no function describes: analysis shows it as <Unknown>.
inline constexpr uint64_t kUnnamedMethodFrame = kJavaFrameTag | (2 * kMethodSpan) | uint64_t(kBciBias);
// A bridge method (javac's, for a covariant override or an erased generic
// one) is named apart from the method it calls, whose name it has.
inline constexpr const char* kBridgeSuffix = " [bridge]";
// The machine code of a method's Nth JIT-compiled version is the function
// "METHOD [compiled N]".
inline constexpr const char* kCompiledSuffix = " [compiled ";
inline std::string compiled_name(const std::string& method, int version) {
  return method + kCompiledSuffix + std::to_string(version) + "]";
}

inline bool method_encodable(uint64_t method_id) {
  return method_id != 0 && (method_id & 7u) == 0 && method_id < kMaxMethodId;
}
// The first word of a method's range.
inline uint64_t method_base(uint64_t method_id) { return kJavaFrameTag | ((method_id >> 3) << kMethodShift); }
inline uint64_t java_frame(uint64_t method_id, int32_t bci) {
  int64_t biased = int64_t(bci) + kBciBias;
  if (biased < 0 || uint64_t(biased) >= kMethodSpan) biased = 0;
  return method_base(method_id) | uint64_t(biased);
}
// The frame word of bytecode index `bci` of the method at `frame_base`.
inline uint64_t java_frame_address(uint64_t frame_base, int32_t bci) { return frame_base + uint64_t(int64_t(bci) + kBciBias); }
// Bit 63 set, bits 61 and 62 clear: the kernel's addresses (0xffff8...),
// which a sample taken in the kernel has above its user frames, have them
// set.
inline bool is_java_frame(uint64_t word) { return (word >> 61) == 4; }
inline int32_t frame_bci(uint64_t word) { return int32_t(int64_t(word & (kMethodSpan - 1)) - kBciBias); }

// Records of JAVA_CLASSES. Each is valid on its own.
enum RecordKind : uint16_t {
  kMethodRecord = 1,    // a method of a prepared class: JavaMethod + texts + line table
  kCompiledRecord = 2,  // JIT code of a method: CompiledCode
  kThreadRecord = 3,    // a thread's name: JavaThread + name
  kAllocationRecord = 4,  // a sampled allocation: JavaAllocation + class name
  // A sampled allocation the agent tagged (JVMTI SetTag), so that the census
  // at the JVM's end can tell whether it is still live: its tag (uint64_t,
  // never 0), then what a kAllocationRecord holds.
  kTrackedAllocationRecord = 5,
  kLiveObjectsRecord = 6,  // tags of tracked objects live at the census: JavaLiveObjects + tags
  kCensusRecord = 7,       // the census at the JVM's end is complete: JavaCensus
  kMachineCodeRecord = 8,  // JIT code's bytes: MachineCode + texts + PC map + code
};
// JavaThread.flags: a thread of the JVM's own (GC, JIT compiler, VM
// thread), named as the system names it, which never ran Java.
inline constexpr uint16_t kJvmSystemThread = 1;

#pragma pack(push, 1)
// Followed by class_bytes (e.g. "java.lang.String"), name_bytes
// ("indexOf(int)"), source_bytes ("String.java"), line_count
// LineEntry and, for a method with bytecode, a BytecodeTail and its bytes.
struct JavaMethod {
  uint64_t time_ns;
  uint64_t frame_base;  // method_base(jmethodID)
  uint16_t class_bytes;
  uint16_t name_bytes;
  uint16_t source_bytes;
  uint16_t line_count;
};
struct LineEntry {
  int32_t bci;
  int32_t line;
};
// What may follow a method record's line table: its bytecode (JVMTI
// GetBytecodes), code_length bytes of which the first recorded_bytes fit
// in the record. A native or abstract method's record has none.
struct BytecodeTail {
  uint32_t code_length;
  uint16_t recorded_bytes;
};
struct CompiledCode {
  uint64_t time_ns;
  uint64_t frame_base;
  uint64_t code_start;
  uint64_t code_size;  // 0: unloaded
};
struct JavaThread {
  uint64_t time_ns;
  uint32_t thread_id;
  uint16_t name_bytes;
  uint16_t flags;  // kJvmSystemThread
};
// An object the JVM's allocation sampler (JVMTI SampledObjectAlloc) chose:
// its size, the sampling interval in force (the mean number of bytes
// between samples) and the allocating thread's Java stack. Followed by
// class_bytes of the class's name ("long[]", "java.lang.String").
struct JavaAllocation {
  uint64_t time_ns;
  uint64_t stack_id;
  uint64_t size;
  uint32_t interval;
  uint32_t thread_id;
  uint16_t class_bytes;
};
// The census of tracked objects at the JVM's end (VMDeath): the agent
// stops sampling, forces a full garbage collection, and writes the tags of
// the tracked objects that survived it (still reachable: strongly, softly,
// or through a finalizer) in kLiveObjectsRecord records of `count` tags
// each, then one JavaCensus. Followed by count uint64_t tags.
struct JavaLiveObjects {
  uint64_t time_ns;
  uint32_t count;
};
struct JavaCensus {
  uint64_t time_ns;      // when the census began (sampling had stopped)
  uint64_t tracked;      // objects tagged during the run
  uint64_t live;         // tags written in kLiveObjectsRecord records
  uint32_t collections;  // garbage collections that finished while the census forced one
  uint32_t reserved;
};
// The machine code of a JIT-compiled method as it was loaded, for -disasm
// in machine mode (written just after its CompiledCode record). Followed
// by class_bytes of its class's name, source_bytes of its source file's
// name (as in JavaMethod), map_count PcMapEntry (JVMTI's map of the code's
// PCs to bytecode indexes, with their lines) and the first recorded_bytes
// of its code_size bytes of code.
struct MachineCode {
  uint64_t time_ns;
  uint64_t frame_base;  // method_base(jmethodID), 0 when none
  uint64_t code_start;
  uint32_t code_size;
  uint16_t machine;  // ELF e_machine of the code (EM_X86_64)
  uint16_t class_bytes;
  uint16_t source_bytes;
  uint16_t map_count;
  uint16_t recorded_bytes;
  uint16_t reserved;
};
// Code from `offset` (from code_start) up to the next entry's compiles
// bytecode index `bci` of the method, at source line `line` (0: unknown).
struct PcMapEntry {
  uint32_t offset;
  int32_t bci;
  int32_t line;
};
#pragma pack(pop)
static_assert(sizeof(JavaMethod) == 24 && sizeof(LineEntry) == 8 && sizeof(BytecodeTail) == 6 && sizeof(CompiledCode) == 32 &&
                  sizeof(JavaThread) == 16 && sizeof(JavaAllocation) == 34 && sizeof(JavaLiveObjects) == 12 &&
                  sizeof(JavaCensus) == 32 && sizeof(MachineCode) == 40 && sizeof(PcMapEntry) == 12,
              "JAVA_CLASSES record layout");
// A MachineCode record holds at most this many bytes (a data file's block
// holds a record of up to about 64 KiB): a method's code beyond what fits
// is not recorded, and its map holds at most kMaxPcMapEntries.
inline constexpr size_t kMaxMachineCodeRecord = 60 * 1024;
// A method record holds at most this many bytes too: its line table, then
// its bytecode, are cut to fit (a longer record would be dropped whole).
inline constexpr size_t kMaxMethodRecord = 60 * 1024;
inline constexpr size_t kMaxPcMapEntries = 1024;

}  // namespace lumen::java
