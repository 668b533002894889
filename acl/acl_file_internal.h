// acl/acl_file_internal.h
//
// Module-private: the account table's on-disk form (acl.proto) and the
// atomic file write. Keeps protobuf out of every other header.
//
// Thread-safety: pure functions; the caller serializes writes to one path.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "acl/account.h"
#include "base/status.h"

namespace sluice::acl::internal {

inline constexpr uint32_t kAclFormatVersion = 1;

// Serializes the accounts (in the given order) to AclTable bytes.
std::string EncodeAccounts(const std::vector<AccountRef>& accounts);

// Parses AclTable bytes. Corruption on unparsable bytes, an unknown format
// version, an unknown plugin or privilege name, or a duplicate account.
// Grants come back sorted as Account requires.
Result<std::vector<Account>> DecodeAccounts(std::string_view bytes);

// Writes `bytes` to `path` so that a reader sees either the old file or the
// new one whole: <path>.tmp, fsync, rename over `path`, fsync the directory.
// IOError (with the OS reason) on failure; the old file is left in place.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

// The whole file; IOError when it cannot be read. `*missing` (if non-null)
// is set to whether the file does not exist (then the Status is an error).
Status ReadWholeFile(const std::string& path, std::string* out, bool* missing);

}  // namespace sluice::acl::internal
