#include "acl/privilege.h"

#include <array>
#include <cctype>

namespace sluice::acl {
namespace {

constexpr std::array<std::string_view, kNumStaticPrivs> kStaticNames = {
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "RELOAD",
    "SHUTDOWN",
    "PROCESS",
    "FILE",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "SHOW DATABASES",
    "SUPER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "REPLICATION SLAVE",
    "REPLICATION CLIENT",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "CREATE USER",
    "EVENT",
    "TRIGGER",
    "CREATE TABLESPACE",
    "CREATE ROLE",
    "DROP ROLE",
};

// What `GRANT ALL ON *.*` gives on a stock MySQL 8.0.3x server: the
// dynamic line of root's SHOW GRANTS after --initialize. Sorted.
constexpr std::string_view kBuiltinDynamic[] = {
    "APPLICATION_PASSWORD_ADMIN",
    "AUDIT_ABORT_EXEMPT",
    "AUDIT_ADMIN",
    "AUTHENTICATION_POLICY_ADMIN",
    "BACKUP_ADMIN",
    "BINLOG_ADMIN",
    "BINLOG_ENCRYPTION_ADMIN",
    "CLONE_ADMIN",
    "CONNECTION_ADMIN",
    "ENCRYPTION_KEY_ADMIN",
    "FIREWALL_EXEMPT",
    "FLUSH_OPTIMIZER_COSTS",
    "FLUSH_STATUS",
    "FLUSH_TABLES",
    "FLUSH_USER_RESOURCES",
    "GROUP_REPLICATION_ADMIN",
    "GROUP_REPLICATION_STREAM",
    "INNODB_REDO_LOG_ARCHIVE",
    "INNODB_REDO_LOG_ENABLE",
    "PASSWORDLESS_USER_ADMIN",
    "PERSIST_RO_VARIABLES_ADMIN",
    "REPLICATION_APPLIER",
    "REPLICATION_SLAVE_ADMIN",
    "RESOURCE_GROUP_ADMIN",
    "RESOURCE_GROUP_USER",
    "ROLE_ADMIN",
    "SENSITIVE_VARIABLES_OBSERVER",
    "SERVICE_CONNECTION_ADMIN",
    "SESSION_VARIABLES_ADMIN",
    "SET_USER_ID",
    "SHOW_ROUTINE",
    "SYSTEM_USER",
    "SYSTEM_VARIABLES_ADMIN",
    "TABLE_ENCRYPTION_ADMIN",
    "TELEMETRY_LOG_ADMIN",
    "XA_RECOVER_ADMIN",
};

}  // namespace

std::string_view PrivName(Priv p) { return kStaticNames[static_cast<size_t>(p)]; }

std::optional<Priv> StaticPrivFromName(std::string_view upper_name) {
  for (size_t i = 0; i < kStaticNames.size(); ++i) {
    if (kStaticNames[i] == upper_name) return static_cast<Priv>(i);
  }
  if (upper_name == "REPLICATION REPLICA") return Priv::kReplicationSlave;
  return std::nullopt;
}

std::string FormatPrivList(PrivSet privs) {
  std::string out;
  for (int i = 0; i < kNumStaticPrivs; ++i) {
    auto p = static_cast<Priv>(i);
    if (!privs.Has(p)) continue;
    if (!out.empty()) out += ", ";
    out += PrivName(p);
  }
  return out;
}

std::span<const std::string_view> BuiltinDynamicPrivileges() { return kBuiltinDynamic; }

std::string NormalizePrivName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool pending_space = false;
  for (char c : name) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace sluice::acl
