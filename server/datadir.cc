#include "server/datadir.h"

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "base/io/write_file_atomically.h"

namespace sluice::server {
namespace fs = std::filesystem;
namespace {

std::string GenerateUuid() {
  unsigned char b[16];
  RAND_bytes(b, sizeof(b));
  b[6] = (b[6] & 0x0f) | 0x40;  // version 4
  b[8] = (b[8] & 0x3f) | 0x80;  // RFC 4122 variant
  return fmt::format("{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-"
                     "{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                     b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
                     b[12], b[13], b[14], b[15]);
}

struct PkeyFree { void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); } };
struct X509Free { void operator()(X509* p) const { X509_free(p); } };
struct BioFree { void operator()(BIO* p) const { BIO_free(p); } };
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;

PkeyPtr NewRsaKey(int bits) {
  return PkeyPtr(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(bits)));
}

std::string KeyPem(EVP_PKEY* key) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string PublicKeyPem(EVP_PKEY* key) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PUBKEY(bio.get(), key);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string CertPem(X509* cert) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

// A certificate for `subject_cn`, signed by `issuer` (self-signed when null).
X509Ptr MakeCert(EVP_PKEY* key, const std::string& subject_cn, X509* issuer_cert,
                 EVP_PKEY* issuer_key, long serial, bool is_ca) {
  X509Ptr cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 10L * 365 * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(subject_cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), issuer_cert ? X509_get_subject_name(issuer_cert) : name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer_cert ? issuer_cert : cert.get(), cert.get(), nullptr, nullptr, 0);
  if (X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_basic_constraints,
                                                is_ca ? "critical,CA:TRUE" : "CA:FALSE")) {
    X509_add_ext(cert.get(), ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(cert.get(), issuer_key ? issuer_key : key, EVP_sha256());
  return cert;
}

}  // namespace

bool DatadirIsEmpty(const std::string& dir, const std::vector<std::string>& own_files) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return true;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    bool own = false;
    for (const std::string& f : own_files) {
      std::error_code eq_ec;
      if (!f.empty() && fs::equivalent(e.path(), f, eq_ec)) own = true;
    }
    if (!own) return false;
  }
  return !ec;
}

Status CreateDatadir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError(fmt::format("cannot create data directory '{}': {}", dir, ec.message()));
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec,
                  fs::perm_options::replace, ec);
  return Status::OK();
}

Result<std::string> ReadFile(io::FileSystem& fs, const std::string& path) {
  Result<std::optional<std::string>> text = io::ReadFileIfExists(fs, path);
  if (!text.ok()) return text.status();
  if (!text->has_value()) return Status::IOError(fmt::format("cannot open '{}': {}", path, std::strerror(ENOENT)));
  return std::move(**text);
}

Status WriteFileAtomic(io::FileSystem& fs, const std::string& path, const std::string& contents, int mode) {
  io::AtomicWriteOptions options;
  options.permissions = static_cast<uint32_t>(mode);
  return io::WriteFileAtomically(fs, path, contents, options);
}

Result<std::string> LoadOrCreateServerUuid(const std::string& dir, io::FileSystem* file_system) {
  io::FileSystem& files = file_system != nullptr ? *file_system : io::DefaultFileSystem();
  std::string path = (fs::path(dir) / "auto.cnf").string();
  Result<std::optional<std::string>> text = io::ReadFileIfExists(files, path);
  if (!text.ok()) return text.status();
  if (text->has_value()) {
    std::istringstream in(**text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("server-uuid=", 0) == 0) {
        std::string uuid = line.substr(12);
        while (!uuid.empty() && (uuid.back() == '\r' || uuid.back() == ' ')) uuid.pop_back();
        if (uuid.size() == 36) return uuid;
      }
    }
    return Status::Corruption("'" + path + "' has no valid server-uuid");
  }
  std::string uuid = GenerateUuid();
  SLUICE_RETURN_IF_ERROR(WriteFileAtomic(files, path, "[auto]\nserver-uuid=" + uuid + "\n", 0640));
  return uuid;
}

Status EnsureCertificates(const std::string& dir, bool* generated, io::FileSystem* file_system) {
  *generated = false;
  io::FileSystem& files = file_system != nullptr ? *file_system : io::DefaultFileSystem();
  auto p = [&](const char* f) { return (fs::path(dir) / f).string(); };
  auto exists = [&](const char* f) {
    Result<bool> e = files.Exists(p(f));
    return e.ok() && *e;
  };
  auto write = [&](const char* f, const std::string& contents, int mode) {
    return WriteFileAtomic(files, p(f), contents, mode);
  };

  if (!exists("private_key.pem") || !exists("public_key.pem")) {
    PkeyPtr rsa = NewRsaKey(2048);
    if (!rsa) return Status::IOError("cannot generate RSA key pair");
    SLUICE_RETURN_IF_ERROR(write("private_key.pem", KeyPem(rsa.get()), 0600));
    SLUICE_RETURN_IF_ERROR(write("public_key.pem", PublicKeyPem(rsa.get()), 0644));
    *generated = true;
  }
  if (exists("ca.pem") && exists("server-cert.pem") && exists("server-key.pem")) {
    return Status::OK();
  }
  PkeyPtr ca_key = NewRsaKey(2048);
  PkeyPtr server_key = NewRsaKey(2048);
  PkeyPtr client_key = NewRsaKey(2048);
  if (!ca_key || !server_key || !client_key) return Status::IOError("cannot generate TLS keys");
  const std::string suffix = std::string("sluice_") + "8.0.36" + "_Auto_Generated_";
  X509Ptr ca = MakeCert(ca_key.get(), suffix + "CA_Certificate", nullptr, nullptr, 1, true);
  X509Ptr server = MakeCert(server_key.get(), suffix + "Server_Certificate", ca.get(),
                            ca_key.get(), 2, false);
  X509Ptr client = MakeCert(client_key.get(), suffix + "Client_Certificate", ca.get(),
                            ca_key.get(), 3, false);
  SLUICE_RETURN_IF_ERROR(write("ca-key.pem", KeyPem(ca_key.get()), 0600));
  SLUICE_RETURN_IF_ERROR(write("ca.pem", CertPem(ca.get()), 0644));
  SLUICE_RETURN_IF_ERROR(write("server-key.pem", KeyPem(server_key.get()), 0600));
  SLUICE_RETURN_IF_ERROR(write("server-cert.pem", CertPem(server.get()), 0644));
  SLUICE_RETURN_IF_ERROR(write("client-key.pem", KeyPem(client_key.get()), 0600));
  SLUICE_RETURN_IF_ERROR(write("client-cert.pem", CertPem(client.get()), 0644));
  *generated = true;
  return Status::OK();
}

std::string RandomPassword(size_t length) {
  static const char kChars[] =
      "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789;:,.<>/?!%^&*()-_=+";
  std::string out;
  unsigned char b;
  while (out.size() < length) {
    RAND_bytes(&b, 1);
    if (b >= 256 - 256 % (sizeof(kChars) - 1)) continue;  // no modulo bias
    out.push_back(kChars[b % (sizeof(kChars) - 1)]);
  }
  return out;
}

}  // namespace sluice::server
