// binlog/event_internal.h: shared by the event encoders/decoders. Private.
#pragma once

#include <string>
#include <string_view>

#include "binlog/event.h"

namespace sluice::binlog::internal {

// Events are built in place, at the end of `out` (which may already hold
// other events): StartEventIn appends the header's room (zeroes), reserving
// `payload_bytes` and a CRC more, and returns where the event starts; the
// encoder appends the payload (post-header and body); FinishStartedEventIn
// writes the header (event_size computed) into the room and appends the
// CRC32 of the event when `checksum` is kCrc32.
size_t StartEventIn(std::string& out, size_t payload_bytes);
void FinishStartedEventIn(EventHeader h, std::string& out, size_t start, Checksum checksum);
// The same for a payload built elsewhere.
std::string FinishEvent(EventHeader h, std::string_view payload, Checksum checksum);
// The post-header and body of a whole event (header and, for kCrc32, the
// trailing CRC removed). Corruption when the sizes disagree.
Result<std::string_view> EventPayload(std::string_view event, Checksum checksum);

}  // namespace sluice::binlog::internal
