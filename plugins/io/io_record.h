// I/O tracing's records, shared by the plugin's two halves: one declaration of
// each layout, checked by static_assert. Stored numbers never change.
#pragma once

#include <cstdint>

namespace lumen::io {

inline constexpr const char* kDataFile = "iotrace";

// Record kinds in "iotrace".
inline constexpr uint16_t kCallRecord = 1;   // IoCall
inline constexpr uint16_t kFileRecord = 2;   // IoFile, then the name's bytes
inline constexpr uint16_t kStartRecord = 3;  // IoStart, first in each process's file

// Which call was traced.
enum class Call : uint16_t {
  kRead = 1, kPread = 2, kReadv = 3, kPreadv = 4, kPreadv2 = 5,
  kWrite = 6, kPwrite = 7, kWritev = 8, kPwritev = 9, kPwritev2 = 10,
  kOpen = 11, kOpenat = 12, kCreat = 13, kClose = 14,
  kFsync = 15, kFdatasync = 16, kLseek = 17,
  kDup = 18, kDup2 = 19, kDup3 = 20, kFcntlDupfd = 21,
};

// The name a program calls each by (the leaf of its event's stack).
inline const char* call_name(uint16_t call) {
  static const char* const kNames[] = {"<unknown I/O call>", "read", "pread", "readv", "preadv", "preadv2",
                                       "write", "pwrite", "writev", "pwritev", "pwritev2", "open", "openat",
                                       "creat", "close", "fsync", "fdatasync", "lseek", "dup", "dup2", "dup3",
                                       "fcntl"};
  return call < sizeof kNames / sizeof kNames[0] ? kNames[call] : kNames[0];
}

// How a call counts: bytes read, bytes written, or neither ("other I/O").
enum class CallClass { kRead, kWrite, kOther };

inline CallClass call_class(uint16_t call) {
  if (call >= static_cast<uint16_t>(Call::kRead) && call <= static_cast<uint16_t>(Call::kPreadv2))
    return CallClass::kRead;
  if (call >= static_cast<uint16_t>(Call::kWrite) && call <= static_cast<uint16_t>(Call::kPwritev2))
    return CallClass::kWrite;
  return CallClass::kOther;
}

// One traced call. `result` is what the call returned (bytes for reads and
// writes, the new descriptor for open and dup, the offset for lseek, -1 on
// failure); `error` its errno when it failed, else 0. `fd` is the descriptor
// the call worked on (for open, creat and dup: the one it returned), and
// `file` the id of the file behind it (IoFile), 0 when none is known.
struct IoCall {
  uint64_t start_ns;  // CLOCK_MONOTONIC
  uint64_t duration_ns;
  int64_t result;
  uint64_t stack_id;
  uint32_t thread_id;
  int32_t fd;
  uint32_t file;
  uint16_t call;   // Call
  uint16_t error;  // errno, 0 on success
};
static_assert(sizeof(IoCall) == 48, "stored layout");

// A file id's name, written once per process before any call naming it.
// The name's bytes (no terminator) follow the struct.
struct IoFile {
  uint32_t file;
  uint32_t name_bytes;
};
static_assert(sizeof(IoFile) == 8, "stored layout");

// Written by start() before any call is traced, so that a reader meets it
// before the other records of the same process: file ids are per process.
struct IoStart {
  uint32_t pid;
  uint32_t reserved;
};
static_assert(sizeof(IoStart) == 8, "stored layout");

}  // namespace lumen::io
