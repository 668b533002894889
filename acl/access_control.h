// acl/access_control.h
//
// Users, their credentials and privileges (MySQL 8.0 semantics), persisted
// as one Protobuf file, <datadir>/mysql/acl.pb. Owned by the server; the
// parser turns CREATE USER / GRANT / ... into the plain structs below.
//
// Design: the account table is an immutable Snapshot (a vector of
// AccountRef in login-match order) behind a shared_ptr. Readers take the
// pointer under a short mutex and then work lock-free; a change builds a new
// table copy-on-write, writes it to disk, and only then publishes it and
// bumps version(). So a failed write leaves the in-memory state untouched.
//
// Sessions: at login FindAccountForLogin() gives an AccountRef; the session
// keeps it with a `seen_version` (0 at first) and calls RefreshIfChanged()
// before privilege checks: one atomic load when nothing changed. The checks
// themselves are Account methods (account.h): no lock, no allocation.
//
// Thread-safety: every public method may be called from any thread.
// Blocking: the statement methods (CreateUser ... RevokeAll, FlushPrivileges,
// Open, InitializeDatadir) write and fsync a file; call them from a SQL
// worker, never an io thread. Everything else is in-memory.
// Lock order: write_mu_ -> snapshot_mu_; write_mu_ -> cache_mu_;
// cache_mu_ -> snapshot_mu_. snapshot_mu_ is a leaf.
// Secrets: passwords, hashes and scrambles are never logged or put in a
// Status message.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "acl/account.h"
#include "acl/host_match.h"
#include "acl/privilege.h"
#include "base/io/file_system.h"
#include "base/mutex.h"
#include "base/status.h"

namespace sluice::acl {

// A note or warning a statement leaves for SHOW WARNINGS.
struct Warning {
  enum class Level : uint8_t { kNote, kWarning };
  Level level = Level::kNote;
  uint16_t code = 0;
  std::string message;
};

// One user of CREATE USER / ALTER USER:
//   'user'@'host' [IDENTIFIED [WITH plugin] [BY 'password' | AS 'hash']]
//   [ACCOUNT LOCK | ACCOUNT UNLOCK]
struct UserSpec {
  std::string user;
  std::string host = "%";
  // Empty: CREATE uses the default plugin; ALTER keeps the account's. When
  // ALTER names a plugin with neither password nor hash, the password is
  // cleared (MySQL's IDENTIFIED WITH plugin).
  std::string plugin;
  std::optional<std::string> password;  // IDENTIFIED BY (cleartext; hashed here)
  std::optional<std::string> hash;      // IDENTIFIED ... AS (stored form)
  std::optional<bool> account_locked;   // unset: CREATE -> unlocked, ALTER -> unchanged
};

// ON *.* or ON `db`.*
struct PrivLevel {
  static PrivLevel Global() { return {}; }
  static PrivLevel Db(std::string name) { return {false, std::move(name)}; }
  bool global = true;
  std::string db;  // when !global
};

// Result of caching_sha2_password's fast authentication.
enum class Sha2FastAuth : uint8_t {
  kOk,         // the token proves the password: send fast_auth_success
  kMismatch,   // wrong password: access denied
  kNotCached,  // no digest cached: ask for full authentication
};

class AccessControl {
 public:
  struct Options {
    // MySQL's default_authentication_plugin: used by CREATE USER without
    // IDENTIFIED WITH, and for root by InitializeDatadir().
    std::string default_authentication_plugin = std::string(kCachingSha2Password);
    // Dynamic privileges beyond BuiltinDynamicPrivileges() (upper-case).
    std::vector<std::string> extra_dynamic_privileges;
    // Test seam for persistence: writes the whole file so that a reader sees
    // the old or the new one. Empty: a tmp file, fsync, rename, fsync of the
    // directory.
    std::function<Status(const std::string& path, std::string_view bytes)> write_file;
    // Where acl.pb is read and written (io::WriteFileAtomically, mode 0600).
    // Null: io::DefaultFileSystem(), POSIX. Must outlive this object.
    io::FileSystem* fs = nullptr;
  };

  explicit AccessControl(Options options);
  AccessControl(const AccessControl&) = delete;
  AccessControl& operator=(const AccessControl&) = delete;
  ~AccessControl();

  // ---- Data directory ----

  // Loads <datadir>/mysql/acl.pb, creating <datadir>/mysql if needed. A
  // missing file gives an empty table (no one can log in: initialize first).
  // IOError / Corruption otherwise, and the current state is kept.
  Status Open(const std::string& datadir);

  // --initialize(-insecure): creates root@localhost with every static and
  // dynamic privilege WITH GRANT OPTION, with the default plugin and
  // `root_password` (none: empty password), writes acl.pb and opens it.
  // InvalidArgument if <datadir>/mysql/acl.pb already exists.
  Status InitializeDatadir(const std::string& datadir,
                           const std::optional<std::string>& root_password);

  // FLUSH PRIVILEGES: re-reads acl.pb and empties the fast-auth cache. A
  // missing or unreadable file is an error and keeps the current table.
  Status FlushPrivileges();

  // Adds a dynamic privilege name (e.g. from a plugin); later GRANT ALL at
  // *.* includes it. Idempotent. InvalidArgument for a name that is not
  // [A-Z0-9_]+ or that is a static privilege.
  Status RegisterDynamicPrivilege(std::string_view name);
  // Every registered dynamic privilege, sorted.
  std::vector<std::string> DynamicPrivileges() const;

  // ---- Login and sessions ----

  // The account a login of `user` from `client` belongs to: the first in
  // MySQL's order (most specific host, then named before anonymous) whose
  // host admits the client and whose user is `user` or ''. nullptr: none
  // (the server answers ER 1045). A locked account is returned; the caller
  // checks `locked` (ER 3118) after authentication.
  AccountRef FindAccountForLogin(std::string_view user, const ClientHost& client) const;

  // Exact lookup by account name (host compared case-insensitively).
  AccountRef Lookup(const AccountName& name) const;

  // Increases on every published change (statements, FLUSH PRIVILEGES).
  uint64_t version() const { return version_.load(std::memory_order_acquire); }

  // If the table changed since `*seen_version`, replaces `*account` with the
  // current snapshot of the same 'user'@'host' and updates `*seen_version`.
  // An account dropped meanwhile is replaced by a copy of it without any
  // privileges (the session keeps running with USAGE only). REQUIRES:
  // *account non-null. One atomic load when nothing changed.
  void RefreshIfChanged(AccountRef* account, uint64_t* seen_version) const;

  // Every account, in login-match order (for SELECT ... FROM mysql.user).
  std::vector<AccountRef> Accounts() const;

  // ---- Authentication (see protocol/auth.h for the wire side) ----

  // mysql_native_password: `reply` is the 20-byte scramble response. An
  // account without password accepts only an empty reply. False for an
  // account of another plugin.
  bool VerifyNativeReply(const Account& account, std::string_view scramble,
                         std::string_view reply) const;

  // caching_sha2_password fast path: `token` is the 32-byte client token.
  // An account without password: kOk for an empty token, else kMismatch.
  // kMismatch also for an account of another plugin.
  Sha2FastAuth VerifyCachingSha2Fast(const Account& account, std::string_view scramble,
                                     std::string_view token) const;

  // Full authentication with the cleartext password (caching_sha2 over TLS
  // or RSA; also mysql_clear_password-style checks), for either plugin.
  bool VerifyCleartext(const Account& account, std::string_view password) const;

  // After a successful full authentication: remembers SHA256(SHA256(pw)) for
  // the account so that its next logins can fast-authenticate. Ignored when
  // the account's credentials changed since `account` was looked up, so a
  // login racing with ALTER USER cannot cache an old password.
  void CacheSha2Digest(const Account& account, std::string_view password);

  // ---- Statements ----
  // Each is all-or-nothing: on error nothing changed. `warnings` may be null.

  // CREATE USER [IF NOT EXISTS]. Existing account: ER 1396 "Operation CREATE
  // USER failed for 'u'@'h'" (all failing accounts, comma-separated), or with
  // IF NOT EXISTS a note 3163 per account. Unknown plugin: ER 1524. A hash
  // that is not the plugin's stored form: ER 1827.
  Status CreateUser(const std::vector<UserSpec>& users, bool if_not_exists,
                    std::vector<Warning>* warnings);

  // ALTER USER [IF EXISTS]. Missing account: ER 1396 (or note 3162).
  // Clears the fast-auth cache entry of each altered account.
  Status AlterUser(const std::vector<UserSpec>& users, bool if_exists,
                   std::vector<Warning>* warnings);

  // DROP USER [IF EXISTS]. Missing account: ER 1396 (or note 3162).
  Status DropUser(const std::vector<AccountName>& users, bool if_exists,
                  std::vector<Warning>* warnings);

  // RENAME USER a TO b, c TO d, ... applied in order (a TO b, b TO c works).
  // Privileges follow the account. ER 1396 "Operation RENAME USER failed for
  // 'a'@'h'" when a source is missing or a target exists.
  Status RenameUser(const std::vector<std::pair<AccountName, AccountName>>& renames);

  // SET PASSWORD FOR 'u'@'h' = 'password' (hashed with the account's plugin;
  // empty clears it). Missing account: ER 1133.
  Status SetPassword(const AccountName& user, std::string_view password);

  // GRANT privileges ON level TO users [WITH GRANT OPTION].
  // `privileges`: MySQL names in any case ("SELECT", "SHOW DATABASES",
  // "ALL", "ALL PRIVILEGES", "USAGE", dynamic names). Errors:
  //   - a global-only static privilege at db level: ER 1221;
  //   - a dynamic privilege at db level: ER 3619;
  //   - an unknown name: ER 1149 (syntax error);
  //   - a missing account: ER 1410.
  Status Grant(const std::vector<std::string>& privileges, const PrivLevel& level,
               const std::vector<AccountName>& users, bool with_grant_option);

  // REVOKE privileges ON level FROM users. "GRANT OPTION" may be listed.
  // Same name errors as Grant(); a missing account, or no grant at all on
  // the database for a db-level revoke: ER 1141. Revoking a privilege that
  // is not held is not an error.
  Status Revoke(const std::vector<std::string>& privileges, const PrivLevel& level,
                const std::vector<AccountName>& users);

  // REVOKE ALL PRIVILEGES, GRANT OPTION FROM users. Missing account: ER 1269.
  Status RevokeAllAndGrantOption(const std::vector<AccountName>& users);

  // ---- Introspection ----

  // SHOW GRANTS FOR user, one line per row, as MySQL 8.0 prints them.
  // Missing account: ER 1141.
  Result<std::vector<std::string>> ShowGrants(const AccountName& user) const;

  // SHOW CREATE USER user. Missing account: ER 1396 "Operation SHOW CREATE
  // USER failed for ...".
  Result<std::string> ShowCreateUser(const AccountName& user) const;

 private:
  struct Snapshot;
  class Editor;

  std::shared_ptr<const Snapshot> Current() const;
  // Builds, persists and publishes the table in `editor`. On a write error
  // nothing is published. Clears the fast-auth entries of `touched`.
  Status CommitLocked(Editor& editor, const std::vector<AccountName>& touched) REQUIRES(write_mu_);
  Status FinishLocked(Editor& editor, const char* operation, const std::vector<AccountName>& failed,
                      const std::vector<AccountName>& touched, const std::vector<Warning>& notes,
                      std::vector<Warning>* warnings) REQUIRES(write_mu_);
  static void NoteOrFail(bool tolerate, Status note, const AccountName& name,
                         std::vector<Warning>* notes, std::vector<AccountName>* failed);
  // Loads path_ into a new snapshot and publishes it; a missing file is an
  // empty table when `missing_ok`.
  Status LoadLocked(bool missing_ok) REQUIRES(write_mu_);
  void Publish(std::shared_ptr<const Snapshot> snapshot);
  Status WriteFile(const std::string& path, std::string_view bytes);
  io::FileSystem& file_system() const { return options_.fs != nullptr ? *options_.fs : io::DefaultFileSystem(); }
  // Hashes or validates the credentials of `spec` for `plugin`.
  Result<std::string> MakeAuthString(const UserSpec& spec, std::string_view plugin) const;

  const Options options_;

  // Serializes changes (statements, Open, FLUSH PRIVILEGES). Held across the
  // file write.
  mutable Mutex write_mu_ ACQUIRED_BEFORE(snapshot_mu_, cache_mu_);
  std::string path_ GUARDED_BY(write_mu_);
  std::vector<std::string> dynamic_registry_ GUARDED_BY(write_mu_);  // sorted

  // Guards only the pointer swap/copy; a leaf lock.
  mutable Mutex snapshot_mu_;
  std::shared_ptr<const Snapshot> snapshot_ GUARDED_BY(snapshot_mu_);  // never null
  std::atomic<uint64_t> version_{1};

  // caching_sha2 fast-auth cache: user '\0' host -> SHA256(SHA256(pw)).
  mutable Mutex cache_mu_ ACQUIRED_BEFORE(snapshot_mu_);
  std::unordered_map<std::string, std::string> sha2_cache_ GUARDED_BY(cache_mu_);
};

}  // namespace sluice::acl
