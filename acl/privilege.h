// acl/privilege.h
//
// MySQL 8.0's privileges: the static set (a bit per privilege, in the order
// SHOW GRANTS prints them), GRANT OPTION (a separate flag, see account.h) and
// the dynamic privileges, which are plain upper-case names such as
// "SYSTEM_VARIABLES_ADMIN". Names here are user-visible MySQL spellings.
//
// Thread-safety: values and pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace sluice::acl {

// The static privileges, in MySQL's canonical SHOW GRANTS order. The
// persisted form stores names, not these numbers, but keep the order: it is
// the display order.
enum class Priv : uint8_t {
  kSelect = 0,
  kInsert,
  kUpdate,
  kDelete,
  kCreate,
  kDrop,
  kReload,
  kShutdown,
  kProcess,
  kFile,
  kReferences,
  kIndex,
  kAlter,
  kShowDatabases,
  kSuper,
  kCreateTemporaryTables,
  kLockTables,
  kExecute,
  kReplicationSlave,
  kReplicationClient,
  kCreateView,
  kShowView,
  kCreateRoutine,
  kAlterRoutine,
  kCreateUser,
  kEvent,
  kTrigger,
  kCreateTablespace,
  kCreateRole,
  kDropRole,
};
inline constexpr int kNumStaticPrivs = static_cast<int>(Priv::kDropRole) + 1;

// A set of static privileges (GRANT OPTION is not one of them).
class PrivSet {
 public:
  constexpr PrivSet() = default;
  constexpr PrivSet(std::initializer_list<Priv> privs) {
    for (Priv p : privs) bits_ |= Bit(p);
  }
  static constexpr PrivSet FromBits(uint64_t bits) {
    PrivSet s;
    s.bits_ = bits & kAllBits;
    return s;
  }
  // Every static privilege: what ALL PRIVILEGES means at *.*.
  static constexpr PrivSet All() { return FromBits(kAllBits); }
  // The privileges that exist at the database level: what ALL PRIVILEGES
  // means at db.*.
  static constexpr PrivSet DbLevel() {
    return {Priv::kSelect,     Priv::kInsert,       Priv::kUpdate,
            Priv::kDelete,     Priv::kCreate,       Priv::kDrop,
            Priv::kReferences, Priv::kIndex,        Priv::kAlter,
            Priv::kCreateTemporaryTables,           Priv::kLockTables,
            Priv::kExecute,    Priv::kCreateView,   Priv::kShowView,
            Priv::kCreateRoutine, Priv::kAlterRoutine, Priv::kEvent,
            Priv::kTrigger};
  }

  constexpr bool Has(Priv p) const { return (bits_ & Bit(p)) != 0; }
  constexpr bool ContainsAll(PrivSet other) const { return (bits_ & other.bits_) == other.bits_; }
  constexpr bool Intersects(PrivSet other) const { return (bits_ & other.bits_) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint64_t bits() const { return bits_; }

  constexpr PrivSet& operator|=(PrivSet o) {
    bits_ |= o.bits_;
    return *this;
  }
  constexpr PrivSet& Remove(PrivSet o) {
    bits_ &= ~o.bits_;
    return *this;
  }
  friend constexpr PrivSet operator|(PrivSet a, PrivSet b) { return a |= b; }
  friend constexpr PrivSet operator&(PrivSet a, PrivSet b) { return FromBits(a.bits_ & b.bits_); }
  friend constexpr bool operator==(PrivSet a, PrivSet b) = default;

 private:
  static constexpr uint64_t Bit(Priv p) { return uint64_t{1} << static_cast<int>(p); }
  static constexpr uint64_t kAllBits = (uint64_t{1} << kNumStaticPrivs) - 1;
  uint64_t bits_ = 0;
};

// "SELECT", "SHOW DATABASES", "CREATE TEMPORARY TABLES", ...
std::string_view PrivName(Priv p);

// A static privilege by its upper-case MySQL name (single spaces between
// words); also accepts the 8.0.22+ alias "REPLICATION REPLICA".
std::optional<Priv> StaticPrivFromName(std::string_view upper_name);

// True for privileges that exist only at *.* (RELOAD, SUPER, ...).
constexpr bool IsGlobalOnly(Priv p) { return !PrivSet::DbLevel().Has(p); }

// "SELECT, INSERT, UPDATE": the names of `privs` in canonical order, joined
// as SHOW GRANTS joins them. Empty for an empty set.
std::string FormatPrivList(PrivSet privs);

// The dynamic privileges a MySQL 8.0 server registers at start (without
// optional plugins or components), sorted by name. AccessControl starts from
// these and accepts more through its Options or RegisterDynamicPrivilege().
std::span<const std::string_view> BuiltinDynamicPrivileges();

// Upper-cases ASCII letters and collapses runs of blanks into one space, so
// that "show  databases" and "SHOW DATABASES" name the same privilege.
std::string NormalizePrivName(std::string_view name);

}  // namespace sluice::acl
