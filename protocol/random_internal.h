// protocol/random_internal.h
//
// Module-private: bytes from OpenSSL's CSPRNG for scrambles and salts.
// Thread-safety: safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace sluice::protocol::internal {

// `n` uniformly random 7-bit bytes (0..127) for which `accept` is true.
// REQUIRES: `accept` accepts at least one value. Aborts if the CSPRNG fails:
// a predictable scramble or salt is worse than no server.
std::string RandomBytesMatching(size_t n, bool (*accept)(uint8_t));

}  // namespace sluice::protocol::internal
