#include "protocol/packet.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice::protocol {
namespace {

FrameHeader HeaderAt(const std::string& wire, size_t pos) {
  return ParseFrameHeader(reinterpret_cast<const uint8_t*>(wire.data() + pos));
}

// Splits framed bytes into (header, chunk) pairs.
std::vector<std::pair<FrameHeader, std::string_view>> Frames(const std::string& wire) {
  std::vector<std::pair<FrameHeader, std::string_view>> out;
  size_t pos = 0;
  while (pos < wire.size()) {
    FrameHeader h = HeaderAt(wire, pos);
    out.emplace_back(h, std::string_view(wire).substr(pos + kHeaderSize, h.length));
    pos += kHeaderSize + h.length;
  }
  EXPECT_EQ(pos, wire.size());
  return out;
}

// Feeds framed bytes to an assembler as a session would.
Status Reassemble(PayloadAssembler* a, const std::string& wire, uint8_t first_seq) {
  a->Start(first_seq);
  for (const auto& [h, chunk] : Frames(wire)) {
    SLUICE_RETURN_IF_ERROR(a->OnHeader(h));
    a->AppendChunk(chunk);
  }
  return Status::OK();
}

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 7 + 3);
  return s;
}

TEST(PacketTest, HeaderParsesLengthAndSeq) {
  const uint8_t h[4] = {0x56, 0x34, 0x12, 0x09};
  FrameHeader f = ParseFrameHeader(h);
  EXPECT_EQ(f.length, 0x123456u);
  EXPECT_EQ(f.seq, 9);
}

TEST(PacketTest, TakePacketWaitsForTheWholeFrame) {
  std::string wire;
  uint8_t seq = 0;
  AppendPacket(&wire, &seq, "\xEF" "ack");
  AppendPacket(&wire, &seq, "two");
  std::string buffered, payload;
  buffered = wire.substr(0, 3);
  EXPECT_EQ(TakePacket(&buffered, &payload, 100), 0);  // header incomplete
  buffered = wire.substr(0, 6);
  EXPECT_EQ(TakePacket(&buffered, &payload, 100), 0);  // payload incomplete
  buffered = wire;
  ASSERT_EQ(TakePacket(&buffered, &payload, 100), 1);
  EXPECT_EQ(payload, "\xEF" "ack");
  ASSERT_EQ(TakePacket(&buffered, &payload, 100), 1);
  EXPECT_EQ(payload, "two");
  EXPECT_TRUE(buffered.empty());
  buffered = wire;
  EXPECT_EQ(TakePacket(&buffered, &payload, 3), -1);  // longer than max
}

TEST(PacketTest, SmallPayloadIsOneFrame) {
  std::string out;
  uint8_t seq = 3;
  AppendPacket(&out, &seq, "hello");
  EXPECT_EQ(out, std::string("\x05\x00\x00\x03hello", 9));
  EXPECT_EQ(seq, 4);
}

TEST(PacketTest, EmptyPayloadIsOneEmptyFrame) {
  std::string out;
  uint8_t seq = 0;
  AppendPacket(&out, &seq, "");
  EXPECT_EQ(out, std::string("\x00\x00\x00\x00", 4));
  EXPECT_EQ(seq, 1);
}

TEST(PacketTest, SeqWrapsAt256) {
  std::string out;
  uint8_t seq = 255;
  AppendPacket(&out, &seq, "a");
  AppendPacket(&out, &seq, "b");
  EXPECT_EQ(static_cast<uint8_t>(out[3]), 255);
  EXPECT_EQ(static_cast<uint8_t>(out[8]), 0);
  EXPECT_EQ(seq, 1);
}

TEST(PacketTest, PayloadOfExactlyMaxChunkEndsWithEmptyFrame) {
  const std::string payload = Pattern(kMaxChunk);
  std::string out;
  uint8_t seq = 7;
  AppendPacket(&out, &seq, payload);
  auto frames = Frames(out);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].first.length, kMaxChunk);
  EXPECT_EQ(frames[0].first.seq, 7);
  EXPECT_EQ(frames[1].first.length, 0u);
  EXPECT_EQ(frames[1].first.seq, 8);
  EXPECT_EQ(seq, 9);

  PayloadAssembler a(64u << 20);
  ASSERT_TRUE(Reassemble(&a, out, 7).ok());
  EXPECT_TRUE(a.complete());
  EXPECT_EQ(a.next_seq(), 9);
  EXPECT_EQ(a.TakePayload(), payload);
}

TEST(PacketTest, PayloadOfTwiceMaxChunkEndsWithEmptyFrame) {
  const std::string payload = Pattern(2 * size_t{kMaxChunk});
  std::string out;
  uint8_t seq = 254;  // also crosses the wrap
  AppendPacket(&out, &seq, payload);
  auto frames = Frames(out);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].first.length, kMaxChunk);
  EXPECT_EQ(frames[1].first.length, kMaxChunk);
  EXPECT_EQ(frames[2].first.length, 0u);
  EXPECT_EQ(frames[0].first.seq, 254);
  EXPECT_EQ(frames[1].first.seq, 255);
  EXPECT_EQ(frames[2].first.seq, 0);
  EXPECT_EQ(seq, 1);

  PayloadAssembler a(64u << 20);
  ASSERT_TRUE(Reassemble(&a, out, 254).ok());
  EXPECT_TRUE(a.complete());
  EXPECT_EQ(a.payload(), payload);
}

TEST(PacketTest, PayloadJustOverMaxChunkEndsWithShortFrame) {
  const std::string payload = Pattern(size_t{kMaxChunk} + 10);
  std::string out;
  uint8_t seq = 0;
  AppendPacket(&out, &seq, payload);
  auto frames = Frames(out);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1].first.length, 10u);

  PayloadAssembler a(64u << 20);
  ASSERT_TRUE(Reassemble(&a, out, 0).ok());
  EXPECT_TRUE(a.complete());
  EXPECT_EQ(a.payload(), payload);
}

TEST(PacketTest, HeadAndBodyFrameAsTheirJoinedPayload) {
  // Split points on both sides of each frame boundary, and a body that
  // starts or ends one.
  const std::string payload = Pattern(2 * kMaxChunk + 5);
  for (size_t total : {size_t{0}, size_t{7}, size_t{kMaxChunk} - 1, size_t{kMaxChunk}, size_t{kMaxChunk} + 1,
                       2 * size_t{kMaxChunk} + 5}) {
    for (size_t cut : {size_t{0}, size_t{1}, size_t{5}, size_t{kMaxChunk} - 1, size_t{kMaxChunk},
                       size_t{kMaxChunk} + 2, total}) {
      if (cut > total) continue;
      const std::string_view whole(payload.data(), total);
      std::string joined, split;
      uint8_t seq_joined = 250, seq_split = 250;
      AppendPacket(&joined, &seq_joined, whole);
      AppendPacket(&split, &seq_split, whole.substr(0, cut), whole.substr(cut));
      ASSERT_EQ(split.size(), joined.size()) << "total " << total << " cut " << cut;
      EXPECT_TRUE(split == joined) << "total " << total << " cut " << cut;
      EXPECT_EQ(seq_split, seq_joined);
    }
  }
}

TEST(PacketTest, AssemblerAcceptsChunkInPieces) {
  PayloadAssembler a(1024);
  a.Start(0);
  ASSERT_TRUE(a.OnHeader({5, 0}).ok());
  EXPECT_FALSE(a.complete());
  a.AppendChunk("he");
  EXPECT_FALSE(a.complete());
  a.AppendChunk("llo");
  EXPECT_TRUE(a.complete());
  EXPECT_EQ(a.payload(), "hello");
  EXPECT_EQ(a.next_seq(), 1);
}

TEST(PacketTest, AssemblerCompletesEmptyPacketOnHeader) {
  PayloadAssembler a(1024);
  a.Start(4);
  ASSERT_TRUE(a.OnHeader({0, 4}).ok());
  EXPECT_TRUE(a.complete());
  a.AppendChunk("");
  EXPECT_TRUE(a.complete());
  EXPECT_EQ(a.payload(), "");
}

TEST(PacketTest, AssemblerRejectsWrongSeqWith1156) {
  PayloadAssembler a(1024);
  a.Start(0);
  Status s = a.OnHeader({3, 1});
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.mysql_errno(), 1156);
  EXPECT_EQ(s.sqlstate(), "08S01");
}

TEST(PacketTest, AssemblerRejectsWrongSeqInContinuationFrame) {
  PayloadAssembler a(64u << 20);
  a.Start(0);
  ASSERT_TRUE(a.OnHeader({kMaxChunk, 0}).ok());
  a.AppendChunk(std::string(kMaxChunk, 'x'));
  EXPECT_FALSE(a.complete());
  EXPECT_EQ(a.OnHeader({0, 2}).mysql_errno(), 1156);
}

TEST(PacketTest, AssemblerRejectsOversizeWith1153) {
  PayloadAssembler a(100);
  a.Start(0);
  EXPECT_TRUE(a.OnHeader({100, 0}).ok());  // exactly the limit is fine
  a.AppendChunk(std::string(100, 'x'));
  a.Start(1);
  Status s = a.OnHeader({101, 1});
  EXPECT_EQ(s.mysql_errno(), 1153);
  EXPECT_EQ(s.sqlstate(), "08S01");
}

TEST(PacketTest, AssemblerLimitAppliesToReassembledTotal) {
  // Each frame alone is under the limit; together they are not.
  PayloadAssembler a(size_t{kMaxChunk} + 5);
  a.Start(0);
  ASSERT_TRUE(a.OnHeader({kMaxChunk, 0}).ok());
  a.AppendChunk(std::string(kMaxChunk, 'x'));
  EXPECT_EQ(a.OnHeader({6, 1}).mysql_errno(), 1153);

  a.Start(0);
  ASSERT_TRUE(a.OnHeader({kMaxChunk, 0}).ok());
  a.AppendChunk(std::string(kMaxChunk, 'x'));
  EXPECT_TRUE(a.OnHeader({5, 1}).ok());
}

TEST(PacketTest, AssemblerContinuesSequenceAcrossPackets) {
  PayloadAssembler a(1024);
  a.Start(0);
  ASSERT_TRUE(a.OnHeader({1, 0}).ok());
  a.AppendChunk("a");
  ASSERT_TRUE(a.complete());
  EXPECT_EQ(a.TakePayload(), "a");
  // Next packet without Start(): continues at seq 1.
  ASSERT_TRUE(a.OnHeader({1, 1}).ok());
  a.AppendChunk("b");
  ASSERT_TRUE(a.complete());
  EXPECT_EQ(a.payload(), "b");
}

}  // namespace
}  // namespace sluice::protocol
