// binlog/event_internal.h: shared by the event encoders/decoders. Private.
#pragma once

#include <string>
#include <string_view>

#include "binlog/event.h"

namespace sluice::binlog::internal {

// Header (event_size computed) + payload (post-header and body) + CRC32
// over all of it when `checksum` is kCrc32.
std::string FinishEvent(EventHeader h, std::string_view payload, Checksum checksum);
// The post-header and body of a whole event (header and, for kCrc32, the
// trailing CRC removed). Corruption when the sizes disagree.
Result<std::string_view> EventPayload(std::string_view event, Checksum checksum);

}  // namespace sluice::binlog::internal
