// protocol/auth.h
//
// Password hashing and verification for the two built-in plugins
// (protocol.md §3.4), plus the RSA key pair that caching_sha2_password uses
// for full authentication without TLS. Pure functions over bytes; OpenSSL
// underneath. Thread-safety: all functions are safe from any thread;
// RsaKeyPair is immutable after construction.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace sluice::protocol {

// ---- mysql_native_password ----

// SHA1(SHA1(password)): 20 raw bytes (what the server stores).
std::string NativePasswordStage2(std::string_view password);
// "*" + 40 upper-case hex digits of the stage-2 hash ("" for an empty password).
std::string NativePasswordHex(std::string_view password);
// Decodes "*HEX" (either case) back to 20 raw bytes; "" (no password)
// decodes to "". Fails with InvalidArgument on a malformed string.
Result<std::string> NativeHexToStage2(std::string_view hex);
// Client side: SHA1(pw) XOR SHA1(scramble || SHA1(SHA1(pw))). Empty pw -> "".
std::string NativeScramble(std::string_view password, std::string_view scramble);
// Server side: true iff `reply` proves knowledge of the password behind `stage2`.
// An empty `stage2` (account without password) accepts only an empty reply
// (nothing, or a single 0x00 as some clients send).
bool VerifyNativeScramble(std::string_view scramble, std::string_view reply,
                          std::string_view stage2);

// ---- caching_sha2_password ----

// SHA256(SHA256(password)): 32 raw bytes (the in-memory fast-auth cache entry).
std::string CachingSha2Digest(std::string_view password);
// Client side fast-auth token: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) || scramble).
// Empty pw -> "" (clients send nothing for an empty password).
std::string CachingSha2Scramble(std::string_view password, std::string_view scramble);
// Server side fast auth against a cached digest (32 bytes; token 32 bytes).
// Accounts with an empty password are the caller's case: an empty token
// never verifies here.
bool VerifyCachingSha2Scramble(std::string_view scramble, std::string_view token,
                               std::string_view cached_digest);

// The stored form MySQL uses: "$A$" + rounds/1000 as 3 upper-case HEX digits
// (as MySQL writes it; "005" for the default) + "$" + 20-byte salt +
// 43-character SHA-256-crypt hash (70 bytes). `salt` must be 20 bytes without
// '$' or NUL (use MakeSha2Salt); rounds_thousands is 5 (MySQL's default,
// 5000 rounds) .. 0xFFF.
std::string Sha2CryptHash(std::string_view password, std::string_view salt,
                          int rounds_thousands = 5);
// 20 random printable ASCII bytes (0x21..0x7E), never '$'.
std::string MakeSha2Salt();
// Verifies a cleartext password against a stored "$A$005$..." string (the
// round count read as hex, as MySQL does); constant-time comparison. A
// malformed stored string, including "", verifies as false.
bool VerifySha2Crypt(std::string_view password, std::string_view stored);

// The SHA-crypt (Drepper) core used by Sha2CryptHash: the 43-character hash
// for `salt` (any length) and `rounds`. Exposed for tests against glibc's
// "$5$rounds=N$salt$" crypt(). Unlike glibc, the salt is not cut to 16
// bytes and `rounds` is not clamped. REQUIRES: rounds >= 1.
std::string Sha256Crypt(std::string_view password, std::string_view salt, int rounds);

// XOR `data` with `scramble` repeated (the step before and after RSA). An
// empty scramble returns `data` unchanged.
std::string XorWithScramble(std::string_view data, std::string_view scramble);

class RsaKeyPair {
 public:
  // Errors: InvalidArgument for bits outside 1024..16384, 1105 with
  // OpenSSL's reason otherwise. Takes a noticeable time (tens of ms to
  // seconds): do it at startup, not on an io thread.
  static Result<RsaKeyPair> Generate(int bits = 2048);
  // Any PEM private key form OpenSSL reads (PKCS#8 or PKCS#1); must be RSA.
  static Result<RsaKeyPair> FromPrivatePem(std::string_view pem);

  // private_pem(): PKCS#8 "BEGIN PRIVATE KEY"; public_pem(): SubjectPublicKeyInfo
  // "BEGIN PUBLIC KEY" (what the server sends in AuthMoreData).

  const std::string& private_pem() const { return private_pem_; }
  const std::string& public_pem() const { return public_pem_; }
  // RSA-OAEP (SHA-1 MGF1, as libmysqlclient uses) decryption. Fails (1105)
  // on a ciphertext that does not decrypt under this key.
  Result<std::string> DecryptOaep(std::string_view ciphertext) const;
  // For tests and client code: encrypt with the public key.
  Result<std::string> EncryptOaep(std::string_view plaintext) const;

 private:
  // Takes ownership of `evp_pkey` (an EVP_PKEY*) and fills the PEM forms.
  Status Init(void* evp_pkey);

  std::shared_ptr<void> key_;  // EVP_PKEY, freed with EVP_PKEY_free
  std::string private_pem_;
  std::string public_pem_;
};

}  // namespace sluice::protocol
