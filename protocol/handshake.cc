// protocol/handshake.cc
#include "protocol/handshake.h"

#include "base/mysql_error.h"
#include "protocol/constants.h"
#include "protocol/random_internal.h"
#include "protocol/wire.h"

namespace sluice::protocol {
namespace {

// Length of the fixed part of HandshakeResponse41 (and of an SSLRequest):
// client_flag 4, max_packet_size 4, character_set 1, filler 23.
constexpr size_t kResponseFixedSize = 32;

// Reads the CLIENT_CONNECT_ATTRS block: a lenenc total length, then lenenc
// key / lenenc value pairs filling exactly that many bytes. False when the
// total runs past the packet or a pair runs past the total.
bool ReadAttributes(WireReader* r, std::vector<std::pair<std::string, std::string>>* attrs) {
  uint64_t total = 0;
  if (!r->ReadLenencInt(&total)) return false;
  if (total > r->remaining()) return false;
  std::string_view block;
  if (!r->ReadFixed(static_cast<size_t>(total), &block)) return false;
  WireReader pairs(block);
  while (pairs.remaining() > 0) {
    std::string_view key;
    std::string_view value;
    if (!pairs.ReadLenencString(&key) || !pairs.ReadLenencString(&value)) return false;
    attrs->emplace_back(std::string(key), std::string(value));
  }
  return true;
}

}  // namespace

std::string GenerateScramble() {
  return internal::RandomBytesMatching(kScrambleLength,
                                       [](uint8_t c) { return c != 0 && c != '$'; });
}

std::string EncodeHandshakeV10(const HandshakeV10& h) {
  // Clients index into the scramble blindly; always send exactly 20 bytes.
  std::string scramble = h.scramble;
  scramble.resize(kScrambleLength, '\0');
  const bool plugin_auth = (h.capabilities & CLIENT_PLUGIN_AUTH) != 0;

  WireWriter w;
  w.Int1(0x0A)
      .NulString(h.server_version)
      .Int4(h.connection_id)
      .Bytes(std::string_view(scramble).substr(0, 8))
      .Int1(0)
      .Int2(static_cast<uint16_t>(h.capabilities & 0xFFFF))
      .Int1(h.collation)
      .Int2(h.status_flags)
      .Int2(static_cast<uint16_t>(h.capabilities >> 16))
      .Int1(plugin_auth ? static_cast<uint8_t>(kScrambleLength + 1) : 0)
      .Zeros(10);
  if (h.capabilities & CLIENT_SECURE_CONNECTION) {
    // max(13, auth_plugin_data_len - 8) = 13: the last 12 scramble bytes + NUL.
    w.Bytes(std::string_view(scramble).substr(8)).Int1(0);
  }
  if (plugin_auth) w.NulString(h.auth_plugin);
  return w.Take();
}

bool IsSslRequest(std::string_view payload) {
  if (payload.size() != kResponseFixedSize) return false;
  WireReader r(payload);
  uint32_t flags = 0;
  return r.ReadInt4(&flags) && (flags & CLIENT_SSL) != 0;
}

Result<HandshakeResponse41> ParseHandshakeResponse41(std::string_view payload,
                                                     uint32_t server_capabilities) {
  const Status bad = MakeError(er::kHandshake);
  HandshakeResponse41 out;
  WireReader r(payload);
  uint32_t client_flags = 0;
  if (!r.ReadInt4(&client_flags)) return bad;
  if ((client_flags & CLIENT_PROTOCOL_41) == 0) return bad;
  const uint32_t caps = client_flags & server_capabilities;
  out.client_flags = caps;
  if (!r.ReadInt4(&out.max_packet_size) || !r.ReadInt1(&out.collation) || !r.Skip(23)) {
    return bad;
  }

  std::string_view user;
  if (!r.ReadNulString(&user)) return bad;
  out.user = std::string(user);

  std::string_view auth;
  if (caps & CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA) {
    if (!r.ReadLenencString(&auth)) return bad;
  } else if (caps & CLIENT_SECURE_CONNECTION) {
    uint8_t len = 0;
    if (!r.ReadInt1(&len) || !r.ReadFixed(len, &auth)) return bad;
  } else {
    if (!r.ReadNulString(&auth)) return bad;
  }
  out.auth_response = std::string(auth);

  // The optional trailing fields may be missing altogether when the packet
  // ends right before them (older and minimal clients do that), but a field
  // that is started must be complete.
  if ((caps & CLIENT_CONNECT_WITH_DB) && r.remaining() > 0) {
    std::string_view db;
    if (!r.ReadNulString(&db)) return bad;
    out.database = std::string(db);
  }
  if ((caps & CLIENT_PLUGIN_AUTH) && r.remaining() > 0) {
    std::string_view plugin;
    if (!r.ReadNulString(&plugin)) return bad;
    out.client_plugin = std::string(plugin);
  }
  if ((caps & CLIENT_CONNECT_ATTRS) && r.remaining() > 0) {
    if (!ReadAttributes(&r, &out.attributes)) return bad;
  }
  // Anything after (zstd level, if ever negotiated) is ignored.
  return out;
}

std::string EncodeAuthSwitchRequest(std::string_view plugin, std::string_view scramble) {
  WireWriter w;
  w.Int1(0xFE).NulString(plugin).Bytes(scramble).Int1(0);
  return w.Take();
}

std::string EncodeAuthMoreData(std::string_view data) {
  WireWriter w;
  w.Int1(0x01).Bytes(data);
  return w.Take();
}

Result<HandshakeResponse41> ParseChangeUser(std::string_view payload_after_command,
                                            uint32_t client_flags) {
  const Status bad = MakeError(er::kMalformedPacket);
  HandshakeResponse41 out;
  out.client_flags = client_flags;
  WireReader r(payload_after_command);

  std::string_view user;
  if (!r.ReadNulString(&user)) return bad;
  out.user = std::string(user);

  std::string_view auth;
  if (client_flags & CLIENT_SECURE_CONNECTION) {
    uint8_t len = 0;
    if (!r.ReadInt1(&len) || !r.ReadFixed(len, &auth)) return bad;
  } else {
    if (!r.ReadNulString(&auth)) return bad;
  }
  out.auth_response = std::string(auth);

  std::string_view db;
  if (!r.ReadNulString(&db)) return bad;
  out.database = std::string(db);

  if (r.remaining() > 0) {
    uint16_t charset = 0;
    if (!r.ReadInt2(&charset)) return bad;
    // HandshakeResponse41 carries one byte; ids above 255 keep the low byte.
    out.collation = static_cast<uint8_t>(charset & 0xFF);
  }
  if ((client_flags & CLIENT_PLUGIN_AUTH) && r.remaining() > 0) {
    std::string_view plugin;
    if (!r.ReadNulString(&plugin)) return bad;
    out.client_plugin = std::string(plugin);
  }
  if ((client_flags & CLIENT_CONNECT_ATTRS) && r.remaining() > 0) {
    if (!ReadAttributes(&r, &out.attributes)) return bad;
  }
  return out;
}

}  // namespace sluice::protocol
