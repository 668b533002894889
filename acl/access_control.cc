#include "acl/access_control.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "acl/acl_file_internal.h"
#include "base/io/write_file_atomically.h"
#include "base/mysql_error.h"
#include "base/utf8.h"
#include "protocol/auth.h"

namespace sluice::acl {
namespace {



constexpr size_t kMaxUserChars = 32;   // MySQL's USERNAME_CHAR_LENGTH
constexpr size_t kMaxHostChars = 255;  // MySQL's HOSTNAME_LENGTH
constexpr size_t kMaxDbNameChars = 64;  // NAME_CHAR_LEN

AccountName Normalized(const AccountName& name) { return {name.user, LowerAscii(name.host)}; }

std::string CacheKey(std::string_view user, std::string_view host) {
  std::string key;
  key.reserve(user.size() + host.size() + 1);
  key.append(user);
  key.push_back('\0');
  key.append(host);
  return key;
}

// Before an account name reaches acl.pb: 1300 for malformed utf8mb4, then
// MySQL's length limits (1470).
Status CheckAccountName(const AccountName& name) {
  SLUICE_RETURN_IF_ERROR(base::CheckUtf8(name.user));
  SLUICE_RETURN_IF_ERROR(base::CheckUtf8(name.host));
  if (base::Utf8CharCount(name.user) > kMaxUserChars) {
    return MakeError(er::kWrongStringLength, name.user, "user name", kMaxUserChars);
  }
  if (base::Utf8CharCount(name.host) > kMaxHostChars) {
    return MakeError(er::kWrongStringLength, name.host, "host name", kMaxHostChars);
  }
  return Status::OK();
}

// A database-level grant's name (a pattern: no "incorrect name" rules, MySQL
// takes grants on databases that do not exist): 1300, then 1059.
Status CheckGrantDbName(std::string_view db) {
  SLUICE_RETURN_IF_ERROR(base::CheckUtf8(db));
  if (base::Utf8CharCount(db) > kMaxDbNameChars) return MakeError(er::kTooLongIdent, db);
  return Status::OK();
}

// "'a'@'%','b'@'%'" as ER_CANNOT_USER lists the accounts it failed for.
std::string JoinQuoted(const std::vector<AccountName>& names) {
  std::string out;
  for (const AccountName& n : names) {
    if (!out.empty()) out += ',';
    out += n.Quoted();
  }
  return out;
}

Status CannotUser(std::string_view operation, const std::vector<AccountName>& failed) {
  return MakeError(er::kCannotUser, operation, JoinQuoted(failed));
}

void AddNote(std::vector<Warning>* warnings, const Status& s) {
  if (warnings == nullptr) return;
  warnings->push_back({Warning::Level::kNote, s.mysql_errno(), s.message()});
}

bool IsDynamicPrivName(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool ConstantTimeEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool IsHexDigit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// The stored form of caching_sha2_password: "$A$" 3 hex digits "$" then a
// 20-byte salt and a 43-character hash.
bool LooksLikeSha2Crypt(std::string_view s) {
  return s.size() == 70 && s.starts_with("$A$") && IsHexDigit(s[3]) && IsHexDigit(s[4]) &&
         IsHexDigit(s[5]) && s[6] == '$';
}

// SHOW CREATE USER's string literal: backslash and quote escaped.
std::string QuoteString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  out += '\'';
  return out;
}

std::string BackQuote(std::string_view s) {
  std::string out = "`";
  for (char c : s) {
    if (c == '`') out += '`';
    out += c;
  }
  out += '`';
  return out;
}

// The privilege list of a GRANT/REVOKE, checked against the level.
struct ParsedPrivs {
  PrivSet statics;
  bool all = false;
  bool grant_option = false;          // "GRANT OPTION" listed (REVOKE only)
  std::vector<std::string> dynamics;  // sorted, unique
};

Result<ParsedPrivs> ParsePrivileges(const std::vector<std::string>& names, const PrivLevel& level,
                                    const std::vector<std::string>& registry, bool is_revoke) {
  if (!level.global && level.db.empty()) return MakeError(er::kWrongDbName, level.db);
  ParsedPrivs out;
  for (const std::string& raw : names) {
    std::string name = NormalizePrivName(raw);
    if (name == "ALL" || name == "ALL PRIVILEGES") {
      out.all = true;
      out.statics |= level.global ? PrivSet::All() : PrivSet::DbLevel();
      if (level.global) out.dynamics.insert(out.dynamics.end(), registry.begin(), registry.end());
      continue;
    }
    if (name == "USAGE") continue;
    if (name == "GRANT OPTION") {
      if (!is_revoke) return MakeError(er::kSyntaxError);
      out.grant_option = true;
      continue;
    }
    if (std::optional<Priv> p = StaticPrivFromName(name)) {
      if (!level.global && IsGlobalOnly(*p)) {
        return MakeError(er::kWrongUsage, "DB GRANT", "GLOBAL PRIVILEGES");
      }
      out.statics |= PrivSet{*p};
      continue;
    }
    if (!IsDynamicPrivName(name)) return MakeError(er::kSyntaxError);
    if (!level.global) return MakeError(er::kIllegalPrivilegeLevel, name);
    if (!std::binary_search(registry.begin(), registry.end(), name)) {
      return MakeError(er::kSyntaxError);
    }
    out.dynamics.push_back(std::move(name));
  }
  std::sort(out.dynamics.begin(), out.dynamics.end());
  out.dynamics.erase(std::unique(out.dynamics.begin(), out.dynamics.end()), out.dynamics.end());
  return out;
}

void InsertDynamic(Account& a, const std::string& name, bool grant_option) {
  auto it = std::lower_bound(a.dynamic_privs.begin(), a.dynamic_privs.end(), name,
                             [](const DynamicGrant& g, const std::string& n) { return g.name < n; });
  if (it != a.dynamic_privs.end() && it->name == name) {
    it->grant_option = it->grant_option || grant_option;
  } else {
    a.dynamic_privs.insert(it, DynamicGrant{name, grant_option});
  }
}

void EraseDynamic(Account& a, const std::string& name) {
  std::erase_if(a.dynamic_privs, [&](const DynamicGrant& g) { return g.name == name; });
}

DbGrant* FindDbGrantMutable(Account& a, std::string_view db) {
  return const_cast<DbGrant*>(a.FindDbGrant(db));
}

DbGrant& FindOrAddDbGrant(Account& a, const std::string& db) {
  auto it = std::lower_bound(a.db_grants.begin(), a.db_grants.end(), db,
                             [](const DbGrant& g, const std::string& d) { return g.db < d; });
  if (it == a.db_grants.end() || it->db != db) it = a.db_grants.insert(it, DbGrant{db, {}, false});
  return *it;
}

// The same account with every privilege removed: what a session of a
// dropped account continues with.
AccountRef StripPrivileges(const Account& a) {
  auto copy = std::make_shared<Account>(a);
  copy->global_privs = PrivSet();
  copy->global_grant_option = false;
  copy->dynamic_privs.clear();
  copy->db_grants.clear();
  return copy;
}

}  // namespace

// ---- Snapshot and Editor ----

struct AccessControl::Snapshot {
  std::vector<AccountRef> accounts;  // login-match order

  AccountRef Find(std::string_view user, std::string_view host) const {
    for (const AccountRef& a : accounts) {
      if (a->user == user && a->host == host) return a;
    }
    return nullptr;
  }
};

// A copy-on-write working copy of the table: untouched accounts stay shared
// with the published snapshot; an edited one is cloned first.
class AccessControl::Editor {
 public:
  explicit Editor(const Snapshot& base)
      : accounts_(base.accounts), clones_(base.accounts.size()) {}

  // Index of the account, or -1.
  int Find(const AccountName& name) const {
    for (size_t i = 0; i < accounts_.size(); ++i) {
      if (accounts_[i]->user == name.user && accounts_[i]->host == name.host) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }
  const Account& Get(int i) const { return *accounts_[i]; }
  Account& Edit(int i) {
    if (!clones_[i]) {
      clones_[i] = std::make_shared<Account>(*accounts_[i]);
      accounts_[i] = clones_[i];
    }
    return *clones_[i];
  }
  void Add(Account a) {
    clones_.push_back(std::make_shared<Account>(std::move(a)));
    accounts_.push_back(clones_.back());
  }
  void Remove(int i) {
    accounts_.erase(accounts_.begin() + i);
    clones_.erase(clones_.begin() + i);
  }
  // The accounts in login-match order.
  std::vector<AccountRef> Finish() const {
    std::vector<AccountRef> out = accounts_;
    std::sort(out.begin(), out.end(), [](const AccountRef& a, const AccountRef& b) {
      return MatchesBefore(a->user, a->host, b->user, b->host);
    });
    return out;
  }

 private:
  std::vector<AccountRef> accounts_;
  std::vector<std::shared_ptr<Account>> clones_;  // non-null where accounts_[i] is ours
};

// ---- Construction, files ----

AccessControl::AccessControl(Options options)
    : options_(std::move(options)), snapshot_(std::make_shared<Snapshot>()) {
  for (std::string_view d : BuiltinDynamicPrivileges()) dynamic_registry_.emplace_back(d);
  for (const std::string& d : options_.extra_dynamic_privileges) {
    std::string name = NormalizePrivName(d);
    if (IsDynamicPrivName(name) && !StaticPrivFromName(name)) dynamic_registry_.push_back(name);
  }
  std::sort(dynamic_registry_.begin(), dynamic_registry_.end());
  dynamic_registry_.erase(std::unique(dynamic_registry_.begin(), dynamic_registry_.end()),
                          dynamic_registry_.end());
}

AccessControl::~AccessControl() = default;

std::shared_ptr<const AccessControl::Snapshot> AccessControl::Current() const {
  MutexLock lock(&snapshot_mu_);
  return snapshot_;
}

void AccessControl::Publish(std::shared_ptr<const Snapshot> snapshot) {
  {
    MutexLock lock(&snapshot_mu_);
    snapshot_ = std::move(snapshot);
  }
  // After the swap, so a reader that sees the new version finds (at least)
  // the new table.
  version_.fetch_add(1, std::memory_order_release);
}

Status AccessControl::WriteFile(const std::string& path, std::string_view bytes) {
  if (options_.write_file) return options_.write_file(path, bytes);
  io::AtomicWriteOptions o;
  o.permissions = 0600;  // password hashes
  return io::WriteFileAtomically(file_system(), path, bytes, o);
}

Status AccessControl::CommitLocked(Editor& editor, const std::vector<AccountName>& touched) {
  if (path_.empty()) return Status::InvalidArgument("access control: no data directory is open");
  std::vector<AccountRef> accounts = editor.Finish();
  SLUICE_RETURN_IF_ERROR(WriteFile(path_, internal::EncodeAccounts(accounts)));
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->accounts = std::move(accounts);
  Publish(std::move(snapshot));
  // Published first, then the cache cleared: CacheSha2Digest() re-checks the
  // published credentials under cache_mu_, so no stale digest survives.
  MutexLock lock(&cache_mu_);
  for (const AccountName& n : touched) sha2_cache_.erase(CacheKey(n.user, n.host));
  return Status::OK();
}

Status AccessControl::LoadLocked(bool missing_ok) {
  auto snapshot = std::make_shared<Snapshot>();
  Result<std::optional<std::string>> read = io::ReadFileIfExists(file_system(), path_);
  if (!read.ok()) return read.status();
  if (!read->has_value() && !missing_ok) {
    return Status::IOError("cannot open '" + path_ + "': No such file or directory");
  }
  if (read->has_value()) {
    Result<std::vector<Account>> decoded = internal::DecodeAccounts(**read);
    if (!decoded.ok()) return decoded.status();
    for (Account& a : *decoded) snapshot->accounts.push_back(std::make_shared<Account>(std::move(a)));
    std::sort(snapshot->accounts.begin(), snapshot->accounts.end(),
              [](const AccountRef& a, const AccountRef& b) {
                return MatchesBefore(a->user, a->host, b->user, b->host);
              });
  }
  Publish(std::move(snapshot));
  MutexLock lock(&cache_mu_);
  sha2_cache_.clear();
  return Status::OK();
}

namespace {

// <datadir>/mysql, created as mkdir -p would; returns the acl.pb path.
Result<std::string> PrepareMysqlDir(io::FileSystem& fs, const std::string& datadir) {
  const std::string dir = (std::filesystem::path(datadir) / "mysql").string();
  Status s = io::CreateDirectories(fs, dir);
  if (!s.ok()) return Status::IOError("cannot create '" + dir + "': " + s.message());
  return dir + "/acl.pb";
}

}  // namespace

Status AccessControl::Open(const std::string& datadir) {
  Result<std::string> path = PrepareMysqlDir(file_system(), datadir);
  if (!path.ok()) return path.status();
  MutexLock lock(&write_mu_);
  std::string previous = std::exchange(path_, *path);
  Status s = LoadLocked(/*missing_ok=*/true);
  if (!s.ok()) path_ = std::move(previous);
  return s;
}

Status AccessControl::InitializeDatadir(const std::string& datadir,
                                        const std::optional<std::string>& root_password) {
  Result<std::string> path = PrepareMysqlDir(file_system(), datadir);
  if (!path.ok()) return path.status();
  if (Result<bool> exists = file_system().Exists(*path); exists.ok() && *exists) {
    return Status::InvalidArgument("data directory already initialized: '" + *path + "' exists");
  }
  MutexLock lock(&write_mu_);
  Account root;
  root.user = "root";
  root.host = "localhost";
  root.plugin = LowerAscii(options_.default_authentication_plugin);
  UserSpec spec;
  spec.password = root_password.value_or("");
  Result<std::string> auth = MakeAuthString(spec, root.plugin);
  if (!auth.ok()) return auth.status();
  root.auth_string = std::move(*auth);
  // As mysqld --initialize: a generated password must be changed first.
  root.password_expired = root_password.has_value();
  root.global_privs = PrivSet::All();
  root.global_grant_option = true;
  for (const std::string& d : dynamic_registry_) root.dynamic_privs.push_back({d, true});

  Snapshot empty;
  Editor editor(empty);
  editor.Add(std::move(root));
  std::string previous = std::exchange(path_, *path);
  Status s = CommitLocked(editor, {});
  if (!s.ok()) path_ = std::move(previous);
  return s;
}

Status AccessControl::FlushPrivileges() {
  MutexLock lock(&write_mu_);
  if (path_.empty()) {
    MutexLock cache_lock(&cache_mu_);
    sha2_cache_.clear();
    return Status::OK();
  }
  // A file that vanished since Open() is an error here, not an empty table:
  // locking every user out on FLUSH PRIVILEGES would be worse.
  return LoadLocked(/*missing_ok=*/false);
}

Status AccessControl::RegisterDynamicPrivilege(std::string_view name) {
  std::string n = NormalizePrivName(name);
  if (!IsDynamicPrivName(n) || StaticPrivFromName(n)) {
    return Status::InvalidArgument("invalid dynamic privilege name '" + std::string(name) + "'");
  }
  MutexLock lock(&write_mu_);
  auto it = std::lower_bound(dynamic_registry_.begin(), dynamic_registry_.end(), n);
  if (it == dynamic_registry_.end() || *it != n) dynamic_registry_.insert(it, std::move(n));
  return Status::OK();
}

std::vector<std::string> AccessControl::DynamicPrivileges() const {
  MutexLock lock(&write_mu_);
  return dynamic_registry_;
}

// ---- Login and sessions ----

AccountRef AccessControl::FindAccountForLogin(std::string_view user,
                                              const ClientHost& client) const {
  std::shared_ptr<const Snapshot> snap = Current();
  for (const AccountRef& a : snap->accounts) {
    if ((a->user == user || a->user.empty()) && HostMatches(a->host, client)) return a;
  }
  return nullptr;
}

AccountRef AccessControl::Lookup(const AccountName& name) const {
  return Current()->Find(name.user, LowerAscii(name.host));
}

void AccessControl::RefreshIfChanged(AccountRef* account, uint64_t* seen_version) const {
  const uint64_t v = version();
  if (v == *seen_version) return;
  // Read after the version: the snapshot is at least as new as `v`.
  std::shared_ptr<const Snapshot> snap = Current();
  AccountRef current = snap->Find((*account)->user, (*account)->host);
  *account = current ? std::move(current) : StripPrivileges(**account);
  *seen_version = v;
}

std::vector<AccountRef> AccessControl::Accounts() const { return Current()->accounts; }

// ---- Authentication ----

bool AccessControl::VerifyNativeReply(const Account& account, std::string_view scramble,
                                      std::string_view reply) const {
  if (account.plugin != kNativePassword) return false;
  if (account.auth_string.empty()) return reply.empty();
  if (reply.empty()) return false;
  Result<std::string> stage2 = protocol::NativeHexToStage2(account.auth_string);
  if (!stage2.ok()) return false;
  return protocol::VerifyNativeScramble(scramble, reply, *stage2);
}

Sha2FastAuth AccessControl::VerifyCachingSha2Fast(const Account& account,
                                                  std::string_view scramble,
                                                  std::string_view token) const {
  if (account.plugin != kCachingSha2Password) return Sha2FastAuth::kMismatch;
  if (account.auth_string.empty()) {
    return token.empty() ? Sha2FastAuth::kOk : Sha2FastAuth::kMismatch;
  }
  if (token.empty()) return Sha2FastAuth::kMismatch;
  std::string digest;
  {
    MutexLock lock(&cache_mu_);
    auto it = sha2_cache_.find(CacheKey(account.user, account.host));
    if (it == sha2_cache_.end()) return Sha2FastAuth::kNotCached;
    digest = it->second;
  }
  return protocol::VerifyCachingSha2Scramble(scramble, token, digest) ? Sha2FastAuth::kOk
                                                                      : Sha2FastAuth::kMismatch;
}

bool AccessControl::VerifyCleartext(const Account& account, std::string_view password) const {
  if (account.auth_string.empty()) return password.empty();
  if (account.plugin == kNativePassword) {
    Result<std::string> stage2 = protocol::NativeHexToStage2(account.auth_string);
    if (!stage2.ok()) return false;
    return ConstantTimeEqual(protocol::NativePasswordStage2(password), *stage2);
  }
  if (account.plugin == kCachingSha2Password) {
    return protocol::VerifySha2Crypt(password, account.auth_string);
  }
  return false;
}

void AccessControl::CacheSha2Digest(const Account& account, std::string_view password) {
  if (account.plugin != kCachingSha2Password || account.auth_string.empty()) return;
  std::string digest = protocol::CachingSha2Digest(password);
  MutexLock lock(&cache_mu_);
  // Under cache_mu_, compare with the published credentials: a change
  // published before this point is seen here; one published after will
  // clear the entry (CommitLocked clears under cache_mu_ after publishing).
  AccountRef current = Current()->Find(account.user, account.host);
  if (!current || current->plugin != account.plugin ||
      current->auth_string != account.auth_string) {
    return;
  }
  sha2_cache_[CacheKey(account.user, account.host)] = std::move(digest);
}

// ---- Statements ----

Result<std::string> AccessControl::MakeAuthString(const UserSpec& spec,
                                                  std::string_view plugin) const {
  if (plugin != kCachingSha2Password && plugin != kNativePassword) {
    return MakeError(er::kPluginIsNotLoaded, plugin);
  }
  if (spec.password && spec.hash) {
    return Status::InvalidArgument("both a password and a hash were given");
  }
  if (spec.password) {
    if (spec.password->empty()) return std::string();
    if (plugin == kNativePassword) return protocol::NativePasswordHex(*spec.password);
    return protocol::Sha2CryptHash(*spec.password, protocol::MakeSha2Salt());
  }
  if (spec.hash) {
    const std::string& h = *spec.hash;
    if (h.empty()) return std::string();
    if (plugin == kNativePassword) {
      if (h.size() != 41 || h[0] != '*' || !protocol::NativeHexToStage2(h).ok()) {
        return MakeError(er::kPasswordFormat);
      }
      std::string upper = h;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return upper;
    }
    if (!LooksLikeSha2Crypt(h)) return MakeError(er::kPasswordFormat);
    return h;
  }
  return std::string();
}

// IF [NOT] EXISTS turns a per-account failure into a note.
void AccessControl::NoteOrFail(bool tolerate, Status note, const AccountName& name,
                               std::vector<Warning>* notes, std::vector<AccountName>* failed) {
  if (tolerate) {
    AddNote(notes, std::move(note));
  } else {
    failed->push_back(name);
  }
}

// A statement over several accounts is all-or-nothing: 1396 naming every
// account that failed, else one atomic write of the table, then the notes.
Status AccessControl::FinishLocked(Editor& editor, const char* operation,
                                   const std::vector<AccountName>& failed,
                                   const std::vector<AccountName>& touched,
                                   const std::vector<Warning>& notes,
                                   std::vector<Warning>* warnings) {
  if (!failed.empty()) return CannotUser(operation, failed);
  if (!touched.empty()) SLUICE_RETURN_IF_ERROR(CommitLocked(editor, touched));
  if (warnings != nullptr) warnings->insert(warnings->end(), notes.begin(), notes.end());
  return Status::OK();
}

Status AccessControl::CreateUser(const std::vector<UserSpec>& users, bool if_not_exists,
                                 std::vector<Warning>* warnings) {
  MutexLock lock(&write_mu_);
  Editor editor(*Current());
  std::vector<AccountName> failed, touched;
  std::vector<Warning> notes;
  for (const UserSpec& spec : users) {
    AccountName name = Normalized({spec.user, spec.host});
    SLUICE_RETURN_IF_ERROR(CheckAccountName(name));
    if (editor.Find(name) >= 0) {
      NoteOrFail(if_not_exists, MakeError(er::kUserAlreadyExists, name.Quoted()), name, &notes, &failed);
      continue;
    }
    Account a;
    a.user = name.user;
    a.host = name.host;
    a.plugin = LowerAscii(spec.plugin.empty() ? options_.default_authentication_plugin
                                              : spec.plugin);
    Result<std::string> auth = MakeAuthString(spec, a.plugin);
    if (!auth.ok()) return auth.status();
    a.auth_string = std::move(*auth);
    a.locked = spec.account_locked.value_or(false);
    editor.Add(std::move(a));
    touched.push_back(std::move(name));
  }
  return FinishLocked(editor, "CREATE USER", failed, touched, notes, warnings);
}

Status AccessControl::AlterUser(const std::vector<UserSpec>& users, bool if_exists,
                                std::vector<Warning>* warnings) {
  MutexLock lock(&write_mu_);
  Editor editor(*Current());
  std::vector<AccountName> failed, touched;
  std::vector<Warning> notes;
  for (const UserSpec& spec : users) {
    AccountName name = Normalized({spec.user, spec.host});
    int i = editor.Find(name);
    if (i < 0) {
      NoteOrFail(if_exists, MakeError(er::kUserDoesNotExist, name.Quoted()), name, &notes, &failed);
      continue;
    }
    std::string plugin = spec.plugin.empty() ? editor.Get(i).plugin : LowerAscii(spec.plugin);
    std::optional<std::string> auth;
    if (spec.password || spec.hash || !spec.plugin.empty()) {
      // IDENTIFIED WITH plugin alone clears the password.
      Result<std::string> made = MakeAuthString(spec, plugin);
      if (!made.ok()) return made.status();
      auth = std::move(*made);
    }
    Account& a = editor.Edit(i);
    a.plugin = std::move(plugin);
    if (auth) {
      a.auth_string = std::move(*auth);
      a.password_expired = false;
    }
    if (spec.account_locked) a.locked = *spec.account_locked;
    touched.push_back(std::move(name));
  }
  return FinishLocked(editor, "ALTER USER", failed, touched, notes, warnings);
}

Status AccessControl::DropUser(const std::vector<AccountName>& users, bool if_exists,
                               std::vector<Warning>* warnings) {
  MutexLock lock(&write_mu_);
  Editor editor(*Current());
  std::vector<AccountName> failed, touched;
  std::vector<Warning> notes;
  for (const AccountName& raw : users) {
    AccountName name = Normalized(raw);
    int i = editor.Find(name);
    if (i < 0) {
      NoteOrFail(if_exists, MakeError(er::kUserDoesNotExist, name.Quoted()), name, &notes, &failed);
      continue;
    }
    editor.Remove(i);
    touched.push_back(std::move(name));
  }
  return FinishLocked(editor, "DROP USER", failed, touched, notes, warnings);
}

Status AccessControl::RenameUser(
    const std::vector<std::pair<AccountName, AccountName>>& renames) {
  MutexLock lock(&write_mu_);
  Editor editor(*Current());
  std::vector<AccountName> failed, touched;
  for (const auto& [raw_from, raw_to] : renames) {
    AccountName from = Normalized(raw_from), to = Normalized(raw_to);
    SLUICE_RETURN_IF_ERROR(CheckAccountName(to));
    int i = editor.Find(from);
    if (i < 0 || editor.Find(to) >= 0) {
      failed.push_back(from);
      continue;
    }
    Account& a = editor.Edit(i);
    a.user = to.user;
    a.host = to.host;
    touched.push_back(std::move(from));
    touched.push_back(std::move(to));
  }
  return FinishLocked(editor, "RENAME USER", failed, touched, {}, nullptr);
}

Status AccessControl::SetPassword(const AccountName& user, std::string_view password) {
  MutexLock lock(&write_mu_);
  Editor editor(*Current());
  AccountName name = Normalized(user);
  int i = editor.Find(name);
  if (i < 0) return MakeError(er::kPasswordNoMatch);
  UserSpec spec;
  spec.password = std::string(password);
  Result<std::string> auth = MakeAuthString(spec, editor.Get(i).plugin);
  if (!auth.ok()) return auth.status();
  editor.Edit(i).auth_string = std::move(*auth);
  editor.Edit(i).password_expired = false;
  return CommitLocked(editor, {name});
}

Status AccessControl::Grant(const std::vector<std::string>& privileges, const PrivLevel& level,
                            const std::vector<AccountName>& users, bool with_grant_option) {
  MutexLock lock(&write_mu_);
  Result<ParsedPrivs> parsed = ParsePrivileges(privileges, level, dynamic_registry_, false);
  if (!parsed.ok()) return parsed.status();
  const ParsedPrivs& p = *parsed;
  if (!level.global) SLUICE_RETURN_IF_ERROR(CheckGrantDbName(level.db));
  Editor editor(*Current());
  std::vector<int> targets;
  for (const AccountName& raw : users) {
    int i = editor.Find(Normalized(raw));
    if (i < 0) return MakeError(er::kCantCreateUserWithGrant);
    targets.push_back(i);
  }
  for (int i : targets) {
    Account& a = editor.Edit(i);
    if (level.global) {
      a.global_privs |= p.statics;
      // WITH GRANT OPTION on a list of only dynamic privileges applies to
      // those alone (MySQL keeps the static GRANT OPTION off then).
      if (with_grant_option && (!p.statics.empty() || p.dynamics.empty())) {
        a.global_grant_option = true;
      }
      for (const std::string& d : p.dynamics) InsertDynamic(a, d, with_grant_option);
    } else if (!p.statics.empty() || with_grant_option) {
      DbGrant& g = FindOrAddDbGrant(a, level.db);
      g.privs |= p.statics;
      g.grant_option = g.grant_option || with_grant_option;
    }
  }
  return CommitLocked(editor, {});
}

Status AccessControl::Revoke(const std::vector<std::string>& privileges, const PrivLevel& level,
                             const std::vector<AccountName>& users) {
  MutexLock lock(&write_mu_);
  Result<ParsedPrivs> parsed = ParsePrivileges(privileges, level, dynamic_registry_, true);
  if (!parsed.ok()) return parsed.status();
  const ParsedPrivs& p = *parsed;
  if (!level.global) SLUICE_RETURN_IF_ERROR(CheckGrantDbName(level.db));
  Editor editor(*Current());
  std::vector<int> targets;
  for (const AccountName& raw : users) {
    AccountName name = Normalized(raw);
    int i = editor.Find(name);
    if (i < 0 || (!level.global && editor.Get(i).FindDbGrant(level.db) == nullptr)) {
      return MakeError(er::kNonexistingGrant, name.user, name.host);
    }
    targets.push_back(i);
  }
  for (int i : targets) {
    Account& a = editor.Edit(i);
    if (level.global) {
      a.global_privs.Remove(p.statics);
      if (p.grant_option) a.global_grant_option = false;
      if (p.all) {
        a.dynamic_privs.clear();
      } else {
        for (const std::string& d : p.dynamics) EraseDynamic(a, d);
      }
    } else {
      DbGrant* g = FindDbGrantMutable(a, level.db);
      if (g == nullptr) continue;  // a repeated user whose row is already gone
      g->privs.Remove(p.statics);
      if (p.grant_option) g->grant_option = false;
      if (g->privs.empty() && !g->grant_option) {
        std::erase_if(a.db_grants, [&](const DbGrant& x) { return x.db == level.db; });
      }
    }
  }
  return CommitLocked(editor, {});
}

Status AccessControl::RevokeAllAndGrantOption(const std::vector<AccountName>& users) {
  MutexLock lock(&write_mu_);
  Editor editor(*Current());
  std::vector<int> targets;
  for (const AccountName& raw : users) {
    int i = editor.Find(Normalized(raw));
    if (i < 0) return MakeError(er::kRevokeGrants);
    targets.push_back(i);
  }
  for (int i : targets) {
    Account& a = editor.Edit(i);
    a.global_privs = PrivSet();
    a.global_grant_option = false;
    a.dynamic_privs.clear();
    a.db_grants.clear();
  }
  return CommitLocked(editor, {});
}

// ---- Introspection ----

Result<std::vector<std::string>> AccessControl::ShowGrants(const AccountName& user) const {
  AccountName name = Normalized(user);
  AccountRef a = Current()->Find(name.user, name.host);
  if (!a) return MakeError(er::kNonexistingGrant, name.user, name.host);
  const std::string to = " TO " + name.BackQuoted();
  const char* kWithGrant = " WITH GRANT OPTION";
  std::vector<std::string> lines;

  std::string global = a->global_privs.empty() ? "USAGE" : FormatPrivList(a->global_privs);
  lines.push_back("GRANT " + global + " ON *.*" + to + (a->global_grant_option ? kWithGrant : ""));

  // Dynamic privileges: comma-separated without spaces, those without the
  // grant option first, then those with it.
  for (bool grantable : {false, true}) {
    std::string list;
    for (const DynamicGrant& d : a->dynamic_privs) {
      if (d.grant_option != grantable) continue;
      if (!list.empty()) list += ',';
      list += d.name;
    }
    if (!list.empty()) lines.push_back("GRANT " + list + " ON *.*" + to + (grantable ? kWithGrant : ""));
  }

  for (const DbGrant& g : a->db_grants) {
    std::string privs = g.privs == PrivSet::DbLevel() ? "ALL PRIVILEGES"
                        : g.privs.empty()             ? "USAGE"
                                                      : FormatPrivList(g.privs);
    lines.push_back("GRANT " + privs + " ON " + BackQuote(g.db) + ".*" + to +
                    (g.grant_option ? kWithGrant : ""));
  }
  return lines;
}

Result<std::string> AccessControl::ShowCreateUser(const AccountName& user) const {
  AccountName name = Normalized(user);
  AccountRef a = Current()->Find(name.user, name.host);
  if (!a) return CannotUser("SHOW CREATE USER", {name});
  std::string out = "CREATE USER " + name.BackQuoted() + " IDENTIFIED WITH " + QuoteString(a->plugin);
  if (!a->auth_string.empty()) out += " AS " + QuoteString(a->auth_string);
  out += a->password_expired ? " REQUIRE NONE PASSWORD EXPIRE ACCOUNT " : " REQUIRE NONE PASSWORD EXPIRE DEFAULT ACCOUNT ";
  out += a->locked ? "LOCK" : "UNLOCK";
  out += " PASSWORD HISTORY DEFAULT PASSWORD REUSE INTERVAL DEFAULT PASSWORD REQUIRE CURRENT DEFAULT";
  return out;
}

}  // namespace sluice::acl
