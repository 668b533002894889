// server/session_state.h
//
// SessionState: one connection's state as the server holds it. Its base is
// the SQL state statements read and change (exec::SessionContext: all that
// exec/ sees); the rest is what only the connection knows: the capabilities
// client and server agreed on (wire encoding: CLIENT_DEPRECATE_EOF,
// CLIENT_MULTI_STATEMENTS, ...), TLS, the peer's address and the bytes the
// session's I/O counted.
//
// Thread-safety: as exec::SessionContext: one thread at a time (the
// session's coroutine or the worker running its command).
#pragma once

#include <cstdint>
#include <string>

#include "exec/session_context.h"

namespace sluice::server {

struct SessionState : exec::SessionContext {
  uint32_t capabilities = 0;      // effective (server & client)
  bool secure_transport = false;  // TLS, or the Unix socket
  std::string tls_version;        // "TLSv1.3" once TLS is up
  std::string tls_cipher;
  std::string peer;               // "host:port" for the process list
  uint64_t bytes_received = 0;    // by the session's I/O
  uint64_t bytes_sent = 0;
};

}  // namespace sluice::server
