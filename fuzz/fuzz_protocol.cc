// fuzz/fuzz_protocol.cc
//
// libFuzzer target: what a client sends before it is logged in. The first
// byte picks the part; the rest is the bytes as they come off the socket:
//   0  packet framing: a stream of 4-byte headers and chunks fed to a
//      PayloadAssembler (limit from the next byte), packet after packet,
//      each chunk split in two as a short read would split it;
//   1  HandshakeResponse41 / SSLRequest (capabilities the server offers,
//      with and without CLIENT_SSL);
//   2  COM_CHANGE_USER's body (same decoder family, the session's flags);
//   3  an auth switch response / AuthMoreData reply as Session::Authenticate
//      checks it: mysql_native_password and caching_sha2_password fast auth
//      against fixed accounts, the RSA-OAEP full-auth reply, and a
//      cleartext password against a stored "$A$005$" hash.
// Anything else: the framing round trip (AppendPacket then reassembly gives
// the payload back).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "protocol/auth.h"
#include "protocol/constants.h"
#include "protocol/handshake.h"
#include "protocol/packet.h"

namespace {

using namespace sluice;
namespace p = sluice::protocol;

void Check(bool cond) {
  if (!cond) std::abort();
}

void Framing(std::string_view in) {
  if (in.empty()) return;
  // max_allowed_packet: small limits make the 1153 path reachable.
  const size_t limits[] = {0, 1, 16, 1024, 64 << 10, 1 << 20, 16 << 20, 1 << 30};
  p::PayloadAssembler a(limits[static_cast<uint8_t>(in[0]) % 8]);
  in.remove_prefix(1);
  uint8_t seq = 0;
  a.Start(seq);
  while (in.size() >= p::kHeaderSize) {
    uint8_t header[p::kHeaderSize];
    for (size_t i = 0; i < p::kHeaderSize; ++i) header[i] = static_cast<uint8_t>(in[i]);
    in.remove_prefix(p::kHeaderSize);
    p::FrameHeader h = p::ParseFrameHeader(header);
    if (!a.OnHeader(h).ok()) {
      // The session sends the error and closes; a new packet starts over.
      a.Start(++seq);
      continue;
    }
    if (h.length > in.size()) return;  // the client stopped sending
    std::string_view chunk = in.substr(0, h.length);
    in.remove_prefix(h.length);
    a.AppendChunk(chunk.substr(0, chunk.size() / 2));
    a.AppendChunk(chunk.substr(chunk.size() / 2));
    if (a.complete()) {
      (void)a.TakePayload();
      seq = a.next_seq();
      a.Start(seq);
    }
  }
}

void RoundTrip(std::string_view payload) {
  std::string wire;
  uint8_t seq = 3;
  p::AppendPacket(&wire, &seq, payload);
  p::PayloadAssembler a(payload.size());
  a.Start(3);
  std::string_view in = wire;
  while (!a.complete()) {
    Check(in.size() >= p::kHeaderSize);
    p::FrameHeader h = p::ParseFrameHeader(reinterpret_cast<const uint8_t*>(in.data()));
    in.remove_prefix(p::kHeaderSize);
    Check(a.OnHeader(h).ok());
    Check(h.length <= in.size());
    a.AppendChunk(in.substr(0, h.length));
    in.remove_prefix(h.length);
  }
  Check(in.empty());
  Check(a.payload() == payload);
  Check(a.next_seq() == seq);
}

void Handshake(std::string_view in) {
  const uint32_t caps[] = {p::kServerCapabilities, p::kServerCapabilities | p::CLIENT_SSL};
  for (uint32_t c : caps) {
    (void)p::IsSslRequest(in);
    auto r = p::ParseHandshakeResponse41(in, c);
    if (r.ok()) Check((r->client_flags & ~c) == 0);
  }
}

void ChangeUser(std::string_view in) {
  const uint32_t flags[] = {p::kServerCapabilities, p::CLIENT_PROTOCOL_41 | p::CLIENT_SECURE_CONNECTION, 0};
  for (uint32_t f : flags) (void)p::ParseChangeUser(in, f);
}

struct Accounts {
  std::string scramble = "abcdefghij0123456789";
  std::string native_stage2 = p::NativePasswordStage2("secret");
  std::string sha2_digest = p::CachingSha2Digest("secret");
  std::string sha2_stored = p::Sha2CryptHash("secret", "saltsaltsaltsaltsalt");
  p::RsaKeyPair rsa = p::RsaKeyPair::Generate(2048).value();
};

void AuthReply(std::string_view reply) {
  static Accounts* acc = new Accounts();
  (void)p::VerifyNativeScramble(acc->scramble, reply, acc->native_stage2);
  (void)p::VerifyNativeScramble(acc->scramble, reply, "");
  (void)p::VerifyCachingSha2Scramble(acc->scramble, reply, acc->sha2_digest);
  if (reply.size() == 256) {
    auto plain = acc->rsa.DecryptOaep(reply);
    if (plain.ok()) (void)p::XorWithScramble(plain.value(), acc->scramble);
  }
  // A cleartext password (over TLS): SHA-crypt costs 5000 rounds, so only
  // short ones, as a real password is.
  if (reply.size() <= 64) {
    std::string password(p::XorWithScramble(reply, acc->scramble));
    (void)p::VerifySha2Crypt(password, acc->sha2_stored);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0]) {
    case 0: Framing(in); break;
    case 1: Handshake(in); break;
    case 2: ChangeUser(in); break;
    case 3: AuthReply(in); break;
    default: RoundTrip(in); break;
  }
  return 0;
}
