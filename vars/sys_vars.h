// vars/sys_vars.h
//
// System variables (@@name): one registry for every variable the server,
// storage, binlog and plugins expose; the global values; each connection's
// own values; SELECT @@x, SET [GLOBAL|SESSION|PERSIST|PERSIST_ONLY] x and
// SHOW VARIABLES with MySQL's semantics and errors; SET PERSIST into
// <datadir>/mysqld-auto.cnf.
//
// Names are looked up case-insensitively and stored lower-case. A variable
// may carry aliases (old and new names of one variable, e.g.
// rpl_semi_sync_master_enabled / rpl_semi_sync_source_enabled); SHOW
// VARIABLES lists every name.
//
// Ownership: the server owns one SystemVariables and creates it before the
// parts register. Each connection owns one SessionVariables (NewSession()),
// which must not outlive the registry.
//
// Thread-safety: every SystemVariables method may be called from any thread,
// including Register()/Unregister() while others read or set. A
// SessionVariables is used by its own session only, one thread at a time.
// Lock order: set_mu_ -> persist_mu_ -> mu_. Check and update callbacks run
// without mu_; those for GLOBAL/PERSIST run under set_mu_, so they must not
// call Set()/SetDefault()/Register()/Unregister()/AddHooks() for a global
// scope (Get() and session-scope Set() are fine).
// Blocking: SET PERSIST / PERSIST_ONLY, ResetPersist() and LoadPersisted()
// write and fsync a file: run them on a worker thread, never an io thread.
// Privileges are not checked here: the caller checks SYSTEM_VARIABLES_ADMIN
// (or SUPER) before a global-scope Set().
#pragma once

#include <spdlog/logger.h>

#include <cstdint>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/io/file_system.h"
#include "base/mutex.h"
#include "base/status.h"
#include "sql/value.h"

namespace sluice::vars {

enum class VarType : uint8_t {
  kBool,    // ON/OFF; SET accepts ON OFF TRUE FALSE 1 0; reads as INT 1/0
  kInt,     // int64 within [min, max]; out of range clamps with warning 1292
  kUInt,    // uint64 within [min, max]; likewise
  kDouble,  // double within [min, max]; likewise
  kEnum,    // one of a list of names (case-insensitive) or its 0-based index
  kSet,     // comma list of flags or a numeric bitmask; reads in definition order
  kString,  // text; NULL only when nullable
};

// Where a variable exists.
enum class VarScope : uint8_t { kGlobal, kSession, kBoth };

// @@x (kDefault: the session value when the variable has one, else the
// global), @@session.x, @@global.x.
enum class GetScope : uint8_t { kDefault, kSession, kGlobal };

// SET x (kDefault: session), SET SESSION, SET GLOBAL, SET PERSIST (global and
// the file), SET PERSIST_ONLY (the file only, takes effect at next start).
enum class SetScope : uint8_t { kDefault, kSession, kGlobal, kPersist, kPersistOnly };

class SessionVariables;

namespace internal {
struct VarDef;       // sys_vars.cc
struct StoredValue;  // sys_vars.cc
struct SessionState;  // sys_vars.cc: a SessionVariables' contents
using ValueMap = std::map<std::string, StoredValue, std::less<>>;
}  // namespace internal

// Runs before a value is stored; `scope` is never kDefault. `value` is in the
// form Get() returns (bools as INT 1/0, enums and sets as their text). A
// non-OK Status rejects the SET and reaches the client as it is. The check
// may rewrite the value (e.g. to a canonical spelling); the rewritten value
// is parsed again. `session` is null for global scopes.
using CheckFn =
    std::function<Status(SetScope scope, sql::Value* value, const SessionVariables* session)>;
// Runs after a value was stored (not for kPersistOnly): reacts to a change,
// e.g. the acceptor to max_connections. `session` is null for global scopes.
using UpdateFn =
    std::function<void(SetScope scope, const sql::Value& value, SessionVariables* session)>;
// Computes the value of a variable on every read (warning_count,
// timestamp). `session` is null for @@global reads and global listings.
using GetterFn = std::function<sql::Value(const SessionVariables* session)>;

// The definition of one variable. Build one with a factory and adjust:
//   VariableSpec::UInt("max_connections", VarScope::kGlobal, 151, 1, 100000,
//                      "Most client connections at once; ...").OnUpdate(fn)
struct VariableSpec {
  static VariableSpec Bool(std::string name, VarScope scope, bool def, std::string help);
  static VariableSpec Int(std::string name, VarScope scope, int64_t def, int64_t min,
                          int64_t max, std::string help);
  static VariableSpec UInt(std::string name, VarScope scope, uint64_t def, uint64_t min,
                           uint64_t max, std::string help);
  static VariableSpec Double(std::string name, VarScope scope, double def, double min,
                             double max, std::string help);
  // `values` in index order; `def` one of them.
  static VariableSpec Enum(std::string name, VarScope scope, std::vector<std::string> values,
                           std::string def, std::string help);
  // `flags` in bit order (flag i is bit i; an empty name is an unused bit);
  // `def` a comma list of flags.
  static VariableSpec Set(std::string name, VarScope scope, std::vector<std::string> flags,
                          std::string def, std::string help);
  // `def` nullopt means NULL (then the variable must be Nullable()).
  static VariableSpec String(std::string name, VarScope scope, std::optional<std::string> def,
                             std::string help);

  // Neither SET GLOBAL nor SET SESSION (error 1238); the value comes from
  // the server (CoreVariableDefaults, SetStartupValue()).
  VariableSpec& ReadOnly() { read_only = true; return *this; }
  // kBoth only: SET SESSION fails with 1621 (max_allowed_packet).
  VariableSpec& SessionReadOnly() { session_read_only = true; return *this; }
  VariableSpec& Nullable() { nullable = true; return *this; }
  // Read-only and cannot be SET PERSIST_ONLY either (version, datadir).
  VariableSpec& NotPersistable() { persistable = false; return *this; }
  VariableSpec& Alias(std::string alias) { aliases.push_back(std::move(alias)); return *this; }
  // kUInt/kInt: values are rounded down to a multiple of `block` (with warning).
  VariableSpec& BlockSize(uint64_t block) { block_size = block; return *this; }
  // kSet: setting `flag` also sets `implied` (sql_mode ANSI, TRADITIONAL).
  VariableSpec& Composite(std::string flag, std::vector<std::string> implied) {
    composites.emplace_back(std::move(flag), std::move(implied));
    return *this;
  }
  VariableSpec& Check(CheckFn fn) { checks.push_back(std::move(fn)); return *this; }
  VariableSpec& OnUpdate(UpdateFn fn) { updates.push_back(std::move(fn)); return *this; }
  VariableSpec& Getter(GetterFn fn) { getter = std::move(fn); return *this; }

  std::string name;
  VarType type = VarType::kString;
  VarScope scope = VarScope::kGlobal;
  std::string help;  // a sentence on what the variable does and its trade-offs
  bool read_only = false;
  bool session_read_only = false;
  bool nullable = false;
  bool persistable = true;
  std::vector<std::string> aliases;
  sql::Value default_value;  // in the form SET accepts
  int64_t int_min = 0, int_max = 0;
  uint64_t uint_min = 0, uint_max = 0;
  uint64_t block_size = 1;
  double double_min = 0, double_max = 0;
  std::vector<std::string> names;  // kEnum values, kSet flags
  std::vector<std::pair<std::string, std::vector<std::string>>> composites;
  std::vector<CheckFn> checks;
  std::vector<UpdateFn> updates;
  GetterFn getter;
};

// What INFORMATION_SCHEMA-like listings and the parser may want to know.
struct VariableInfo {
  std::string name;  // canonical (lower-case)
  VarType type;
  VarScope scope;
  bool read_only;
  bool session_read_only;
  bool nullable;
  std::string help;
  std::vector<std::string> names;  // kEnum values, kSet flags
};

// One SHOW VARIABLES row: the value as SHOW prints it (ON/OFF, numbers as
// text, doubles with six decimals); nullopt for NULL.
struct VariableRow {
  std::string name;
  std::optional<std::string> value;
  friend bool operator==(const VariableRow&, const VariableRow&) = default;
};

// Who ran SET PERSIST, recorded in mysqld-auto.cnf's metadata.
struct PersistedBy {
  std::string_view user = "root";
  std::string_view host = "localhost";
};

// One connection's variables: the session values of session-scoped
// variables as the globals were when the connection started, plus what the
// session SET since. Created by SystemVariables::NewSession(). Not
// thread-safe: owned and used by one session.
class SessionVariables {
 public:
  SessionVariables(SessionVariables&&) noexcept;
  SessionVariables& operator=(SessionVariables&&) noexcept;
  ~SessionVariables();

  // Makes `name` (canonical name) computed for this session only: reads of
  // its session value call `fn` instead of the stored value (warning_count
  // from this session's diagnostics area). A SET of it is still checked and
  // stored and its update callbacks run, but reads come from `fn`.
  // `fn` must stay valid as long as this object.
  void BindComputed(std::string name, std::function<sql::Value()> fn);

  // The value this session SET for `name` (in Get() form), or nullopt when
  // it never did or set DEFAULT. For getters such as timestamp's.
  std::optional<sql::Value> OwnValue(std::string_view name) const;

  // Changes with every SET of a session value by this session (and only
  // then: session values do not follow later global changes); unique in
  // the process, so a new SessionVariables never repeats an old one's. A
  // typed copy of some values (exec/settings.h) is read again only when
  // this changed.
  uint64_t version() const;

 private:
  friend class SystemVariables;
  explicit SessionVariables(std::unique_ptr<internal::SessionState> impl);
  std::unique_ptr<internal::SessionState> impl_;
};

class SystemVariables {
 public:
  struct Options {
    // Where LoadPersisted() reports per-variable problems. Null: the
    // "server" logger of base/log.h.
    std::shared_ptr<spdlog::logger> logger;
    // Where mysqld-auto.cnf is read and written (a test injects faults).
    // Null: io::DefaultFileSystem(), POSIX. Must outlive this object.
    io::FileSystem* fs = nullptr;
  };

  SystemVariables();
  explicit SystemVariables(Options options);
  ~SystemVariables();
  SystemVariables(const SystemVariables&) = delete;
  SystemVariables& operator=(const SystemVariables&) = delete;

  // Adds a variable. InvalidArgument when its name or an alias is taken, or
  // the spec is inconsistent (bad range, default not a valid value). When
  // mysqld-auto.cnf held a value for it that could not be applied at load
  // (a plugin's variable registered later), that value is applied now.
  Status Register(VariableSpec spec);

  // Removes a variable (by its name or an alias) with all its names; 1193
  // when unknown. Waits for a global SET of any variable in progress. Values
  // sessions set for it are ignored from now on.
  Status Unregister(std::string_view name);

  // Adds a check and/or an update callback (either may be empty) to a
  // registered variable; 1193 when unknown.
  Status AddHooks(std::string_view name, CheckFn check, UpdateFn on_update);

  bool Exists(std::string_view name) const;
  std::optional<VariableInfo> Describe(std::string_view name) const;

  // A connection's variables, starting from the current globals.
  SessionVariables NewSession() const;

  // SELECT @@x. Errors: 1193 unknown; 1238 "is a GLOBAL variable" for
  // @@session.x of a global-only one, "is a SESSION variable" for @@global.x
  // of a session-only one. `session` may be null (then session reads give
  // the global value, or the default for session-only variables).
  Result<sql::Value> Get(std::string_view name, GetScope scope,
                         const SessionVariables* session) const;

  // Changes whenever a global value is stored (SET GLOBAL / PERSIST, a
  // registration, a removal): a typed copy of some globals (exec/settings.h)
  // is read again only when this changed.
  uint64_t globals_version() const { return globals_version_.load(std::memory_order_acquire); }

  // The stored number behind a kBool (0/1), kEnum (index), kSet (bitmask),
  // kUInt or non-negative kInt value, for hot paths that test flags (the
  // sql_mode bits of core_vars.h). Errors as Get(); InvalidArgument for
  // other types.
  Result<uint64_t> GetFlags(std::string_view name, GetScope scope,
                            const SessionVariables* session) const;

  // SET [scope] name = value. Errors: 1193 unknown; 1238 read only (1238
  // "non persistent read only" for PERSIST_ONLY of a non-persistable one);
  // 1229 session scope on a global-only variable; 1228 global scope on a
  // session-only one; 1621 SET SESSION of a session-read-only one; 1232 a
  // value of the wrong type; 1231 a value outside the variable's domain; a
  // check callback's own error. Integers and doubles out of range are
  // clamped with warning 1292 appended to `warnings` (may be null).
  // REQUIRES: `session` non-null for session scope.
  Status Set(std::string_view name, SetScope scope, const sql::Value& value,
             SessionVariables* session, std::vector<Status>* warnings,
             const PersistedBy& by = {});

  // SET [scope] name = DEFAULT: the session value becomes the current
  // global value; the global value becomes the compiled default. Errors as
  // Set().
  Status SetDefault(std::string_view name, SetScope scope, SessionVariables* session,
                    std::vector<Status>* warnings, const PersistedBy& by = {});

  // The global value from a start-up option or the persisted file, as text
  // ("64M", "ON", "ROW"): allowed for read-only variables, no scope rules,
  // the compiled default is kept for SET DEFAULT. Errors as Set()'s value
  // errors. Integers accept K M G T P E suffixes (powers of 1024).
  Status SetStartupValue(std::string_view name, std::string_view text,
                         std::vector<Status>* warnings);

  // SHOW VARIABLES rows sorted by name. kGlobal: variables with a global
  // value, with it. kSession/kDefault: every variable; session values for
  // those that have one, global values for global-only ones.
  std::vector<VariableRow> List(GetScope scope, const SessionVariables* session) const;

  // Reads <datadir>/mysqld-auto.cnf (if it exists) and applies its values
  // as start-up values; later SET PERSIST writes there. Values for unknown
  // names are kept (and written back); they apply when the variable is
  // registered. A value that cannot be applied is logged and skipped.
  // IOError when the file cannot be read, Corruption when it is not the
  // expected JSON. Call after the parts registered their variables.
  Status LoadPersisted(const std::string& datadir);

  // RESET PERSIST [[IF EXISTS] name]: drops one (or every) entry from the
  // file; runtime values stay. Error 3615 when `name` is not persisted,
  // a warning with that code instead when `if_exists`.
  Status ResetPersist(std::optional<std::string_view> name, bool if_exists,
                      std::vector<Status>* warnings);

  // Whether mysqld-auto.cnf holds a value for `name` (exactly that name,
  // any case): a start-up option must not override it.
  bool IsPersisted(std::string_view name) const;

  // The path SET PERSIST writes; empty before LoadPersisted().
  std::string persisted_file() const;

 private:
  using VarDef = internal::VarDef;
  using ValueMap = internal::ValueMap;
  friend class SessionVariables;

  // One mysqld-auto.cnf entry.
  struct PersistEntry {
    std::optional<std::string> value;  // nullopt: JSON null
    uint64_t timestamp_us = 0;
    std::string user;
    std::string host;
    bool is_static = false;  // a read-only variable: "mysql_server_static_options"
  };

  // Looks up a name or alias (any case); null when unknown.
  std::shared_ptr<const VarDef> FindDef(std::string_view name) const;
  // Looks up and snapshots the globals in one lock.
  std::shared_ptr<const VarDef> FindDefAndGlobals(std::string_view name,
                                                  std::shared_ptr<const ValueMap>* globals) const;
  Status SetImpl(std::string_view name, SetScope scope, const sql::Value* value,
                 SessionVariables* session, std::vector<Status>* warnings,
                 const PersistedBy& by);
  void StoreGlobal(const VarDef& def, const internal::StoredValue& stored) REQUIRES(set_mu_) EXCLUDES(mu_);
  Status Persist(const VarDef& def, std::optional<std::string> text, const PersistedBy& by)
      REQUIRES(set_mu_) EXCLUDES(persist_mu_);
  Status WriteFileLocked() REQUIRES(persist_mu_);
  io::FileSystem& file_system() const {
    return options_.fs != nullptr ? *options_.fs : io::DefaultFileSystem();
  }
  Status ApplyStartupText(const VarDef& def, const std::optional<std::string>& text,
                          std::vector<Status>* warnings);
  void ApplyPendingPersisted(const VarDef& def);

  const Options options_;

  // Serialises global-scope SETs (check, store, update callbacks, file),
  // Unregister() and AddHooks(), so callbacks see changes in order.
  Mutex set_mu_ ACQUIRED_BEFORE(persist_mu_, mu_);

  mutable Mutex persist_mu_ ACQUIRED_BEFORE(mu_);
  std::string datadir_ GUARDED_BY(persist_mu_);
  std::map<std::string, PersistEntry, std::less<>> persisted_ GUARDED_BY(persist_mu_);

  mutable SharedMutex mu_;
  // Every name and alias -> its definition (immutable; replaced on AddHooks).
  std::map<std::string, std::shared_ptr<const VarDef>, std::less<>> defs_ GUARDED_BY(mu_);
  // Canonical name -> global value. Replaced, never changed in place, so a
  // session keeps the map of its connect time as its snapshot.
  std::shared_ptr<const ValueMap> globals_ GUARDED_BY(mu_);
  uint64_t next_generation_ GUARDED_BY(mu_) = 1;
  std::atomic<uint64_t> globals_version_{1};  // bumped after each change of globals_
};

}  // namespace sluice::vars
