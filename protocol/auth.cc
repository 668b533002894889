// protocol/auth.cc
#include "protocol/auth.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#include "base/mysql_error.h"
#include "protocol/random_internal.h"

namespace sluice::protocol {
namespace {

constexpr size_t kSha1Size = 20;
constexpr size_t kSha256Size = 32;
constexpr size_t kSha2SaltSize = 20;
constexpr size_t kSha256CryptSize = 43;
// "$A$" + 3 hex digits + "$" + salt + hash.
constexpr size_t kSha2StoredSize = 3 + 3 + 1 + kSha2SaltSize + kSha256CryptSize;

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct MdDeleter {
  void operator()(EVP_MD* m) const { EVP_MD_free(m); }
};
struct PkeyCtxDeleter {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};
struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;
using MdPtr = std::unique_ptr<EVP_MD, MdDeleter>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxDeleter>;
using BioPtr = std::unique_ptr<BIO, BioDeleter>;

// Digest failures mean OpenSSL itself is broken (no default provider, out of
// memory); a hash function cannot report that, and returning a wrong hash
// could let a wrong password in, so stop.
[[noreturn]] void DigestFailed() {
  std::fputs("sluice: OpenSSL digest failed\n", stderr);
  std::abort();
}

// Hashes the concatenation of `parts` with `md`.
std::string Digest(const EVP_MD* md, std::initializer_list<std::string_view> parts) {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1) DigestFailed();
  for (std::string_view p : parts) {
    if (EVP_DigestUpdate(ctx.get(), p.data(), p.size()) != 1) DigestFailed();
  }
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), out, &len) != 1) DigestFailed();
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string Sha1(std::initializer_list<std::string_view> parts) {
  return Digest(EVP_sha1(), parts);
}
std::string Sha256(std::initializer_list<std::string_view> parts) {
  return Digest(EVP_sha256(), parts);
}

// a XOR b; REQUIRES a.size() == b.size().
std::string Xor(std::string_view a, std::string_view b) {
  std::string out(a.size(), '\0');
  for (size_t i = 0; i < a.size(); ++i) out[i] = static_cast<char>(a[i] ^ b[i]);
  return out;
}

bool ConstantTimeEqual(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// Clients send an empty password as nothing, or as a single 0x00.
bool IsEmptyReply(std::string_view reply) {
  return reply.empty() || (reply.size() == 1 && reply[0] == '\0');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Drains OpenSSL's per-thread error queue into a message, so that stale
// errors never leak into an unrelated later call on this thread.
Status OpenSslError(std::string_view what) {
  std::string msg(what);
  unsigned long e = ERR_get_error();
  if (e != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    msg += ": ";
    msg += buf;
  }
  ERR_clear_error();
  return MakeError(er::kUnknown, msg);
}

// The SHA-crypt base64 alphabet (not RFC 4648's).
constexpr char kCryptAlphabet[] =
    "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Appends `n` characters encoding the 24-bit value b2:b1:b0, least
// significant 6 bits first.
void AppendCryptBase64(std::string* out, uint8_t b2, uint8_t b1, uint8_t b0, int n) {
  uint32_t w = (static_cast<uint32_t>(b2) << 16) | (static_cast<uint32_t>(b1) << 8) | b0;
  for (int i = 0; i < n; ++i) {
    out->push_back(kCryptAlphabet[w & 0x3F]);
    w >>= 6;
  }
}

// `len` bytes made of `block` repeated (the last copy cut short).
std::string RepeatToLength(std::string_view block, size_t len) {
  std::string out;
  out.reserve(len);
  while (out.size() < len) out.append(block.substr(0, len - out.size()));
  return out;
}

// Incremental SHA-256 over one fetched algorithm object: the crypt loop runs
// thousands of digests, and fetching once avoids a provider lookup per round.
class Sha256Hasher {
 public:
  Sha256Hasher() : md_(EVP_MD_fetch(nullptr, "SHA256", nullptr)), ctx_(EVP_MD_CTX_new()) {
    if (!md_ || !ctx_) DigestFailed();
  }
  void Begin() {
    if (EVP_DigestInit_ex(ctx_.get(), md_.get(), nullptr) != 1) DigestFailed();
  }
  void Add(std::string_view data) {
    if (EVP_DigestUpdate(ctx_.get(), data.data(), data.size()) != 1) DigestFailed();
  }
  std::string Finish() {
    unsigned char out[kSha256Size];
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), out, &len) != 1 || len != kSha256Size) DigestFailed();
    return std::string(reinterpret_cast<const char*>(out), len);
  }

 private:
  MdPtr md_;
  MdCtxPtr ctx_;
};

}  // namespace

// ---- mysql_native_password ----

std::string NativePasswordStage2(std::string_view password) {
  return Sha1({Sha1({password})});
}

std::string NativePasswordHex(std::string_view password) {
  if (password.empty()) return "";
  static constexpr char kHex[] = "0123456789ABCDEF";
  const std::string stage2 = NativePasswordStage2(password);
  std::string out = "*";
  for (unsigned char c : stage2) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
  }
  return out;
}

Result<std::string> NativeHexToStage2(std::string_view hex) {
  if (hex.empty()) return std::string();  // the account has no password
  if (hex.size() != 1 + 2 * kSha1Size || hex[0] != '*') {
    return Status::InvalidArgument("malformed mysql_native_password hash");
  }
  std::string out(kSha1Size, '\0');
  for (size_t i = 0; i < kSha1Size; ++i) {
    const int hi = HexValue(hex[1 + 2 * i]);
    const int lo = HexValue(hex[2 + 2 * i]);
    if (hi < 0 || lo < 0) return Status::InvalidArgument("malformed mysql_native_password hash");
    out[i] = static_cast<char>((hi << 4) | lo);
  }
  return out;
}

std::string NativeScramble(std::string_view password, std::string_view scramble) {
  if (password.empty()) return "";
  const std::string stage1 = Sha1({password});
  const std::string stage2 = Sha1({stage1});
  return Xor(stage1, Sha1({scramble, stage2}));
}

bool VerifyNativeScramble(std::string_view scramble, std::string_view reply,
                          std::string_view stage2) {
  if (stage2.empty()) return IsEmptyReply(reply);
  if (stage2.size() != kSha1Size || reply.size() != kSha1Size) return false;
  const std::string candidate_stage1 = Xor(reply, Sha1({scramble, stage2}));
  return ConstantTimeEqual(Sha1({candidate_stage1}), stage2);
}

// ---- caching_sha2_password ----

std::string CachingSha2Digest(std::string_view password) { return Sha256({Sha256({password})}); }

std::string CachingSha2Scramble(std::string_view password, std::string_view scramble) {
  if (password.empty()) return "";
  const std::string h1 = Sha256({password});
  const std::string h2 = Sha256({h1});
  return Xor(h1, Sha256({h2, scramble}));
}

bool VerifyCachingSha2Scramble(std::string_view scramble, std::string_view token,
                               std::string_view cached_digest) {
  if (cached_digest.size() != kSha256Size || token.size() != kSha256Size) return false;
  const std::string candidate_h1 = Xor(token, Sha256({cached_digest, scramble}));
  return ConstantTimeEqual(Sha256({candidate_h1}), cached_digest);
}

std::string Sha256Crypt(std::string_view password, std::string_view salt, int rounds) {
  // Follows the numbered steps of Drepper's "Unix crypt using SHA-256 and
  // SHA-512" description. Unlike glibc, the salt is not cut to 16 bytes:
  // MySQL feeds its whole 20-byte salt.
  const size_t pw_len = password.size();
  Sha256Hasher h;

  // Digest B = H(password, salt, password).
  h.Begin();
  h.Add(password);
  h.Add(salt);
  h.Add(password);
  const std::string b = h.Finish();

  // Digest A = H(password, salt, B repeated to |password| bytes, then for
  // each bit of |password| from the lowest: B if set, password if clear).
  h.Begin();
  h.Add(password);
  h.Add(salt);
  h.Add(RepeatToLength(b, pw_len));
  for (size_t n = pw_len; n > 0; n >>= 1) {
    if (n & 1) {
      h.Add(b);
    } else {
      h.Add(password);
    }
  }
  std::string a = h.Finish();

  // P = H(password repeated |password| times), stretched to |password|.
  h.Begin();
  for (size_t i = 0; i < pw_len; ++i) h.Add(password);
  const std::string p = RepeatToLength(h.Finish(), pw_len);

  // S = H(salt repeated 16 + A[0] times), stretched to |salt|.
  h.Begin();
  const size_t salt_repeats = 16 + static_cast<uint8_t>(a[0]);
  for (size_t i = 0; i < salt_repeats; ++i) h.Add(salt);
  const std::string s = RepeatToLength(h.Finish(), salt.size());

  // The stretching loop.
  for (int i = 0; i < rounds; ++i) {
    h.Begin();
    if (i & 1) {
      h.Add(p);
    } else {
      h.Add(a);
    }
    if (i % 3 != 0) h.Add(s);
    if (i % 7 != 0) h.Add(p);
    if (i & 1) {
      h.Add(a);
    } else {
      h.Add(p);
    }
    a = h.Finish();
  }

  // Output: the digest bytes in the spec's permuted order, 4 characters per
  // 3 bytes, and the last two bytes as 3 characters.
  auto at = [&a](int i) { return static_cast<uint8_t>(a[i]); };
  std::string out;
  out.reserve(kSha256CryptSize);
  static constexpr int kOrder[10][3] = {
      {0, 10, 20}, {21, 1, 11}, {12, 22, 2}, {3, 13, 23}, {24, 4, 14},
      {15, 25, 5}, {6, 16, 26}, {27, 7, 17}, {18, 28, 8}, {9, 19, 29},
  };
  for (const auto& g : kOrder) AppendCryptBase64(&out, at(g[0]), at(g[1]), at(g[2]), 4);
  AppendCryptBase64(&out, 0, at(31), at(30), 3);
  return out;
}

std::string Sha2CryptHash(std::string_view password, std::string_view salt,
                          int rounds_thousands) {
  // MySQL writes the round count in hex (it allows up to 0xFFF thousand).
  char prefix[16];
  std::snprintf(prefix, sizeof(prefix), "$A$%03X$", static_cast<unsigned>(rounds_thousands));
  std::string out(prefix);
  out.append(salt);
  out.append(Sha256Crypt(password, salt, rounds_thousands * 1000));
  return out;
}

std::string MakeSha2Salt() {
  // Printable ASCII without '$' (the stored format's separator).
  return internal::RandomBytesMatching(kSha2SaltSize,
                                       [](uint8_t c) { return c > 0x20 && c < 0x7F && c != '$'; });
}

bool VerifySha2Crypt(std::string_view password, std::string_view stored) {
  if (stored.size() != kSha2StoredSize || stored.substr(0, 3) != "$A$" || stored[6] != '$') {
    return false;
  }
  int rounds_thousands = 0;
  for (size_t i = 3; i < 6; ++i) {
    const int d = HexValue(stored[i]);
    if (d < 0) return false;
    rounds_thousands = rounds_thousands * 16 + d;
  }
  if (rounds_thousands == 0) return false;
  const std::string_view salt = stored.substr(7, kSha2SaltSize);
  const std::string_view hash = stored.substr(7 + kSha2SaltSize);
  return ConstantTimeEqual(Sha256Crypt(password, salt, rounds_thousands * 1000), hash);
}

std::string XorWithScramble(std::string_view data, std::string_view scramble) {
  std::string out(data);
  if (scramble.empty()) return out;
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<char>(out[i] ^ scramble[i % scramble.size()]);
  }
  return out;
}

// ---- RsaKeyPair ----

namespace {

EVP_PKEY* AsPkey(const std::shared_ptr<void>& key) { return static_cast<EVP_PKEY*>(key.get()); }

Result<std::string> BioContents(BIO* bio) {
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  if (len <= 0 || data == nullptr) return OpenSslError("PEM encoding failed");
  return std::string(data, static_cast<size_t>(len));
}

}  // namespace

Result<RsaKeyPair> RsaKeyPair::Generate(int bits) {
  if (bits < 1024 || bits > 16384) return Status::InvalidArgument("RSA key size out of range");
  EVP_PKEY* pkey = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(bits));
  if (pkey == nullptr) return OpenSslError("RSA key generation failed");
  RsaKeyPair pair;
  Status s = pair.Init(pkey);
  if (!s.ok()) return s;
  return pair;
}

Result<RsaKeyPair> RsaKeyPair::FromPrivatePem(std::string_view pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return OpenSslError("BIO_new_mem_buf failed");
  EVP_PKEY* pkey = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr);
  if (pkey == nullptr) return OpenSslError("cannot read RSA private key PEM");
  if (EVP_PKEY_is_a(pkey, "RSA") != 1) {
    EVP_PKEY_free(pkey);
    return Status::InvalidArgument("private key is not an RSA key");
  }
  RsaKeyPair pair;
  Status s = pair.Init(pkey);
  if (!s.ok()) return s;
  return pair;
}

Status RsaKeyPair::Init(void* evp_pkey) {
  auto* pkey = static_cast<EVP_PKEY*>(evp_pkey);
  key_.reset(pkey, EVP_PKEY_free);
  BioPtr priv(BIO_new(BIO_s_mem()));
  BioPtr pub(BIO_new(BIO_s_mem()));
  if (!priv || !pub) return OpenSslError("BIO_new failed");
  if (PEM_write_bio_PrivateKey(priv.get(), pkey, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return OpenSslError("PEM_write_bio_PrivateKey failed");
  }
  if (PEM_write_bio_PUBKEY(pub.get(), pkey) != 1) {
    return OpenSslError("PEM_write_bio_PUBKEY failed");
  }
  Result<std::string> priv_pem = BioContents(priv.get());
  if (!priv_pem.ok()) return priv_pem.status();
  Result<std::string> pub_pem = BioContents(pub.get());
  if (!pub_pem.ok()) return pub_pem.status();
  private_pem_ = std::move(priv_pem).value();
  public_pem_ = std::move(pub_pem).value();
  return Status::OK();
}

Result<std::string> RsaKeyPair::DecryptOaep(std::string_view ciphertext) const {
  if (!key_) return Status::InvalidArgument("no RSA key");
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, AsPkey(key_), nullptr));
  if (!ctx || EVP_PKEY_decrypt_init(ctx.get()) != 1 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_OAEP_PADDING) != 1) {
    return OpenSslError("RSA decrypt setup failed");
  }
  const auto* in = reinterpret_cast<const unsigned char*>(ciphertext.data());
  size_t out_len = 0;
  if (EVP_PKEY_decrypt(ctx.get(), nullptr, &out_len, in, ciphertext.size()) != 1) {
    return OpenSslError("RSA decrypt failed");
  }
  std::string out(out_len, '\0');
  if (EVP_PKEY_decrypt(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &out_len, in,
                       ciphertext.size()) != 1) {
    return OpenSslError("RSA decrypt failed");
  }
  out.resize(out_len);
  return out;
}

Result<std::string> RsaKeyPair::EncryptOaep(std::string_view plaintext) const {
  if (!key_) return Status::InvalidArgument("no RSA key");
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, AsPkey(key_), nullptr));
  if (!ctx || EVP_PKEY_encrypt_init(ctx.get()) != 1 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_OAEP_PADDING) != 1) {
    return OpenSslError("RSA encrypt setup failed");
  }
  const auto* in = reinterpret_cast<const unsigned char*>(plaintext.data());
  size_t out_len = 0;
  if (EVP_PKEY_encrypt(ctx.get(), nullptr, &out_len, in, plaintext.size()) != 1) {
    return OpenSslError("RSA encrypt failed");
  }
  std::string out(out_len, '\0');
  if (EVP_PKEY_encrypt(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &out_len, in,
                       plaintext.size()) != 1) {
    return OpenSslError("RSA encrypt failed (plaintext too long for the key?)");
  }
  out.resize(out_len);
  return out;
}

}  // namespace sluice::protocol
