// protocol/packet.h
//
// Packet framing: the 4-byte header (3-byte length, 1-byte sequence id),
// payloads of 16 MiB - 1 or more split into chunks (ending with an empty
// chunk when the size is an exact multiple), and reassembly with the
// max_allowed_packet limit and sequence checks. Bytes only: the session
// owns the socket and feeds what it reads.
//
// Thread-safety: none; one owner at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"

namespace sluice::protocol {

inline constexpr uint32_t kMaxChunk = 0xFFFFFF;
inline constexpr size_t kHeaderSize = 4;

struct FrameHeader {
  uint32_t length = 0;  // payload bytes in this chunk, 0..kMaxChunk
  uint8_t seq = 0;
};

FrameHeader ParseFrameHeader(const uint8_t header[4]);

// Takes one single-frame packet off the front of `buffered` (bytes read
// from a socket, kept between calls): 1 its payload is in *payload, 0 not
// all of it has arrived, -1 its length is over `max` (the stream cannot
// be followed any further).
int TakePacket(std::string* buffered, std::string* payload, size_t max);

// Appends `payload` to *out as one or more frames, starting at *seq and
// advancing it once per frame written.
void AppendPacket(std::string* out, uint8_t* seq, std::string_view payload);
// The same for the payload `head` followed by `body`, without joining them
// first (a binlog event behind its packet's leading bytes).
void AppendPacket(std::string* out, uint8_t* seq, std::string_view head, std::string_view body);

// Reassembles one logical packet from its chunks.
//
//   PayloadAssembler a(max_allowed_packet);
//   a.Start(expected_seq);
//   loop: read 4 header bytes; Status s = a.OnHeader(h); read h.length bytes into
//         a.AppendChunk(bytes); until a.complete().
//
// OnHeader fails with 1156 (packets out of order) when the sequence id is
// not the expected one, and with 1153 (packet too large) when the total
// would exceed the limit; the caller then sends the error and closes.
class PayloadAssembler {
 public:
  explicit PayloadAssembler(size_t max_payload) : max_payload_(max_payload) {}

  void set_max_payload(size_t max_payload) { max_payload_ = max_payload; }
  // Begins a new logical packet whose first frame must carry `expected_seq`;
  // clears the previous payload.
  void Start(uint8_t expected_seq);
  // Checks one frame header. A zero-length header that ends the packet
  // completes it at once (AppendChunk with no bytes is then a no-op). After
  // an error the assembler must be restarted with Start().
  Status OnHeader(const FrameHeader& h);
  // The frame's payload bytes; may be split over several calls.
  // REQUIRES: no more bytes in total than the last header announced.
  void AppendChunk(std::string_view bytes);
  bool complete() const { return complete_; }
  // The sequence id the next packet (our reply) must carry.
  uint8_t next_seq() const { return expected_seq_; }
  std::string& payload() { return payload_; }
  std::string TakePayload() { return std::move(payload_); }

 private:
  size_t max_payload_;
  uint8_t expected_seq_ = 0;
  uint32_t pending_chunk_ = 0;  // bytes of the current frame still to come
  bool last_chunk_ = false;     // the current frame is shorter than kMaxChunk
  bool complete_ = false;
  std::string payload_;
};

}  // namespace sluice::protocol
