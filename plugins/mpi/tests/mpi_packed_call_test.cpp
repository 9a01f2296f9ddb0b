// The compact call record: what the collector packs, every reader unpacks
// into exactly the full records it stands for, with the thread and rank it
// knows of the writer; a record shorter than its head, flags or messages
// say is refused with the reason.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "../mpi_packed_call.h"

namespace lumen::mpi {
namespace {

MpiMessage message(uint16_t direction, uint64_t bytes, int32_t peer, int32_t tag, uint64_t communicator) {
  MpiMessage m{};
  m.time_ns = 7'000'123;  // the call's exit time
  m.bytes = bytes;
  m.communicator = communicator;
  m.rank = 3;
  m.peer = peer;
  m.tag = tag;
  m.direction = direction;
  m.function = static_cast<uint16_t>(Function::kWaitall);
  return m;
}

MpiCall call_with(const MpiMessage* messages, int count) {
  MpiCall call{};
  call.enter_ns = 5'000'000;
  call.exit_ns = 7'000'123;
  call.stack_id = 41;
  call.thread_id = 1234;
  call.rank = 3;
  call.function = static_cast<uint16_t>(Function::kWaitall);
  call.result = 0;
  call.peer = -1;
  call.tag = -1;
  for (int i = 0; i < count; ++i) {
    const MpiMessage& m = messages[i];
    (m.direction == kMessageSent ? call.sends : call.receives) += 1;
    (m.direction == kMessageSent ? call.bytes_sent : call.bytes_received) += m.bytes;
    call.peer = i == 0 ? m.peer : (call.peer == m.peer ? m.peer : -1);
    call.tag = i == 0 ? m.tag : (call.tag == m.tag ? m.tag : -1);
  }
  return call;
}

constexpr CallWriter kWriter{1234, 3};

void expect_same(const MpiCall& a, const MpiCall& b) {
  EXPECT_EQ(0, std::memcmp(&a, &b, sizeof a)) << "function " << a.function << " / " << b.function;
}

TEST(MpiPackedCall, ReadsBackTheFullRecordsOfACallWithItsMessages) {
  const MpiMessage messages[] = {message(kMessageReceived, 1999993, 2, 17, 0xaa00),
                                 message(kMessageReceived, 8, 2, 17, 0xaa00),
                                 message(kMessageSent, 0, 2, 17, 0xbb00)};  // a communicator of its own
  const MpiCall call = call_with(messages, 3);
  unsigned char packed[kMaxPackedBytes];
  const uint16_t bytes = pack(call, messages, 3, packed);
  EXPECT_EQ(bytes, sizeof(MpiCompactCall) + 8 + 3 * sizeof(MpiPackedMessage) + 8);
  UnpackedCall unpacked;
  const char* problem = nullptr;
  ASSERT_TRUE(unpack(packed, bytes, kWriter, unpacked, &problem)) << problem;
  expect_same(unpacked.call, call);
  ASSERT_EQ(unpacked.message_count, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(0, std::memcmp(&unpacked.messages[i], &messages[i], sizeof messages[i])) << i;
}

TEST(MpiPackedCall, KeepsAFailedResultAndNoStack) {
  MpiCall call = call_with(nullptr, 0);
  call.result = 13;
  call.stack_id = UINT64_MAX;
  call.function = static_cast<uint16_t>(Function::kBarrier);
  unsigned char packed[kMaxPackedBytes];
  const uint16_t bytes = pack(call, nullptr, 0, packed);
  EXPECT_EQ(bytes, sizeof(MpiCompactCall) + 4);
  UnpackedCall unpacked;
  const char* problem = nullptr;
  ASSERT_TRUE(unpack(packed, bytes, kWriter, unpacked, &problem)) << problem;
  expect_same(unpacked.call, call);
  EXPECT_EQ(unpacked.message_count, 0);
}

TEST(MpiPackedCall, ACallBeforeMpiInitKeepsRankMinusOne) {
  MpiCall call = call_with(nullptr, 0);
  call.rank = -1;
  call.function = static_cast<uint16_t>(Function::kInit);
  unsigned char packed[kMaxPackedBytes];
  const uint16_t bytes = pack(call, nullptr, 0, packed);
  EXPECT_EQ(bytes, sizeof(MpiCompactCall));
  UnpackedCall unpacked;
  const char* problem = nullptr;
  ASSERT_TRUE(unpack(packed, bytes, kWriter, unpacked, &problem)) << problem;
  expect_same(unpacked.call, call);
}

TEST(MpiPackedCall, WhatDoesNotFitIsLeftToTheFullLayout) {
  EXPECT_TRUE(packable(UINT32_MAX - 1, 7, kMaxPackedMessages));
  EXPECT_FALSE(packable(UINT32_MAX, 7, 0));            // a call of 4.29 s or more
  EXPECT_FALSE(packable(10, kPackedNoStack, 0));        // a stack id the packed field cannot hold
  EXPECT_TRUE(packable(10, UINT64_MAX, 0));             // no stack
  EXPECT_FALSE(packable(10, 7, kMaxPackedMessages + 1));
}

TEST(MpiPackedCall, ARecordShorterThanItSaysIsRefused) {
  const MpiMessage messages[] = {message(kMessageSent, 64, 1, 0, 0xaa00)};
  const MpiCall call = call_with(messages, 1);
  unsigned char compact[kMaxPackedBytes];
  const uint16_t bytes = pack(call, messages, 1, compact);
  constexpr uint16_t head = sizeof(MpiCompactCall);
  UnpackedCall unpacked;
  for (const uint16_t cut : {uint16_t(0), uint16_t(head - 1), uint16_t(head + 4), uint16_t(bytes - 1)}) {
    const char* problem = nullptr;
    EXPECT_FALSE(unpack(compact, cut, kWriter, unpacked, &problem)) << "cut to " << cut;
    ASSERT_NE(problem, nullptr);
    EXPECT_NE(std::string(problem).find("MPI compact call record"), std::string::npos) << problem;
  }
  compact[offsetof(MpiCompactCall, messages)] = kMaxPackedMessages + 1;
  const char* problem = nullptr;
  EXPECT_FALSE(unpack(compact, bytes, kWriter, unpacked, &problem));
  ASSERT_NE(problem, nullptr);
  EXPECT_NE(std::string(problem).find("more messages than a compact call holds"), std::string::npos) << problem;
}

}  // namespace
}  // namespace lumen::mpi
