// protocol/random_internal.cc
#include "protocol/random_internal.h"

#include <openssl/rand.h>

#include <cstdio>
#include <cstdlib>

namespace sluice::protocol::internal {

std::string RandomBytesMatching(size_t n, bool (*accept)(uint8_t)) {
  std::string out;
  out.reserve(n);
  uint8_t buf[64];
  while (out.size() < n) {
    if (RAND_bytes(buf, sizeof(buf)) != 1) {
      std::fputs("sluice: RAND_bytes failed; refusing to continue without a CSPRNG\n", stderr);
      std::abort();
    }
    // Rejection sampling (rather than remapping) keeps the accepted values
    // uniformly distributed.
    for (uint8_t b : buf) {
      const uint8_t c = b & 0x7F;
      if (!accept(c)) continue;
      out.push_back(static_cast<char>(c));
      if (out.size() == n) break;
    }
  }
  return out;
}

}  // namespace sluice::protocol::internal
