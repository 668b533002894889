// protocol/handshake.h
//
// The connection phase: the server greeting (HandshakeV10), the client's
// SSLRequest / HandshakeResponse41, AuthSwitchRequest and AuthMoreData.
// Bytes only (protocol.md §3).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace sluice::protocol {

inline constexpr size_t kScrambleLength = 20;

// 20 random bytes from a CSPRNG, each 1..127 and never '$' (MySQL's rule:
// part 2 is NUL-terminated and some clients cut at the first NUL).
std::string GenerateScramble();

struct HandshakeV10 {
  std::string server_version;   // "8.0.36-sluice"
  uint32_t connection_id = 0;
  std::string scramble;         // exactly kScrambleLength bytes
  uint32_t capabilities = 0;
  uint8_t collation = 255;      // utf8mb4_0900_ai_ci
  uint16_t status_flags = 0;
  std::string auth_plugin;      // "caching_sha2_password"
};

std::string EncodeHandshakeV10(const HandshakeV10& h);

struct HandshakeResponse41 {
  // ParseHandshakeResponse41: the effective capabilities (client's flags &
  // server_capabilities). ParseChangeUser: the `client_flags` passed in.
  uint32_t client_flags = 0;
  uint32_t max_packet_size = 0;  // 0 from ParseChangeUser
  uint8_t collation = 0;         // COM_CHANGE_USER's 2-byte id: low byte
  std::string user;
  std::string auth_response;
  std::string database;      // empty unless CLIENT_CONNECT_WITH_DB and given
  std::string client_plugin; // empty unless CLIENT_PLUGIN_AUTH
  std::vector<std::pair<std::string, std::string>> attributes;
};

// True when `payload` is an SSLRequest: exactly 32 bytes with CLIENT_SSL set.
bool IsSslRequest(std::string_view payload);

// Parses a HandshakeResponse41. `server_capabilities` masks the client's
// flags (the effective capabilities are the intersection). A packet without
// CLIENT_PROTOCOL_41 or truncated anywhere fails with 1043 (Bad handshake);
// never reads out of bounds. The trailing database, plugin and attributes
// fields may be absent when the packet ends before them; a field that is
// started must be complete, and an attributes length past the end fails.
Result<HandshakeResponse41> ParseHandshakeResponse41(std::string_view payload,
                                                     uint32_t server_capabilities);

// 0xFE, plugin name NUL, data (for both built-in plugins: scramble + 0x00).
std::string EncodeAuthSwitchRequest(std::string_view plugin, std::string_view scramble);

// 0x01 + data.
std::string EncodeAuthMoreData(std::string_view data);

// COM_CHANGE_USER payload (after the 0x11 byte): user, auth, database,
// collation, plugin, attributes. `client_flags`: the session's effective
// capabilities. user, auth and database are required; collation, plugin and
// attributes may be absent at the end. Fails with 1835 on truncation.
Result<HandshakeResponse41> ParseChangeUser(std::string_view payload_after_command,
                                            uint32_t client_flags);

}  // namespace sluice::protocol
