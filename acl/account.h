// acl/account.h
//
// One MySQL account ('user'@'host') with its credentials and privileges, as
// an immutable snapshot. AccessControl publishes accounts as
// `AccountRef` (shared_ptr<const Account>): a session keeps the one it logged
// in with and checks privileges against it without locks or allocation;
// AccessControl::RefreshIfChanged() swaps in the newer snapshot after a
// GRANT/REVOKE/ALTER (see access_control.h).
//
// Thread-safety: an Account is never modified after it is published, so any
// thread may read it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "acl/privilege.h"

namespace sluice::acl {

inline constexpr std::string_view kCachingSha2Password = "caching_sha2_password";
inline constexpr std::string_view kNativePassword = "mysql_native_password";

// An account name as statements spell it: 'user'@'host'.
struct AccountName {
  std::string user;
  std::string host = "%";

  // 'u'@'h' as MySQL error messages quote it.
  std::string Quoted() const;
  // `u`@`h` as SHOW GRANTS / SHOW CREATE USER print it.
  std::string BackQuoted() const;
  friend bool operator==(const AccountName&, const AccountName&) = default;
};

// Privileges on one database (ON `db`.*). The name is exact: wildcard
// database patterns are not supported.
struct DbGrant {
  std::string db;
  PrivSet privs;
  bool grant_option = false;
};

// A dynamic privilege held at *.*, each with its own grant option.
struct DynamicGrant {
  std::string name;  // upper-case, e.g. "SYSTEM_VARIABLES_ADMIN"
  bool grant_option = false;
};

struct Account {
  std::string user;         // '' is the anonymous user
  std::string host;         // pattern, lower-case; '' admits every host
  std::string plugin;       // kCachingSha2Password or kNativePassword
  std::string auth_string;  // "$A$005$..." / "*HEX" / "" (no password). Secret: never log.
  bool locked = false;      // ACCOUNT LOCK: the server refuses the login (ER 3118)
  // The password must be changed before anything else (ER 1820); a client
  // that cannot handle that is refused at login (ER 1862).
  bool password_expired = false;

  PrivSet global_privs;                       // ON *.*
  bool global_grant_option = false;           // WITH GRANT OPTION at *.*
  std::vector<DynamicGrant> dynamic_privs;    // sorted by name
  std::vector<DbGrant> db_grants;             // sorted by db, none empty

  AccountName name() const { return {user, host}; }

  // Privilege checks; cheap (no allocation, binary search at most).
  // A global grant implies the same privilege on every database.
  bool HasGlobal(Priv p) const { return global_privs.Has(p); }
  bool HasDb(std::string_view db, Priv p) const;
  // What USE db / COM_INIT_DB needs (else ER 1044): any database-level
  // privilege or GRANT OPTION on `db`, or globally.
  bool HasAnyDbAccess(std::string_view db) const;
  // Exactly the dynamic privilege `name` (upper-case).
  bool HasDynamic(std::string_view name) const;
  // The dynamic privilege, or SUPER (MySQL accepts SUPER where most dynamic
  // *_ADMIN privileges are required, with a deprecation warning).
  bool HasDynamicOrSuper(std::string_view name) const {
    return HasDynamic(name) || HasGlobal(Priv::kSuper);
  }
  bool HasDynamicGrantOption(std::string_view name) const;
  // WITH GRANT OPTION at *.* or on `db`.
  bool HasGrantOptionOn(std::string_view db) const;

  // Lookups in the sorted vectors; nullptr when absent.
  const DbGrant* FindDbGrant(std::string_view db) const;
  const DynamicGrant* FindDynamic(std::string_view name) const;
};

using AccountRef = std::shared_ptr<const Account>;

}  // namespace sluice::acl
