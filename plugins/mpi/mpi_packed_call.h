// The compact call record (kCompactCallRecord): one traced call and the
// point-to-point messages it started or completed, in one record, where
// the full layout (MpiCall, and an MpiMessage record per message) takes
// 80 + 40 bytes a message. What the two halves share: the layout, pack()
// for the collector and unpack() for every reader, so that a reader sees a
// compact call exactly as the full records it stands for.
//
// Layout:
//   MpiCompactCall                    20 bytes, without the thread (the
//                                     block's: the reader passes it in) nor
//                                     the rank (the process's, from its
//                                     process record; -1 when
//                                     kCompactBeforeInit)
//   int32_t result                    when kPackedHasResult (else MPI_SUCCESS, 0)
//   uint64_t communicator             when kPackedHasCommunicator: the messages'
//   MpiPackedMessage[messages]        16 bytes each, then its own uint64_t
//                                     communicator when kMessageOwnCommunicator
//
// A message's time is the call's exit time; the call's sends, receives and
// byte counts are the sums over its messages; its peer and tag those of its
// one message (-1 when none or several differ), as for the full layout.
// The collector writes the full layout for a call it cannot pack (a
// duration of 2^32 ns or more, a stack id of 2^32 - 1 or more, more than
// kMaxPackedMessages messages).
#pragma once

#include <cstdint>
#include <cstring>

#include "mpi_record.h"

namespace lumen::mpi {

// Records are 4-byte aligned in their blocks (and read with memcpy).
#pragma pack(push, 4)
struct MpiCompactCall {
  uint64_t enter_ns;
  uint32_t duration_ns;  // exit - enter
  uint32_t stack;        // the stack id, kPackedNoStack for LUMEN_NO_STACK
  uint16_t function;     // Function
  uint8_t flags;         // kPackedHas*, kCompactBeforeInit
  uint8_t messages;      // MpiPackedMessage entries that follow
};
#pragma pack(pop)
static_assert(sizeof(MpiCompactCall) == 20, "record layout");

struct MpiPackedMessage {
  uint64_t bytes_and_flags;  // bytes in bits 0..61, kMessageReceivedBit, kMessageOwnCommunicator
  int32_t peer;
  int32_t tag;
};
static_assert(sizeof(MpiPackedMessage) == 16, "record layout");

inline constexpr uint32_t kPackedNoStack = UINT32_MAX;
inline constexpr uint8_t kPackedHasResult = 1;
inline constexpr uint8_t kPackedHasCommunicator = 2;
inline constexpr uint8_t kCompactBeforeInit = 4;  // the call's rank is -1
inline constexpr uint64_t kMessageReceivedBit = uint64_t{1} << 63;
inline constexpr uint64_t kMessageOwnCommunicator = uint64_t{1} << 62;
inline constexpr uint64_t kMessageBytesMask = kMessageOwnCommunicator - 1;
// A window of osu_bw's (64 nonblocking messages) completes in one record;
// the count is a byte, a call's buffer of them on its thread's stack.
inline constexpr int kMaxPackedMessages = 64;
// The largest compact record: every optional part present.
inline constexpr size_t kMaxPackedBytes =
    sizeof(MpiCompactCall) + 4 + 8 + kMaxPackedMessages * (sizeof(MpiPackedMessage) + 8);

// A call as the full layout has it, with its messages.
struct UnpackedCall {
  MpiCall call;
  MpiMessage messages[kMaxPackedMessages];
  int message_count;
};

// Whether a call of this duration and stack, with `messages` messages, fits
// the compact layout.
inline bool packable(uint64_t duration_ns, uint64_t stack_id, int messages) {
  return duration_ns < UINT32_MAX && (stack_id < kPackedNoStack || stack_id == UINT64_MAX) &&
         messages <= kMaxPackedMessages;
}

// Writes the compact record of `call` and its `count` messages (all with
// the call's exit time) into `out` (kMaxPackedBytes); returns its size.
inline uint16_t pack(const MpiCall& call, const MpiMessage* messages, int count, unsigned char* out) {
  MpiCompactCall head;
  head.enter_ns = call.enter_ns;
  head.duration_ns = static_cast<uint32_t>(call.exit_ns - call.enter_ns);
  head.stack = call.stack_id == UINT64_MAX ? kPackedNoStack : static_cast<uint32_t>(call.stack_id);
  head.function = call.function;
  head.flags = (call.result != 0 ? kPackedHasResult : 0) | (count > 0 ? kPackedHasCommunicator : 0) |
               (call.rank < 0 ? kCompactBeforeInit : 0);
  head.messages = static_cast<uint8_t>(count);
  size_t at = sizeof head;
  std::memcpy(out, &head, sizeof head);
  if (call.result != 0) {
    std::memcpy(out + at, &call.result, sizeof call.result);
    at += sizeof call.result;
  }
  const uint64_t communicator = count > 0 ? messages[0].communicator : 0;
  if (count > 0) {
    std::memcpy(out + at, &communicator, sizeof communicator);
    at += sizeof communicator;
  }
  for (int i = 0; i < count; ++i) {
    const MpiMessage& m = messages[i];
    const bool own = m.communicator != communicator;
    MpiPackedMessage packed{(m.bytes & kMessageBytesMask) | (m.direction == kMessageReceived ? kMessageReceivedBit : 0) |
                                (own ? kMessageOwnCommunicator : 0),
                            m.peer, m.tag};
    std::memcpy(out + at, &packed, sizeof packed);
    at += sizeof packed;
    if (own) {
      std::memcpy(out + at, &m.communicator, sizeof m.communicator);
      at += sizeof m.communicator;
    }
  }
  return static_cast<uint16_t>(at);
}

// What a reader knows of a compact record's writer: its block's thread,
// and the rank its process record gives (-1 when it has none).
struct CallWriter {
  uint32_t thread_id;
  int32_t rank;
};

// Reads a compact record into the full layout, `writer` filling in what it
// leaves out. False with the reason in `problem` when the record is
// malformed.
inline bool unpack(const void* payload, uint16_t bytes, const CallWriter& writer, UnpackedCall& out,
                   const char** problem) {
  const auto* in = static_cast<const unsigned char*>(payload);
  MpiCall& call = out.call;
  call = MpiCall{};
  MpiCompactCall head;
  if (bytes < sizeof head) {
    *problem = "MPI compact call record shorter than its 20-byte head";
    return false;
  }
  std::memcpy(&head, in, sizeof head);
  size_t at = sizeof head;
  call.enter_ns = head.enter_ns;
  call.function = head.function;
  call.thread_id = writer.thread_id;
  call.rank = (head.flags & kCompactBeforeInit) ? -1 : writer.rank;
  const uint8_t flags = head.flags;
  const uint8_t messages = head.messages;
  auto take = [&](void* field, size_t size) {
    if (at + size > bytes) return false;
    std::memcpy(field, in + at, size);
    at += size;
    return true;
  };
  call.exit_ns = call.enter_ns + head.duration_ns;
  call.stack_id = head.stack == kPackedNoStack ? UINT64_MAX : head.stack;
  call.peer = -1;
  call.tag = -1;
  uint64_t communicator = 0;
  if (messages > kMaxPackedMessages) {
    *problem = "MPI compact call record with more messages than a compact call holds";
    return false;
  }
  if (((flags & kPackedHasResult) && !take(&call.result, sizeof call.result)) ||
      ((flags & kPackedHasCommunicator) && !take(&communicator, sizeof communicator))) {
    *problem = "MPI compact call record shorter than its flags say";
    return false;
  }
  out.message_count = messages;
  for (int i = 0; i < messages; ++i) {
    MpiPackedMessage packed;
    MpiMessage& m = out.messages[i];
    m = MpiMessage{};
    m.communicator = communicator;
    if (!take(&packed, sizeof packed) ||
        ((packed.bytes_and_flags & kMessageOwnCommunicator) && !take(&m.communicator, sizeof m.communicator))) {
      *problem = "MPI compact call record shorter than its messages";
      return false;
    }
    m.time_ns = call.exit_ns;
    m.bytes = packed.bytes_and_flags & kMessageBytesMask;
    m.rank = call.rank;
    m.peer = packed.peer;
    m.tag = packed.tag;
    m.direction = (packed.bytes_and_flags & kMessageReceivedBit) ? kMessageReceived : kMessageSent;
    m.function = call.function;
    const bool first = i == 0;
    if (m.direction == kMessageSent) {
      ++call.sends;
      call.bytes_sent += m.bytes;
    } else {
      ++call.receives;
      call.bytes_received += m.bytes;
    }
    call.peer = first ? m.peer : (call.peer == m.peer ? m.peer : -1);
    call.tag = first ? m.tag : (call.tag == m.tag ? m.tag : -1);
  }
  return true;
}

}  // namespace lumen::mpi
