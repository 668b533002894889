// protocol/packet.cc
#include "protocol/packet.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "base/mysql_error.h"

namespace sluice::protocol {

int TakePacket(std::string* buffered, std::string* payload, size_t max) {
  if (buffered->size() < kHeaderSize) return 0;
  const FrameHeader h = ParseFrameHeader(reinterpret_cast<const uint8_t*>(buffered->data()));
  if (h.length > max) return -1;
  if (buffered->size() < kHeaderSize + h.length) return 0;
  payload->assign(*buffered, kHeaderSize, h.length);
  buffered->erase(0, kHeaderSize + h.length);
  return 1;
}

FrameHeader ParseFrameHeader(const uint8_t header[4]) {
  FrameHeader h;
  h.length = static_cast<uint32_t>(header[0]) | (static_cast<uint32_t>(header[1]) << 8) |
             (static_cast<uint32_t>(header[2]) << 16);
  h.seq = header[3];
  return h;
}

void AppendPacket(std::string* out, uint8_t* seq, std::string_view payload) { AppendPacket(out, seq, {}, payload); }

namespace {
constexpr size_t kSmallHead = 12;  // an event packet's OK byte and an observer's header
}  // namespace

void AppendPacket(std::string* out, uint8_t* seq, std::string_view head, std::string_view body) {
  const size_t total = head.size() + body.size();
  if (total < kMaxChunk && head.size() <= kSmallHead) {  // one frame: two appends, nothing zeroed first
    char start[kHeaderSize + kSmallHead] = {static_cast<char>(total & 0xFF), static_cast<char>((total >> 8) & 0xFF),
                                            static_cast<char>((total >> 16) & 0xFF), static_cast<char>(*seq)};
    if (!head.empty()) std::memcpy(start + kHeaderSize, head.data(), head.size());
    out->append(start, kHeaderSize + head.size());
    out->append(body);
    ++*seq;
    return;
  }
  size_t offset = 0;  // into head, then body
  // Always writes at least one frame; a frame of exactly kMaxChunk bytes
  // means "more follows", so a payload that is an exact multiple of
  // kMaxChunk ends with an empty frame.
  while (true) {
    const size_t n = std::min<size_t>(total - offset, kMaxChunk);
    const char frame[kHeaderSize] = {static_cast<char>(n & 0xFF), static_cast<char>((n >> 8) & 0xFF),
                                     static_cast<char>((n >> 16) & 0xFF), static_cast<char>(*seq)};
    out->append(frame, kHeaderSize);
    if (offset < head.size()) {
      const size_t from_head = std::min(n, head.size() - offset);
      out->append(head.substr(offset, from_head));
      out->append(body.substr(0, n - from_head));
    } else {
      out->append(body.substr(offset - head.size(), n));
    }
    offset += n;
    ++*seq;  // wraps at 255 by design
    if (n < kMaxChunk) break;
  }
}

void PayloadAssembler::Start(uint8_t expected_seq) {
  expected_seq_ = expected_seq;
  pending_chunk_ = 0;
  last_chunk_ = false;
  complete_ = false;
  payload_.clear();
}

Status PayloadAssembler::OnHeader(const FrameHeader& h) {
  if (complete_) {
    // A new packet without Start(): continue the sequence.
    Start(expected_seq_);
  }
  if (h.seq != expected_seq_) return MakeError(er::kNetPacketsOutOfOrder);
  if (h.length > kMaxChunk) return MakeError(er::kNetPacketTooLarge);  // not from the wire
  // Checked before any byte of the frame is buffered, so an oversized packet
  // never costs more than max_payload_ of memory.
  if (static_cast<uint64_t>(payload_.size()) + h.length > max_payload_) {
    return MakeError(er::kNetPacketTooLarge);
  }
  ++expected_seq_;
  pending_chunk_ = h.length;
  last_chunk_ = h.length < kMaxChunk;
  if (pending_chunk_ == 0 && last_chunk_) complete_ = true;
  return Status::OK();
}

void PayloadAssembler::AppendChunk(std::string_view bytes) {
  assert(bytes.size() <= pending_chunk_);
  const size_t n = std::min<size_t>(bytes.size(), pending_chunk_);
  payload_.append(bytes.substr(0, n));
  pending_chunk_ -= static_cast<uint32_t>(n);
  if (pending_chunk_ == 0 && last_chunk_) complete_ = true;
}

}  // namespace sluice::protocol
