// vars/core_status.h
//
// The server's own status variables with MySQL's names: the handles the
// server bumps (Questions, Com_*, Bytes_*, Connections, ...) and providers
// for values it computes (Uptime, Threads_*). Storage, binlog and plugins
// register theirs themselves.
//
// Thread-safety: RegisterCoreStatus() once at start; the handles are plain
// values, usable from any thread.
#pragma once

#include <cstdint>
#include <functional>

#include "base/status.h"
#include "vars/status_vars.h"

namespace sluice::vars {

// Sources of computed values; a missing one reads 0.
struct CoreStatusProviders {
  std::function<uint64_t()> uptime_seconds;     // Uptime
  std::function<uint64_t()> threads_connected;  // Threads_connected: open connections
  std::function<uint64_t()> threads_running;    // Threads_running: connections executing now
  std::function<uint64_t()> threads_cached;     // Threads_cached
};

struct CoreStatus {
  // Per session (SessionStatus::Add).
  SessionCounter questions;       // statements clients sent (COM_QUERY, COM_STMT_EXECUTE)
  SessionCounter queries;         // statements run, stored programs included
  SessionCounter bytes_received;
  SessionCounter bytes_sent;
  SessionCounter slow_queries;
  SessionCounter com_select;
  SessionCounter com_insert;
  SessionCounter com_update;
  SessionCounter com_delete;
  SessionCounter com_replace;
  SessionCounter com_set_option;  // SET statements
  SessionCounter com_begin;
  SessionCounter com_commit;
  SessionCounter com_rollback;
  SessionCounter com_change_db;
  SessionCounter com_create_db;
  SessionCounter com_drop_db;
  SessionCounter com_create_table;
  SessionCounter com_drop_table;
  SessionCounter com_alter_table;
  SessionCounter com_create_index;
  SessionCounter com_savepoint;
  SessionCounter com_rollback_to_savepoint;
  SessionCounter com_release_savepoint;
  SessionCounter com_lock_tables;
  SessionCounter com_unlock_tables;
  SessionCounter com_drop_index;
  SessionCounter com_rename_table;
  SessionCounter com_truncate;
  SessionCounter com_create_user;
  SessionCounter com_drop_user;
  SessionCounter com_grant;
  SessionCounter com_revoke;
  SessionCounter com_kill;
  SessionCounter com_flush;
  SessionCounter com_install_plugin;
  SessionCounter com_uninstall_plugin;
  SessionCounter com_show_variables;
  SessionCounter com_show_status;
  SessionCounter com_show_databases;
  SessionCounter com_show_tables;
  SessionCounter com_show_warnings;
  SessionCounter com_show_errors;
  SessionCounter com_show_processlist;
  SessionCounter com_show_binlogs;
  SessionCounter com_show_master_status;
  SessionCounter com_show_binlog_events;
  SessionCounter com_purge;
  SessionCounter com_purge_before_date;
  SessionCounter com_reset;
  SessionCounter com_show_replicas;
  SessionCounter com_stmt_prepare;
  SessionCounter com_stmt_execute;
  SessionCounter com_stmt_close;
  SessionCounter com_admin_commands;  // COM_PING, COM_STATISTICS, ...
  // Outside sessions (GlobalCounter::Add / UpdateMax).
  GlobalCounter* connections = nullptr;       // connection attempts, successful or not
  GlobalCounter* aborted_clients = nullptr;   // connections dropped without COM_QUIT
  GlobalCounter* aborted_connects = nullptr;  // failed handshakes and logins
  GlobalCounter* threads_created = nullptr;
  GlobalCounter* max_used_connections = nullptr;
  GlobalCounter* ssl_accepts = nullptr;
  GlobalCounter* ssl_finished_accepts = nullptr;
};

// Registers the names above, plus Uptime, Threads_connected,
// Threads_running, Threads_cached (from `providers`) and Ssl_cipher,
// Ssl_version (empty unless a session binds them with
// SessionStatus::BindComputed). InvalidArgument when a name is taken.
Result<CoreStatus> RegisterCoreStatus(StatusVariables& status, CoreStatusProviders providers);

}  // namespace sluice::vars
