#include "protocol/auth.h"

#include <crypt.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "protocol/handshake.h"

namespace sluice::protocol {
namespace {

// glibc's SHA-256-crypt, the reference implementation: returns the 43
// hash characters after the last '$'.
std::string GlibcSha256Crypt(const std::string& password, const std::string& salt, int rounds) {
  const std::string setting = "$5$rounds=" + std::to_string(rounds) + "$" + salt + "$";
  struct crypt_data data = {};
  const char* out = crypt_r(password.c_str(), setting.c_str(), &data);
  if (out == nullptr || out[0] == '*') return "";
  const std::string s(out);
  return s.substr(s.rfind('$') + 1);
}

TEST(AuthTest, NativeHexOfPasswordMatchesMySQL) {
  EXPECT_EQ(NativePasswordHex("password"), "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19");
  EXPECT_EQ(NativePasswordHex(""), "");
}

TEST(AuthTest, NativeHexDecodesToStage2) {
  auto stage2 = NativeHexToStage2("*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19");
  ASSERT_TRUE(stage2.ok());
  EXPECT_EQ(*stage2, NativePasswordStage2("password"));
  auto lower = NativeHexToStage2("*2470c0c06dee42fd1618bb99005adca2ec9d1e19");
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(*lower, *stage2);
  auto empty = NativeHexToStage2("");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");
}

TEST(AuthTest, NativeHexRejectsMalformedStrings) {
  EXPECT_FALSE(NativeHexToStage2("2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19").ok());
  EXPECT_FALSE(NativeHexToStage2("*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E1").ok());
  EXPECT_FALSE(NativeHexToStage2("*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E1G").ok());
  EXPECT_FALSE(NativeHexToStage2("*").ok());
}

TEST(AuthTest, NativeScrambleVerifiesAndWrongPasswordFails) {
  const std::string scramble = GenerateScramble();
  const std::string stage2 = NativePasswordStage2("s3cret");
  const std::string reply = NativeScramble("s3cret", scramble);
  ASSERT_EQ(reply.size(), 20u);
  EXPECT_TRUE(VerifyNativeScramble(scramble, reply, stage2));
  EXPECT_FALSE(VerifyNativeScramble(scramble, NativeScramble("s3creT", scramble), stage2));
  EXPECT_FALSE(VerifyNativeScramble(GenerateScramble(), reply, stage2));  // other scramble
  EXPECT_FALSE(VerifyNativeScramble(scramble, "", stage2));
  EXPECT_FALSE(VerifyNativeScramble(scramble, reply.substr(0, 19), stage2));
}

TEST(AuthTest, NativeEmptyPasswordAcceptsOnlyEmptyReply) {
  const std::string scramble = GenerateScramble();
  EXPECT_EQ(NativeScramble("", scramble), "");
  EXPECT_TRUE(VerifyNativeScramble(scramble, "", ""));
  EXPECT_TRUE(VerifyNativeScramble(scramble, std::string(1, '\0'), ""));
  EXPECT_FALSE(VerifyNativeScramble(scramble, NativeScramble("x", scramble), ""));
}

TEST(AuthTest, CachingSha2TokenVerifiesAndWrongPasswordFails) {
  const std::string scramble = GenerateScramble();
  const std::string cached = CachingSha2Digest("s3cret");
  ASSERT_EQ(cached.size(), 32u);
  const std::string token = CachingSha2Scramble("s3cret", scramble);
  ASSERT_EQ(token.size(), 32u);
  EXPECT_TRUE(VerifyCachingSha2Scramble(scramble, token, cached));
  EXPECT_FALSE(VerifyCachingSha2Scramble(scramble, CachingSha2Scramble("S3cret", scramble),
                                         cached));
  EXPECT_FALSE(VerifyCachingSha2Scramble(GenerateScramble(), token, cached));
  EXPECT_FALSE(VerifyCachingSha2Scramble(scramble, "", cached));
  EXPECT_EQ(CachingSha2Scramble("", scramble), "");
}

TEST(AuthTest, Sha256CryptMatchesDreppersPublishedVector) {
  // From the SHA-crypt specification, confirmed against glibc crypt().
  EXPECT_EQ(Sha256Crypt("Hello world!", "saltstring", 5000),
            "5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5");
  EXPECT_EQ(GlibcSha256Crypt("Hello world!", "saltstring", 5000),
            "5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5");
}

TEST(AuthTest, Sha256CryptMatchesGlibcForManyPasswordsAndSalts) {
  std::mt19937 rng(7);
  const std::string salt_chars =
      "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  // Password lengths cover 0, the 32-byte digest boundary and beyond (the
  // byte-repeat steps), salts 0..16 bytes (glibc's maximum).
  for (size_t pw_len : {0, 1, 5, 31, 32, 33, 64, 65, 100}) {
    for (size_t salt_len : {0, 1, 8, 15, 16}) {
      std::string pw;
      for (size_t i = 0; i < pw_len; ++i) pw.push_back(static_cast<char>(0x21 + rng() % 94));
      std::string salt;
      for (size_t i = 0; i < salt_len; ++i) salt.push_back(salt_chars[rng() % salt_chars.size()]);
      const std::string expected = GlibcSha256Crypt(pw, salt, 5000);
      ASSERT_EQ(expected.size(), 43u) << "glibc refused salt '" << salt << "'";
      EXPECT_EQ(Sha256Crypt(pw, salt, 5000), expected) << "pw_len " << pw_len << " salt " << salt;
    }
  }
  EXPECT_EQ(Sha256Crypt("pw", "abc", 1000), GlibcSha256Crypt("pw", "abc", 1000));
  EXPECT_EQ(Sha256Crypt("pw", "abc", 12345), GlibcSha256Crypt("pw", "abc", 12345));
}

TEST(AuthTest, Sha2SaltIsTwentyPrintableBytesWithoutDollar) {
  for (int i = 0; i < 100; ++i) {
    const std::string salt = MakeSha2Salt();
    ASSERT_EQ(salt.size(), 20u);
    for (char c : salt) {
      EXPECT_GT(c, 0x20);
      EXPECT_LT(c, 0x7F);
      EXPECT_NE(c, '$');
    }
  }
  EXPECT_NE(MakeSha2Salt(), MakeSha2Salt());
}

TEST(AuthTest, Sha2CryptHashHasMySQLStoredFormat) {
  const std::string salt = "abcdefghijklmnopqrst";
  const std::string stored = Sha2CryptHash("password", salt);
  ASSERT_EQ(stored.size(), 70u);
  EXPECT_EQ(stored.substr(0, 7), "$A$005$");
  EXPECT_EQ(stored.substr(7, 20), salt);
  EXPECT_EQ(stored.substr(27), Sha256Crypt("password", salt, 5000));
  // Round counts are written in hex, as MySQL does.
  EXPECT_EQ(Sha2CryptHash("password", salt, 10).substr(0, 7), "$A$00A$");
}

TEST(AuthTest, Sha2CryptRoundTripsAndWrongPasswordFails) {
  const std::string stored = Sha2CryptHash("s3cret", MakeSha2Salt());
  EXPECT_TRUE(VerifySha2Crypt("s3cret", stored));
  EXPECT_FALSE(VerifySha2Crypt("s3creT", stored));
  EXPECT_FALSE(VerifySha2Crypt("", stored));
  const std::string stored10 = Sha2CryptHash("s3cret", MakeSha2Salt(), 10);
  EXPECT_TRUE(VerifySha2Crypt("s3cret", stored10));
}

TEST(AuthTest, VerifySha2CryptAcceptsHashStoredByMySQL) {
  // HEX(authentication_string) of a MySQL 8.0 account created with
  // IDENTIFIED BY 'foobar' (its salt holds control characters).
  const std::string hex =
      "24412430303524031A69251C34295C4B35167C7F1E5A7B63091349503974624D34504B5A42"
      "4679354856336868686F52485A736E4A733368786E427575516C73446469496537";
  std::string stored;
  for (size_t i = 0; i < hex.size(); i += 2) {
    stored.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  ASSERT_EQ(stored.size(), 70u);
  EXPECT_TRUE(VerifySha2Crypt("foobar", stored));
  EXPECT_FALSE(VerifySha2Crypt("not_foobar", stored));
  EXPECT_EQ(Sha2CryptHash("foobar", stored.substr(7, 20)), stored);
}

TEST(AuthTest, VerifySha2CryptRejectsMalformedStoredStrings) {
  const std::string good = Sha2CryptHash("pw", MakeSha2Salt());
  EXPECT_FALSE(VerifySha2Crypt("pw", ""));
  EXPECT_FALSE(VerifySha2Crypt("pw", good.substr(0, 69)));
  EXPECT_FALSE(VerifySha2Crypt("pw", good + "x"));
  std::string bad = good;
  bad[1] = 'B';
  EXPECT_FALSE(VerifySha2Crypt("pw", bad));
  bad = good;
  bad[4] = 'g';
  EXPECT_FALSE(VerifySha2Crypt("pw", bad));
  bad = good;
  bad[6] = 'x';
  EXPECT_FALSE(VerifySha2Crypt("pw", bad));
  bad = good;
  bad.replace(3, 3, "000");
  EXPECT_FALSE(VerifySha2Crypt("pw", bad));
}

TEST(AuthTest, XorWithScrambleRepeatsScrambleAndIsItsOwnInverse) {
  const std::string scramble = "\x01\x02\x03";
  const std::string data = std::string("abcdefg") + '\0';
  const std::string x = XorWithScramble(data, scramble);
  ASSERT_EQ(x.size(), data.size());
  EXPECT_EQ(x[0], 'a' ^ 1);
  EXPECT_EQ(x[3], 'd' ^ 1);
  EXPECT_EQ(x[5], 'f' ^ 3);
  EXPECT_EQ(x[7], 0 ^ 2);
  EXPECT_EQ(XorWithScramble(x, scramble), data);
  EXPECT_EQ(XorWithScramble("abc", ""), "abc");
}

TEST(AuthTest, RsaGenerateEncryptDecryptRoundTrip) {
  auto pair = RsaKeyPair::Generate(2048);
  ASSERT_TRUE(pair.ok()) << pair.status().ToString();
  EXPECT_EQ(pair->public_pem().rfind("-----BEGIN PUBLIC KEY-----", 0), 0u);
  EXPECT_NE(pair->private_pem().find("PRIVATE KEY-----"), std::string::npos);

  // What a client does for caching_sha2 full auth over plain TCP.
  const std::string scramble = GenerateScramble();
  const std::string plain = XorWithScramble(std::string("s3cret") + '\0', scramble);
  auto cipher = pair->EncryptOaep(plain);
  ASSERT_TRUE(cipher.ok()) << cipher.status().ToString();
  EXPECT_EQ(cipher->size(), 256u);
  auto decrypted = pair->DecryptOaep(*cipher);
  ASSERT_TRUE(decrypted.ok()) << decrypted.status().ToString();
  EXPECT_EQ(XorWithScramble(*decrypted, scramble), std::string("s3cret") + '\0');
}

TEST(AuthTest, RsaKeyReloadsFromPrivatePem) {
  auto pair = RsaKeyPair::Generate(1024);
  ASSERT_TRUE(pair.ok());
  auto reloaded = RsaKeyPair::FromPrivatePem(pair->private_pem());
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().ToString();
  EXPECT_EQ(reloaded->public_pem(), pair->public_pem());
  auto cipher = pair->EncryptOaep("hello");
  ASSERT_TRUE(cipher.ok());
  auto plain = reloaded->DecryptOaep(*cipher);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, "hello");
}

TEST(AuthTest, RsaRejectsGarbage) {
  EXPECT_FALSE(RsaKeyPair::FromPrivatePem("not a pem").ok());
  auto pair = RsaKeyPair::Generate(1024);
  ASSERT_TRUE(pair.ok());
  EXPECT_FALSE(pair->DecryptOaep(std::string(128, 'x')).ok());
  EXPECT_FALSE(pair->DecryptOaep("").ok());
  EXPECT_FALSE(pair->EncryptOaep(std::string(200, 'x')).ok());  // too long for 1024 bits
  EXPECT_FALSE(RsaKeyPair::Generate(100).ok());
}

}  // namespace
}  // namespace sluice::protocol
