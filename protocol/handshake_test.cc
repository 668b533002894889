#include "protocol/handshake.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "protocol/constants.h"

namespace sluice::protocol {
namespace {

// Byte helpers written independently of WireWriter, so the tests do not
// share the code under test.
void Le(std::string* s, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void Nul(std::string* s, std::string_view v) {
  s->append(v);
  s->push_back('\0');
}

uint32_t U32At(const std::string& s, size_t pos) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(s[pos + i])) << (8 * i);
  return v;
}
uint16_t U16At(const std::string& s, size_t pos) {
  return static_cast<uint16_t>(static_cast<uint8_t>(s[pos]) |
                               (static_cast<uint8_t>(s[pos + 1]) << 8));
}

constexpr uint32_t kTypicalClientFlags =
    CLIENT_LONG_PASSWORD | CLIENT_LONG_FLAG | CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS |
    CLIENT_SECURE_CONNECTION | CLIENT_MULTI_STATEMENTS | CLIENT_MULTI_RESULTS |
    CLIENT_PS_MULTI_RESULTS | CLIENT_PLUGIN_AUTH | CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA |
    CLIENT_DEPRECATE_EOF;

const std::string kToken = "0123456789abcdefghijklmnopqrstuv";  // 32 bytes

// A HandshakeResponse41 as libmysqlclient would send it. `boundaries` gets
// the prefix lengths at which a packet is complete (the optional trailing
// fields start there).
std::string BuildResponse(uint32_t flags, bool with_db, bool with_plugin, bool with_attrs,
                          std::set<size_t>* boundaries = nullptr) {
  if (with_db) flags |= CLIENT_CONNECT_WITH_DB;
  if (with_attrs) flags |= CLIENT_CONNECT_ATTRS;
  std::string p;
  Le(&p, flags, 4);
  Le(&p, 16777216, 4);
  Le(&p, 255, 1);
  p.append(23, '\0');
  Nul(&p, "repl");
  // A lenenc length below 251 and a one-byte length are the same byte.
  Le(&p, kToken.size(), 1);
  p.append(kToken);
  if (boundaries) boundaries->insert(p.size());
  if (with_db) {
    Nul(&p, "shop");
    if (boundaries) boundaries->insert(p.size());
  }
  if (with_plugin) {
    Nul(&p, "caching_sha2_password");
    if (boundaries) boundaries->insert(p.size());
  }
  if (with_attrs) {
    std::string attrs;
    for (auto [k, v] : {std::pair{"_client_name", "libmysql"}, std::pair{"_os", "Linux"},
                        std::pair{"program_name", "mysql"}}) {
      Le(&attrs, std::string_view(k).size(), 1);
      attrs.append(k);
      Le(&attrs, std::string_view(v).size(), 1);
      attrs.append(v);
    }
    Le(&p, attrs.size(), 1);
    p.append(attrs);
    if (boundaries) boundaries->insert(p.size());
  }
  return p;
}

TEST(HandshakeTest, ScrambleIsTwentyBytesWithoutNulOrDollar) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const std::string s = GenerateScramble();
    ASSERT_EQ(s.size(), kScrambleLength);
    for (char c : s) {
      const auto u = static_cast<uint8_t>(c);
      EXPECT_GE(u, 1);
      EXPECT_LE(u, 127);
      EXPECT_NE(c, '$');
    }
    seen.insert(s);
  }
  EXPECT_EQ(seen.size(), 200u);
}

TEST(HandshakeTest, HandshakeV10HasExactByteLayout) {
  HandshakeV10 h;
  h.server_version = "8.0.36-sluice";
  h.connection_id = 0x01020304;
  h.scramble = "ABCDEFGHIJKLMNOPQRST";
  h.capabilities = kServerCapabilities;
  h.collation = 255;
  h.status_flags = SERVER_STATUS_AUTOCOMMIT;
  h.auth_plugin = "caching_sha2_password";
  const std::string b = EncodeHandshakeV10(h);

  size_t o = 0;
  EXPECT_EQ(static_cast<uint8_t>(b[o]), 0x0A);
  o += 1;
  EXPECT_EQ(b.substr(o, 14), std::string("8.0.36-sluice\0", 14));
  o += 14;  // 15
  EXPECT_EQ(U32At(b, o), 0x01020304u);
  o += 4;  // 19
  EXPECT_EQ(b.substr(o, 8), "ABCDEFGH");
  o += 8;  // 27
  EXPECT_EQ(b[o], '\0');
  o += 1;  // 28
  EXPECT_EQ(U16At(b, o), kServerCapabilities & 0xFFFF);
  o += 2;  // 30
  EXPECT_EQ(static_cast<uint8_t>(b[o]), 255);
  o += 1;  // 31
  EXPECT_EQ(U16At(b, o), SERVER_STATUS_AUTOCOMMIT);
  o += 2;  // 33
  EXPECT_EQ(U16At(b, o), kServerCapabilities >> 16);
  o += 2;  // 35
  EXPECT_EQ(static_cast<uint8_t>(b[o]), 21);
  o += 1;  // 36
  EXPECT_EQ(b.substr(o, 10), std::string(10, '\0'));
  o += 10;  // 46
  EXPECT_EQ(b.substr(o, 13), std::string("IJKLMNOPQRST\0", 13));
  o += 13;  // 59
  EXPECT_EQ(b.substr(o), std::string("caching_sha2_password\0", 22));
  EXPECT_EQ(b.size(), 59u + 22u);
}

TEST(HandshakeTest, SslRequestIsRecognisedOnlyAtThirtyTwoBytesWithSslFlag) {
  std::string p;
  Le(&p, kTypicalClientFlags | CLIENT_SSL, 4);
  Le(&p, 16777216, 4);
  Le(&p, 255, 1);
  p.append(23, '\0');
  EXPECT_TRUE(IsSslRequest(p));
  EXPECT_FALSE(IsSslRequest(p + "x"));
  EXPECT_FALSE(IsSslRequest(p.substr(0, 31)));
  std::string no_ssl = p;
  no_ssl[1] = static_cast<char>(no_ssl[1] & ~0x08);  // clear CLIENT_SSL (0x800)
  EXPECT_FALSE(IsSslRequest(no_ssl));
  EXPECT_FALSE(IsSslRequest(BuildResponse(kTypicalClientFlags, true, true, true)));
}

TEST(HandshakeTest, ParsesFullResponseWithDbPluginAndAttributes) {
  const std::string p = BuildResponse(kTypicalClientFlags, true, true, true);
  auto r = ParseHandshakeResponse41(p, kServerCapabilities);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->user, "repl");
  EXPECT_EQ(r->auth_response, kToken);
  EXPECT_EQ(r->database, "shop");
  EXPECT_EQ(r->client_plugin, "caching_sha2_password");
  EXPECT_EQ(r->max_packet_size, 16777216u);
  EXPECT_EQ(r->collation, 255);
  ASSERT_EQ(r->attributes.size(), 3u);
  EXPECT_EQ(r->attributes[0].first, "_client_name");
  EXPECT_EQ(r->attributes[0].second, "libmysql");
  EXPECT_EQ(r->attributes[2].first, "program_name");
  EXPECT_EQ(r->attributes[2].second, "mysql");
  EXPECT_TRUE(r->client_flags & CLIENT_CONNECT_WITH_DB);
  EXPECT_TRUE(r->client_flags & CLIENT_CONNECT_ATTRS);
}

TEST(HandshakeTest, ParsesMinimalResponseWithoutOptionalFields) {
  const uint32_t flags = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION;
  const std::string p = BuildResponse(flags, false, false, false);
  auto r = ParseHandshakeResponse41(p, kServerCapabilities);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->user, "repl");
  EXPECT_EQ(r->auth_response, kToken);
  EXPECT_EQ(r->database, "");
  EXPECT_EQ(r->client_plugin, "");
  EXPECT_TRUE(r->attributes.empty());
}

TEST(HandshakeTest, ParsesLenencAuthResponseLongerThan255Bytes) {
  std::string p;
  Le(&p, kTypicalClientFlags, 4);
  Le(&p, 0, 4);
  Le(&p, 45, 1);
  p.append(23, '\0');
  Nul(&p, "u");
  const std::string rsa(256, '\xA5');
  p.push_back(static_cast<char>(0xFC));
  Le(&p, rsa.size(), 2);
  p.append(rsa);
  Nul(&p, "caching_sha2_password");
  auto r = ParseHandshakeResponse41(p, kServerCapabilities);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->auth_response, rsa);
  EXPECT_EQ(r->client_plugin, "caching_sha2_password");
  EXPECT_EQ(r->collation, 45);
}

TEST(HandshakeTest, OneByteAuthLengthWithoutLenencCapability) {
  const uint32_t flags = kTypicalClientFlags & ~CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA;
  // 0xFC as a one-byte length would be a lenenc prefix otherwise; here it
  // is a length of 252.
  std::string p;
  Le(&p, flags, 4);
  Le(&p, 0, 4);
  Le(&p, 33, 1);
  p.append(23, '\0');
  Nul(&p, "u");
  p.push_back(static_cast<char>(252));
  p.append(252, 'z');
  auto r = ParseHandshakeResponse41(p, kServerCapabilities);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->auth_response, std::string(252, 'z'));
}

TEST(HandshakeTest, EffectiveFlagsAreTheIntersection) {
  const std::string p = BuildResponse(kTypicalClientFlags | CLIENT_SSL | CLIENT_LOCAL_FILES |
                                          CLIENT_QUERY_ATTRIBUTES,
                                      true, true, false);
  auto r = ParseHandshakeResponse41(p, kServerCapabilities);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->client_flags & (CLIENT_SSL | CLIENT_LOCAL_FILES | CLIENT_QUERY_ATTRIBUTES), 0u);
  EXPECT_EQ(r->client_flags, (kTypicalClientFlags | CLIENT_CONNECT_WITH_DB) & kServerCapabilities);
}

TEST(HandshakeTest, ServerWithoutConnectAttrsIgnoresAttributeBytes) {
  const std::string p = BuildResponse(kTypicalClientFlags, true, true, true);
  auto r = ParseHandshakeResponse41(p, kServerCapabilities & ~CLIENT_CONNECT_ATTRS);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->attributes.empty());
  EXPECT_EQ(r->client_plugin, "caching_sha2_password");
}

TEST(HandshakeTest, RejectsClientWithoutProtocol41) {
  const std::string p =
      BuildResponse(kTypicalClientFlags & ~CLIENT_PROTOCOL_41, true, true, false);
  auto r = ParseHandshakeResponse41(p, kServerCapabilities);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().mysql_errno(), 1043);
  EXPECT_EQ(r.status().sqlstate(), "08S01");
}

TEST(HandshakeTest, RejectsAttributeLengthBeyondPacket) {
  std::string p = BuildResponse(kTypicalClientFlags, true, true, false);
  // Turn on CONNECT_ATTRS and append a length that lies.
  const uint32_t flags = U32At(p, 0) | CLIENT_CONNECT_ATTRS;
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((flags >> (8 * i)) & 0xFF);
  p.push_back(static_cast<char>(0xFC));
  Le(&p, 1000, 2);
  p.append("\x03" "abc" "\x01" "x");
  auto r = ParseHandshakeResponse41(p, kServerCapabilities);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().mysql_errno(), 1043);
}

TEST(HandshakeTest, RejectsAttributePairOverrunningItsBlock) {
  std::string p = BuildResponse(kTypicalClientFlags, false, true, false);
  const uint32_t flags = U32At(p, 0) | CLIENT_CONNECT_ATTRS;
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((flags >> (8 * i)) & 0xFF);
  // Block of 4 bytes: key "abc" (4 bytes), then the value would be outside.
  p.append("\x04" "\x03" "abc" "\x01" "x");
  auto r = ParseHandshakeResponse41(p, kServerCapabilities);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().mysql_errno(), 1043);
}

TEST(HandshakeTest, EveryTruncatedPrefixFailsWith1043OrEndsAtAFieldBoundary) {
  for (uint32_t flags : {kTypicalClientFlags,
                         kTypicalClientFlags & ~CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA}) {
    std::set<size_t> boundaries;
    const std::string p = BuildResponse(flags, true, true, true, &boundaries);
    for (size_t n = 0; n < p.size(); ++n) {
      // A copy of exactly n bytes, so ASan sees any read past the prefix.
      const std::string prefix = p.substr(0, n);
      auto r = ParseHandshakeResponse41(prefix, kServerCapabilities);
      if (boundaries.count(n)) {
        EXPECT_TRUE(r.ok()) << "prefix " << n;
      } else {
        ASSERT_FALSE(r.ok()) << "prefix " << n;
        EXPECT_EQ(r.status().mysql_errno(), 1043) << "prefix " << n;
      }
    }
  }
}

TEST(HandshakeTest, RandomBytesNeverCrash) {
  std::mt19937 rng(12345);
  const std::string valid = BuildResponse(kTypicalClientFlags, true, true, true);
  for (int i = 0; i < 20000; ++i) {
    std::string p;
    if (i % 2 == 0) {
      const size_t len = rng() % 120;
      for (size_t j = 0; j < len; ++j) p.push_back(static_cast<char>(rng()));
      if (len >= 4 && i % 4 == 0) p[1] = static_cast<char>(p[1] | 0x02);  // PROTOCOL_41
    } else {
      p = valid;  // mutate a valid packet
      for (int k = 0; k < 3; ++k) p[rng() % p.size()] = static_cast<char>(rng());
      p.resize(rng() % (p.size() + 1));
    }
    auto r = ParseHandshakeResponse41(p, kServerCapabilities);
    if (!r.ok()) {
      EXPECT_EQ(r.status().mysql_errno(), 1043);
    }
    auto c = ParseChangeUser(p, kServerCapabilities);
    if (!c.ok()) {
      EXPECT_EQ(c.status().mysql_errno(), 1835);
    }
  }
}

TEST(HandshakeTest, AuthSwitchRequestLayout) {
  const std::string scramble = "ABCDEFGHIJKLMNOPQRST";
  EXPECT_EQ(EncodeAuthSwitchRequest("mysql_native_password", scramble),
            std::string("\xFEmysql_native_password\0ABCDEFGHIJKLMNOPQRST\0", 1 + 22 + 20 + 1));
}

TEST(HandshakeTest, AuthMoreDataLayout) {
  EXPECT_EQ(EncodeAuthMoreData("\x03"), "\x01\x03");
  EXPECT_EQ(EncodeAuthMoreData("-----BEGIN"), "\x01-----BEGIN");
}

std::string BuildChangeUser(bool with_tail, std::set<size_t>* boundaries = nullptr) {
  std::string p;
  Nul(&p, "alice");
  Le(&p, 20, 1);
  p.append("abcdefghijklmnopqrst");
  Nul(&p, "shop");
  if (boundaries) boundaries->insert(p.size());
  if (with_tail) {
    Le(&p, 255, 2);
    if (boundaries) boundaries->insert(p.size());
    Nul(&p, "mysql_native_password");
    if (boundaries) boundaries->insert(p.size());
    std::string attrs = std::string("\x03" "_os" "\x05" "Linux");
    Le(&p, attrs.size(), 1);
    p.append(attrs);
    if (boundaries) boundaries->insert(p.size());
  }
  return p;
}

TEST(HandshakeTest, ParsesChangeUserWithAllFields) {
  auto r = ParseChangeUser(BuildChangeUser(true), kTypicalClientFlags | CLIENT_CONNECT_ATTRS);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->user, "alice");
  EXPECT_EQ(r->auth_response, "abcdefghijklmnopqrst");
  EXPECT_EQ(r->database, "shop");
  EXPECT_EQ(r->collation, 255);
  EXPECT_EQ(r->client_plugin, "mysql_native_password");
  ASSERT_EQ(r->attributes.size(), 1u);
  EXPECT_EQ(r->attributes[0].second, "Linux");
}

TEST(HandshakeTest, ParsesChangeUserWithoutTrailingFields) {
  auto r = ParseChangeUser(BuildChangeUser(false), kTypicalClientFlags);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->database, "shop");
  EXPECT_EQ(r->client_plugin, "");
}

TEST(HandshakeTest, ChangeUserTruncatedPrefixFailsWith1835OrEndsAtAFieldBoundary) {
  std::set<size_t> boundaries;
  const std::string p = BuildChangeUser(true, &boundaries);
  for (size_t n = 0; n < p.size(); ++n) {
    const std::string prefix = p.substr(0, n);
    auto r = ParseChangeUser(prefix, kTypicalClientFlags | CLIENT_CONNECT_ATTRS);
    if (boundaries.count(n)) {
      EXPECT_TRUE(r.ok()) << "prefix " << n;
    } else {
      ASSERT_FALSE(r.ok()) << "prefix " << n;
      EXPECT_EQ(r.status().mysql_errno(), 1835) << "prefix " << n;
    }
  }
}

}  // namespace
}  // namespace sluice::protocol
