// acl/acl_file_internal.h
//
// Module-private: the account table's on-disk form (acl.proto). Keeps
// protobuf out of every other header. The file itself is written with
// io::WriteFileAtomically (base/io).
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

}  // namespace sluice::acl::internal
