// The pieces every event shares: header parse, CRC32, finishing an event.
#include <zlib.h>

#include <algorithm>

#include "binlog/bytes_internal.h"
#include "binlog/event.h"
#include "binlog/event_internal.h"

namespace sluice::binlog {

using internal::LoadLE;
using internal::StoreLE;
using internal::PutLE;

Result<EventHeader> ParseHeader(std::string_view event) {
  if (event.size() < kHeaderLen) return Status::Corruption("binlog event shorter than its header");
  const char* p = event.data();
  EventHeader h;
  h.timestamp = static_cast<uint32_t>(LoadLE(p, 4));
  h.type = static_cast<uint8_t>(p[4]);
  h.server_id = static_cast<uint32_t>(LoadLE(p + 5, 4));
  h.event_size = static_cast<uint32_t>(LoadLE(p + 9, 4));
  h.log_pos = static_cast<uint32_t>(LoadLE(p + 13, 4));
  h.flags = static_cast<uint16_t>(LoadLE(p + 17, 2));
  return h;
}

uint32_t Crc32(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; events are far below 4 GiB but stay general.
  while (!data.empty()) {
    uInt n = static_cast<uInt>(std::min<size_t>(data.size(), 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), n);
    data.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

bool VerifyChecksum(std::string_view event) {
  if (event.size() < kHeaderLen + kChecksumLen) return false;
  const uint32_t stored = static_cast<uint32_t>(LoadLE(event.data() + event.size() - 4, 4));
  if (static_cast<uint8_t>(event[4]) == kFormatDescriptionEvent && (event[17] & kLogEventBinlogInUse)) {
    std::string copy(event.substr(0, event.size() - 4));
    copy[17] = static_cast<char>(copy[17] & ~kLogEventBinlogInUse);
    return Crc32(copy) == stored;
  }
  return Crc32(event.substr(0, event.size() - 4)) == stored;
}

void PatchLogPos(char* event, uint32_t log_pos, Checksum checksum) {
  StoreLE(event + 13, log_pos, 4);
  if (checksum == Checksum::kCrc32) {
    const uint32_t size = static_cast<uint32_t>(LoadLE(event + 9, 4));
    StoreLE(event + size - 4, Crc32(std::string_view(event, size - 4)), 4);
  }
}

namespace internal {

size_t StartEventIn(std::string& out, size_t payload_bytes) {
  const size_t start = out.size();
  out.reserve(start + kHeaderLen + payload_bytes + kChecksumLen);
  out.resize(start + kHeaderLen);
  return start;
}

void FinishStartedEventIn(EventHeader h, std::string& out, size_t start, Checksum checksum) {
  const bool crc = checksum == Checksum::kCrc32;
  h.event_size = static_cast<uint32_t>(out.size() - start + (crc ? kChecksumLen : 0));
  char* p = out.data() + start;
  StoreLE(p, h.timestamp, 4);
  p[4] = static_cast<char>(h.type);
  StoreLE(p + 5, h.server_id, 4);
  StoreLE(p + 9, h.event_size, 4);
  StoreLE(p + 13, h.log_pos, 4);
  StoreLE(p + 17, h.flags, 2);
  if (crc) PutLE(out, Crc32(std::string_view(out).substr(start)), 4);
}

std::string FinishEvent(EventHeader h, std::string_view payload, Checksum checksum) {
  std::string event;
  const size_t start = StartEventIn(event, payload.size());
  event.append(payload);
  FinishStartedEventIn(h, event, start, checksum);
  return event;
}

Result<std::string_view> EventPayload(std::string_view event, Checksum checksum) {
  if (event.size() < kHeaderLen) return Status::Corruption("binlog event shorter than its header");
  const uint32_t size = static_cast<uint32_t>(LoadLE(event.data() + 9, 4));
  if (size != event.size()) return Status::Corruption("binlog event size does not match its header");
  size_t tail = checksum == Checksum::kCrc32 ? kChecksumLen : 0;
  if (event.size() < kHeaderLen + tail) return Status::Corruption("binlog event too short for its checksum");
  return event.substr(kHeaderLen, event.size() - kHeaderLen - tail);
}

}  // namespace internal
}  // namespace sluice::binlog
