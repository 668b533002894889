// server/datadir.h
//
// The data directory: created and initialised on first start, its
// server_uuid (auto.cnf, as mysqld keeps it), and the TLS and RSA material
// MySQL's auto_generate_certs and caching_sha2_password_auto_generate_rsa_keys
// create: ca.pem, ca-key.pem, server-cert.pem, server-key.pem,
// client-cert.pem, client-key.pem, private_key.pem, public_key.pem.
//
// Files go through an io::FileSystem, the server's (Server::fs_); a null one
// (tests of this file only) means io::DefaultFileSystem(), POSIX. Writes use
// io::WriteFileAtomically.
//
// Thread-safety: start-up only, before any session exists.
#pragma once

#include <string>
#include <vector>

#include "base/io/file_system.h"
#include "base/status.h"

namespace sluice::server {

// True when `dir` does not exist or has no entries but `own_files`: the
// files this server's own options put there before it looks (the error log
// of --log-error=<datadir>/x.err), which do not make it a data directory.
bool DatadirIsEmpty(const std::string& dir, const std::vector<std::string>& own_files = {});

// Creates `dir` (and parents) with mode 0750.
Status CreateDatadir(const std::string& dir);

// Reads server-uuid from <dir>/auto.cnf, creating the file with a new
// random UUID when it is missing.
Result<std::string> LoadOrCreateServerUuid(const std::string& dir, io::FileSystem* fs = nullptr);

// Generates any missing certificate, key and RSA pair files in `dir`.
// Keys are written with mode 0600. Returns true in *generated if it wrote any.
Status EnsureCertificates(const std::string& dir, bool* generated, io::FileSystem* fs = nullptr);

// Reads a whole file; IOError when it is missing or unreadable.
Result<std::string> ReadFile(io::FileSystem& fs, const std::string& path);

// Writes a file atomically (io::WriteFileAtomically: temp file, fsync,
// rename, fsync of the directory); on failure the old file is intact.
Status WriteFileAtomic(io::FileSystem& fs, const std::string& path, const std::string& contents,
                       int mode = 0640);

// A password of `length` random printable characters (for --initialize).
std::string RandomPassword(size_t length = 12);

}  // namespace sluice::server
