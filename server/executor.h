// server/executor.h
//
// Executor: runs one client command (COM_QUERY and the other non-I/O
// commands) against a SessionContext and returns the response payloads.
// Runs on a WorkerPool thread; never called on an I/O thread.
//
// Thread-safety: Dispatch may run concurrently for different sessions;
// one call at a time per SessionContext.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "server/session_context.h"

namespace sluice::server {

class Server;

struct Response {
  std::vector<std::string> payloads;  // framed with consecutive sequence ids
  bool close_connection = false;      // after sending (KILL of self, SHUTDOWN)
};

class Executor {
 public:
  explicit Executor(Server& server) : server_(server) {}

  // `packet` is the whole command packet (command byte first).
  Response Dispatch(SessionContext& ctx, std::string_view packet);

  // Checks that `db` exists and the account may use it (1049, 1044); on
  // success makes it the session's database. Used by COM_INIT_DB, USE and
  // the handshake's database.
  Status UseDatabase(SessionContext& ctx, const std::string& db);

  // Sets up a freshly authenticated session (variables, status counters).
  void InitSession(SessionContext& ctx);
  // Folds a closing session's counters into the global totals.
  void EndSession(SessionContext& ctx);

  // Registers the core system variables (at start, before listening).
  Status RegisterVariables();

  // Current values the session's I/O needs; cheap, any thread.
  size_t MaxAllowedPacket(const SessionContext& ctx) const;
  uint64_t ConnectTimeout() const;
  uint64_t MaxConnections() const;
  bool RequireSecureTransport() const;
  uint64_t IdleTimeout(const SessionContext& ctx) const;  // wait_ or interactive_timeout
  uint64_t NetTimeout(const SessionContext& ctx, bool write) const;  // net_read/write_timeout
  uint16_t StatusFlags(const SessionContext& ctx) const;

 private:
  class Statement;  // runs one parsed statement (executor.cc)
  Response Query(SessionContext& ctx, std::string_view sql);
  uint64_t GlobalUInt(std::string_view name, uint64_t fallback) const;

  Server& server_;
};

}  // namespace sluice::server
