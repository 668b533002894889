#include "vars/core_status.h"

#include <string>
#include <utility>

namespace sluice::vars {

Result<CoreStatus> RegisterCoreStatus(StatusVariables& status, CoreStatusProviders providers) {
  CoreStatus core;
  struct SessionName {
    SessionCounter CoreStatus::*field;
    const char* name;
    const char* help;
  };
  const SessionName session_counters[] = {
      {&CoreStatus::questions, "Questions", "Statements sent by clients."},
      {&CoreStatus::queries, "Queries", "Statements executed, including those in stored programs."},
      {&CoreStatus::bytes_received, "Bytes_received", "Bytes received from clients."},
      {&CoreStatus::bytes_sent, "Bytes_sent", "Bytes sent to clients."},
      {&CoreStatus::slow_queries, "Slow_queries", "Statements that took longer than long_query_time."},
      {&CoreStatus::com_select, "Com_select", "SELECT statements."},
      {&CoreStatus::com_insert, "Com_insert", "INSERT statements."},
      {&CoreStatus::com_update, "Com_update", "UPDATE statements."},
      {&CoreStatus::com_delete, "Com_delete", "DELETE statements."},
      {&CoreStatus::com_replace, "Com_replace", "REPLACE statements."},
      {&CoreStatus::com_set_option, "Com_set_option", "SET statements."},
      {&CoreStatus::com_begin, "Com_begin", "BEGIN and START TRANSACTION statements."},
      {&CoreStatus::com_commit, "Com_commit", "COMMIT statements."},
      {&CoreStatus::com_rollback, "Com_rollback", "ROLLBACK statements."},
      {&CoreStatus::com_change_db, "Com_change_db", "USE statements and COM_INIT_DB."},
      {&CoreStatus::com_create_db, "Com_create_db", "CREATE DATABASE statements."},
      {&CoreStatus::com_drop_db, "Com_drop_db", "DROP DATABASE statements."},
      {&CoreStatus::com_create_table, "Com_create_table", "CREATE TABLE statements."},
      {&CoreStatus::com_drop_table, "Com_drop_table", "DROP TABLE statements."},
      {&CoreStatus::com_alter_table, "Com_alter_table", "ALTER TABLE statements."},
      {&CoreStatus::com_create_index, "Com_create_index", "CREATE INDEX statements."},
      {&CoreStatus::com_savepoint, "Com_savepoint", "SAVEPOINT statements."},
      {&CoreStatus::com_rollback_to_savepoint, "Com_rollback_to_savepoint", "ROLLBACK TO SAVEPOINT statements."},
      {&CoreStatus::com_release_savepoint, "Com_release_savepoint", "RELEASE SAVEPOINT statements."},
      {&CoreStatus::com_lock_tables, "Com_lock_tables", "LOCK TABLES statements."},
      {&CoreStatus::com_unlock_tables, "Com_unlock_tables", "UNLOCK TABLES statements."},
      {&CoreStatus::com_drop_index, "Com_drop_index", "DROP INDEX statements."},
      {&CoreStatus::com_rename_table, "Com_rename_table", "RENAME TABLE statements."},
      {&CoreStatus::com_truncate, "Com_truncate", "TRUNCATE TABLE statements."},
      {&CoreStatus::com_create_user, "Com_create_user", "CREATE USER statements."},
      {&CoreStatus::com_drop_user, "Com_drop_user", "DROP USER statements."},
      {&CoreStatus::com_grant, "Com_grant", "GRANT statements."},
      {&CoreStatus::com_revoke, "Com_revoke", "REVOKE statements."},
      {&CoreStatus::com_kill, "Com_kill", "KILL statements."},
      {&CoreStatus::com_flush, "Com_flush", "FLUSH statements."},
      {&CoreStatus::com_install_plugin, "Com_install_plugin", "INSTALL PLUGIN statements."},
      {&CoreStatus::com_uninstall_plugin, "Com_uninstall_plugin", "UNINSTALL PLUGIN statements."},
      {&CoreStatus::com_show_variables, "Com_show_variables", "SHOW VARIABLES statements."},
      {&CoreStatus::com_show_status, "Com_show_status", "SHOW STATUS statements."},
      {&CoreStatus::com_show_databases, "Com_show_databases", "SHOW DATABASES statements."},
      {&CoreStatus::com_show_tables, "Com_show_tables", "SHOW TABLES statements."},
      {&CoreStatus::com_show_warnings, "Com_show_warnings", "SHOW WARNINGS statements."},
      {&CoreStatus::com_show_errors, "Com_show_errors", "SHOW ERRORS statements."},
      {&CoreStatus::com_show_processlist, "Com_show_processlist", "SHOW PROCESSLIST statements."},
      {&CoreStatus::com_show_binlogs, "Com_show_binlogs", "SHOW BINARY LOGS statements."},
      {&CoreStatus::com_show_binlog_events, "Com_show_binlog_events", "SHOW BINLOG EVENTS statements."},
      {&CoreStatus::com_purge, "Com_purge", "PURGE BINARY LOGS TO statements."},
      {&CoreStatus::com_purge_before_date, "Com_purge_before_date", "PURGE BINARY LOGS BEFORE statements."},
      {&CoreStatus::com_reset, "Com_reset", "RESET MASTER statements."},
      {&CoreStatus::com_show_master_status, "Com_show_master_status",
       "SHOW MASTER STATUS statements."},
      {&CoreStatus::com_show_replicas, "Com_show_replicas", "SHOW REPLICAS (SLAVE HOSTS) statements."},
      {&CoreStatus::com_stmt_prepare, "Com_stmt_prepare", "Statements prepared (COM_STMT_PREPARE)."},
      {&CoreStatus::com_stmt_execute, "Com_stmt_execute", "Prepared statements executed."},
      {&CoreStatus::com_stmt_close, "Com_stmt_close", "Prepared statements closed."},
      {&CoreStatus::com_admin_commands, "Com_admin_commands",
       "Protocol commands other than queries: COM_PING, COM_STATISTICS, ..."},
  };
  for (const SessionName& c : session_counters) {
    Result<SessionCounter> r = status.RegisterSessionCounter(c.name, c.help);
    if (!r.ok()) return r.status();
    core.*c.field = *r;
  }

  struct GlobalName {
    GlobalCounter* CoreStatus::*field;
    const char* name;
    const char* help;
  };
  const GlobalName global_counters[] = {
      {&CoreStatus::connections, "Connections", "Connection attempts, successful or not."},
      {&CoreStatus::aborted_clients, "Aborted_clients",
       "Connections that ended without COM_QUIT (client died or timed out)."},
      {&CoreStatus::aborted_connects, "Aborted_connects", "Failed connection attempts."},
      {&CoreStatus::threads_created, "Threads_created", "Threads created to handle connections."},
      {&CoreStatus::max_used_connections, "Max_used_connections",
       "Most connections open at once since start or FLUSH STATUS."},
      {&CoreStatus::ssl_accepts, "Ssl_accepts", "TLS handshakes attempted."},
      {&CoreStatus::ssl_finished_accepts, "Ssl_finished_accepts", "TLS handshakes completed."},
  };
  for (const GlobalName& c : global_counters) {
    Result<GlobalCounter*> r = status.RegisterGlobalCounter(c.name, c.help);
    if (!r.ok()) return r.status();
    core.*c.field = *r;
  }

  auto number = [](std::function<uint64_t()> fn) -> StatusProvider {
    return [fn = std::move(fn)](const SessionStatus*) { return std::to_string(fn ? fn() : 0); };
  };
  SLUICE_RETURN_IF_ERROR(status.RegisterProvider(
      "Uptime", "Seconds since the server started.", number(std::move(providers.uptime_seconds))));
  SLUICE_RETURN_IF_ERROR(status.RegisterProvider("Threads_connected", "Open connections.",
                                                 number(std::move(providers.threads_connected))));
  SLUICE_RETURN_IF_ERROR(status.RegisterProvider("Threads_running",
                                                 "Connections executing a statement now.",
                                                 number(std::move(providers.threads_running))));
  SLUICE_RETURN_IF_ERROR(status.RegisterProvider("Threads_cached", "Idle threads kept for reuse.",
                                                 number(std::move(providers.threads_cached))));
  auto empty = [](const SessionStatus*) { return std::string(); };
  SLUICE_RETURN_IF_ERROR(
      status.RegisterProvider("Ssl_cipher", "The connection's TLS cipher; empty without TLS.", empty));
  SLUICE_RETURN_IF_ERROR(status.RegisterProvider(
      "Ssl_version", "The connection's TLS protocol version; empty without TLS.", empty));
  return core;
}

}  // namespace sluice::vars
