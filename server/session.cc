#include "server/session.h"

#include <spdlog/spdlog.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <map>
#include <optional>
#include <system_error>
#include <thread>

#include "acl/access_control.h"
#include "base/log.h"
#include "base/mutex.h"
#include "base/mysql_error.h"
#include "base/scratch.h"
#include "binlog/binlog.h"
#include "protocol/auth.h"
#include "protocol/constants.h"
#include "protocol/handshake.h"
#include "protocol/packet.h"
#include "protocol/response.h"
#include "server/executor.h"
#include "server/rpl/binlog_sender.h"
#include "server/run_on_worker.h"
#include "server/server.h"
#include "sql/json.h"
#include "sql/lexer.h"
#include "storage/engine/engine.h"
#include "vars/core_status.h"
#include "vars/sys_vars.h"

#define SLUICE_CO_RETURN_IF_ERROR(expr)  \
  do {                                   \
    ::sluice::Status _st = (expr);       \
    if (!_st.ok()) co_return _st;        \
  } while (0)

namespace sluice::server {
namespace p = sluice::protocol;
using exec::KillState;
using exec::SessionContext;
using namespace std::chrono_literals;

namespace {

// Pre-authentication packets are small; a larger one is refused before any
// allocation, whatever max_allowed_packet says.
constexpr size_t kMaxHandshakePacket = 1 << 20;

bool IsLoopback(const std::string& ip) {
  return ip == "127.0.0.1" || ip == "::1" || ip == "::ffff:127.0.0.1" || ip.rfind("127.", 0) == 0;
}

}  // namespace

// What a client sent to log in: HandshakeResponse41 or COM_CHANGE_USER
// (whose reply is computed over the last scramble the client was sent).
struct LoginRequest {
  p::HandshakeResponse41 response;
};

Session::Peer Session::TcpPeer(const tcp::socket& socket) {
  Peer p;
  error_code ec;
  auto ep = socket.remote_endpoint(ec);
  if (!ec) {
    auto addr = ep.address();
    if (addr.is_v6() && addr.to_v6().is_v4_mapped()) {
      addr = asio::ip::make_address_v4(asio::ip::v4_mapped, addr.to_v6());
    }
    p.ip = addr.to_string();
    p.host = IsLoopback(p.ip) ? "localhost" : p.ip;
    p.peer = p.host + ":" + std::to_string(ep.port());
  }
  return p;
}

Session::Peer Session::UnixPeer() {
  Peer p;
  p.host = "localhost";
  p.peer = "localhost";
  p.local_socket = true;
  return p;
}

Session::Session(Server& server, StreamSocket socket, Peer peer, uint32_t connection_id)
    : server_(server),
      socket_(std::move(socket)),
      fd_(socket_.native_handle()),
      timer_(socket_.get_executor()),
      watch_timer_(socket_.get_executor()) {
  ctx_.connection_id = connection_id;
  ctx_.mdl.id = connection_id;
  remote_ip_ = std::move(peer.ip);
  ctx_.host = std::move(peer.host);
  ctx_.peer = std::move(peer.peer);
  // MySQL counts the Unix socket as secure (require_secure_transport,
  // caching_sha2_password's cleartext full authentication).
  ctx_.secure_transport = peer.local_socket;
  ctx_.SetProcessIdentity("unauthenticated user", ctx_.peer, "");
}

Session::~Session() {
  if (released_) ::close(fd_);  // the coroutine ended while a worker held it
}

void Session::Start() {
  auto self = shared_from_this();
  asio::co_spawn(socket_.get_executor(), Run(), [self](std::exception_ptr e) {
    if (e) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        SLUICE_LOG_ERROR(self->server_.log(), 1105, "connection {} ended by an internal error: {}",
                         self->id(), ex.what());
      }
    }
  });
}

void Session::Kill(bool connection) {
  // KILL CONNECTION of a statement running on a worker (or a dump): the
  // socket is shut before the flag is raised, so the statement, stopping
  // at the flag, cannot still get an ERR 1317 out first; its client sees
  // the connection lost whatever the timing, as MySQL's does.
  bool shut = false;
  if (connection) {
    MutexLock l(&socket_mu_);
    if (socket_holder_ == SocketHolder::kDumpThread || socket_holder_ == SocketHolder::kWorker) {
      ::shutdown(fd_, SHUT_RDWR);
      shut = true;
    }
  }
  int want = static_cast<int>(connection ? KillState::kConnection : KillState::kQuery);
  int cur = ctx_.killed.load();
  while (cur < want && !ctx_.killed.compare_exchange_weak(cur, want)) {
  }
  // A statement waiting for a row lock stops waiting (1317); one that
  // is running notices the flag at its next row.
  ctx_.WithPublishedTrx([this](storage::EngineTrx& trx) { server_.engine().CancelLockWait(trx); });
  // KILL [QUERY] of a dump connection ends the dump (and so the connection).
  dump_stop_.store(true, std::memory_order_relaxed);
  if (shut) return;
  {
    MutexLock l(&socket_mu_);
    if (socket_holder_ == SocketHolder::kDumpThread) {
      ::shutdown(fd_, SHUT_RDWR);
      return;
    }
    if (socket_holder_ != SocketHolder::kStrand) return;  // KILL QUERY: the statement sees the flag
  }
  if (connection) {
    auto self = shared_from_this();
    asio::post(socket_.get_executor(), [self] { self->CloseSocket(); });
  }
}

void Session::Shutdown() { Kill(true); }

void Session::HoldSocket(SocketHolder h) {
  MutexLock l(&socket_mu_);
  socket_holder_ = h;
}

bool Session::SocketHeldByThread() {
  MutexLock l(&socket_mu_);
  return socket_holder_ != SocketHolder::kStrand;
}

void Session::CloseSocket() {
  if (SocketHeldByThread()) return;  // Kill() shut it down; the coroutine closes it after the thread
  error_code ec;
  timer_.cancel();
  watch_timer_.cancel();
  StreamSocket& s = tls_ ? tls_->next_layer() : socket_;
  if (s.is_open()) {
    s.shutdown(asio::socket_base::shutdown_both, ec);
    s.close(ec);
  }
}

namespace {
// How often a running command's socket is polled for a hang-up; with the
// statement's own checks per row, a vanished client's statement stops
// within about this long.
constexpr auto kClientWatchInterval = std::chrono::milliseconds(50);

// Writes all of `data` to a socket that asio does not hold (a worker's
// replies, a dump's events): non-blocking sends, and a poll while the
// socket is full, of up to `timeout_ms` each (-1: no limit). Returns 0, or
// the errno that ended it (ETIMEDOUT when a poll ran out).
int SendAll(int fd, std::string_view data, int timeout_ms) {
  size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd pfd{fd, POLLOUT, 0};
      const int rc = ::poll(&pfd, 1, timeout_ms);
      if (rc == 0) return ETIMEDOUT;
      if (rc < 0 && errno != EINTR) return errno;
      continue;
    }
    return n < 0 ? errno : EIO;
  }
  return 0;
}
}  // namespace

bool Session::ClientHungUp() {
  StreamSocket& s = tls_ ? tls_->next_layer() : socket_;
  if (!released_ && !s.is_open()) return false;  // closed by KILL or shutdown: already killed
  // POLLRDHUP: the peer shut its side down, even with unread bytes queued
  // (a pipelined command, or a TLS close_notify) in front of the FIN.
  pollfd p{fd_, POLLRDHUP, 0};
  if (::poll(&p, 1, 0) != 1) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

void Session::ReleaseToWorker() {
  if (tls_ || released_) return;
  error_code ec;
  const auto local = socket_.local_endpoint(ec);
  if (ec) return;
  protocol_ = local.protocol();
  socket_.release(ec);
  released_ = !ec;
}

bool Session::ReclaimFromWorker() {
  if (!released_) return true;
  released_ = false;
  error_code ec;
  socket_.assign(protocol_, fd_, ec);
  if (!ec) return true;
  ::close(fd_);  // not asio's any more: nobody else would close it
  return false;
}

void Session::StartClientWatch() {
  watching_ = true;
  watch_timer_.expires_after(kClientWatchInterval);
  std::weak_ptr<Session> weak = shared_from_this();
  watch_timer_.async_wait([weak](error_code ec) {
    auto self = weak.lock();
    if (ec || !self || !self->watching_) return;
    if (self->ctx_.kill_state() == KillState::kConnection) return;
    if (!self->idle_on_worker_.load(std::memory_order_relaxed) && self->ClientHungUp()) {
      int cur = self->ctx_.killed.load();
      const int want = static_cast<int>(KillState::kConnection);
      while (cur < want && !self->ctx_.killed.compare_exchange_weak(cur, want)) {
      }
      self->server_.core_status().aborted_clients->Add();
      return;
    }
    self->StartClientWatch();
  });
}

namespace {
// How often the strand looks at a TLS dump's write in progress
// (WatchDumpWrites); a stalled write ends within this of net_write_timeout.
constexpr auto kDumpWriteWatchInterval = std::chrono::milliseconds(250);

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void Session::WatchDumpWrites(std::chrono::nanoseconds timeout) {
  timer_.expires_after(std::min<std::chrono::nanoseconds>(timeout, kDumpWriteWatchInterval));
  std::weak_ptr<Session> weak = shared_from_this();
  timer_.async_wait([weak, timeout](error_code ec) {
    auto self = weak.lock();
    // Cancelled, or the dump ended while this wait was already done (the
    // timer may be the net timeout's again by now).
    if (ec || !self || !self->watching_dump_writes_) return;
    const int64_t since = self->dump_write_.since_ns.load(std::memory_order_relaxed);
    if (since != 0 && SteadyNowNs() - since >= timeout.count()) {
      self->dump_write_.timed_out.store(true, std::memory_order_relaxed);
      self->ShutDownUnderDumpThread();
      return;
    }
    self->WatchDumpWrites(timeout);
  });
}

void Session::ShutDownUnderDumpThread() {
  MutexLock l(&socket_mu_);
  if (socket_holder_ == SocketHolder::kDumpThread) ::shutdown(fd_, SHUT_RDWR);
}

void Session::StopClientWatch() {
  watching_ = false;
  watch_timer_.cancel();
}

void Session::ArmTimer(std::chrono::seconds timeout) {
  timer_.expires_after(timeout);
  std::weak_ptr<Session> weak = shared_from_this();
  timer_.async_wait([weak](error_code ec) {
    if (ec) return;  // cancelled: the operation finished in time
    if (auto self = weak.lock()) {
      self->timed_out_ = true;
      error_code ignore;
      StreamSocket& s = self->tls_ ? self->tls_->next_layer() : self->socket_;
      s.cancel(ignore);
    }
  });
}

asio::awaitable<size_t> Session::ReadExact(asio::mutable_buffer b, error_code& ec) {
  const size_t ahead = TakeReadAhead(static_cast<char*>(b.data()), b.size());
  if (ahead == b.size()) co_return ahead;
  b += ahead;
  if (tls_) co_return ahead + co_await asio::async_read(*tls_, b, asio::redirect_error(asio::use_awaitable, ec));
  co_return ahead + co_await asio::async_read(socket_, b, asio::redirect_error(asio::use_awaitable, ec));
}

size_t Session::TakeReadAhead(char* out, size_t size) {
  const size_t n = std::min(size, in_.size());
  if (n == 0) return 0;
  std::memcpy(out, in_.data(), n);
  in_.pos += n;
  return n;
}

template <typename Buffers>
asio::awaitable<size_t> Session::WriteAll(const Buffers& b, error_code& ec) {
  if (tls_) co_return co_await asio::async_write(*tls_, b, asio::redirect_error(asio::use_awaitable, ec));
  co_return co_await asio::async_write(socket_, b, asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<Result<std::string>> Session::ReadPacket(std::chrono::seconds timeout,
                                                          bool new_command) {
  if (new_command) next_seq_ = 0;
  size_t limit = ctx_.account ? server_.options().max_allowed_packet : kMaxHandshakePacket;
  if (ctx_.vars) limit = server_.executor().MaxAllowedPacket(ctx_);
  p::PayloadAssembler assembler(limit);
  assembler.Start(next_seq_);
  // net_read_timeout bounds the rest of a packet once its first byte came.
  const auto continuation_timeout = std::chrono::seconds(server_.executor().NetTimeout(ctx_, /*write=*/false));
  bool first = true;
  while (!assembler.complete()) {
    uint8_t header[p::kHeaderSize];
    error_code ec;
    timed_out_ = false;
    ArmTimer(first ? timeout : continuation_timeout);
    co_await ReadExact(asio::buffer(header), ec);
    if (ec) {
      timer_.cancel();
      co_return Status::IOError(timed_out_ ? "timeout" : ec.message());
    }
    p::FrameHeader h = p::ParseFrameHeader(header);
    Status st = assembler.OnHeader(h);
    if (!st.ok()) {
      timer_.cancel();
      co_return st;
    }
    if (h.length > 0) {
      std::string chunk(h.length, '\0');
      if (first) ArmTimer(continuation_timeout);
      co_await ReadExact(asio::buffer(chunk), ec);
      if (ec) {
        timer_.cancel();
        co_return Status::IOError(timed_out_ ? "timeout" : ec.message());
      }
      ctx_.bytes_received += p::kHeaderSize + h.length;
      assembler.AppendChunk(chunk);
    } else {
      assembler.AppendChunk({});
    }
    first = false;
  }
  timer_.cancel();
  next_seq_ = assembler.next_seq();
  co_return assembler.TakePayload();
}

namespace {
// Appends `payloads` to `out`, framed with sequence ids from *seq.
void Frame(const p::Payloads& payloads, uint8_t* seq, std::string* out) {
  // A payload of 16 MiB or more is split into more frames: AppendPacket
  // grows `out` for those.
  out->reserve(out->size() + payloads.total_bytes() + payloads.size() * p::kHeaderSize);
  for (size_t i = 0; i < payloads.size(); ++i) p::AppendPacket(out, seq, payloads[i]);
}
}  // namespace

asio::awaitable<Status> Session::WritePackets(const p::Payloads& payloads) {
  std::string out;
  Frame(payloads, &next_seq_, &out);
  error_code ec;
  // net_write_timeout: a client that stops reading does not hold the
  // session (and its buffered response) forever.
  timed_out_ = false;
  ArmTimer(std::chrono::seconds(server_.executor().NetTimeout(ctx_, /*write=*/true)));
  co_await WriteAll(asio::buffer(out), ec);
  timer_.cancel();
  if (ec) co_return Status::IOError(timed_out_ ? "timeout writing to the client" : ec.message());
  ctx_.bytes_sent += out.size();
  co_return Status::OK();
}

asio::awaitable<Status> Session::WritePacket(std::string payload) {
  p::Payloads one;
  one.push_back(payload);
  co_return co_await WritePackets(one);
}

asio::awaitable<Status> Session::WriteError(const Status& st) {
  bool p41 = ctx_.capabilities == 0 || (ctx_.capabilities & p::CLIENT_PROTOCOL_41);
  co_return co_await WritePacket(p::EncodeErr(st, p41));
}

void Session::TakeSlot() {
  if (!holds_slot_.exchange(true)) server_.TakeConnectionSlot();
}

void Session::GiveBackSlot() {
  if (holds_slot_.exchange(false)) server_.GiveBackConnectionSlot();
}

asio::awaitable<void> Session::WriteLastError(const Status& st, bool p41) {
  GiveBackSlot();
  if (p41) {
    co_await WriteError(st);
  } else {
    co_await WritePacket(p::EncodeErr(st, false));
  }
}

asio::awaitable<void> Session::Run() {
  server_.core_status().connections->Add();
  Status st = co_await Handshake();
  if (st.ok()) {
    co_await CommandLoop();
  } else {
    server_.core_status().aborted_connects->Add();
  }
  if (ctx_.vars) server_.executor().EndSession(ctx_);
  server_.UnregisterReplicaOf(id());
  GiveBackSlot();
  CloseSocket();
  server_.RemoveSession(id());
}

asio::awaitable<Status> Session::Handshake() {
  const auto connect_timeout = std::chrono::seconds(server_.executor().ConnectTimeout());
  if (server_.shutting_down()) {
    Status st = MakeError(er::kServerShutdown);
    co_await WriteLastError(st, /*p41=*/false);
    co_return st;
  }
  if (server_.connection_slots_in_use() > server_.executor().MaxConnections() + 1) {
    Status st = MakeError(er::kConCount);
    co_await WriteLastError(st, /*p41=*/false);
    co_return st;
  }
  uint32_t caps = p::kServerCapabilities;
  if (server_.tls_context()) caps |= p::CLIENT_SSL;
  scramble_ = p::GenerateScramble();
  p::HandshakeV10 greeting;
  greeting.server_version = kServerVersion;
  greeting.connection_id = id();
  greeting.scramble = scramble_;
  greeting.capabilities = caps;
  greeting.collation = p::kCollationUtf8mb4_0900_ai_ci;
  greeting.status_flags = p::SERVER_STATUS_AUTOCOMMIT;
  greeting.auth_plugin = server_.options().default_authentication_plugin;
  next_seq_ = 0;
  SLUICE_CO_RETURN_IF_ERROR(co_await WritePacket(p::EncodeHandshakeV10(greeting)));

  auto packet = co_await ReadPacket(connect_timeout, false);
  if (!packet.ok()) {
    if (packet.status().mysql_errno() != 1105) co_await WriteLastError(packet.status());
    co_return packet.status();
  }
  if (p::IsSslRequest(packet.value())) {
    if (!server_.tls_context()) {
      Status st = MakeError(er::kHandshake);
      co_await WriteLastError(st);
      co_return st;
    }
    tls_.emplace(std::move(socket_), *server_.tls_context());
    error_code ec;
    timed_out_ = false;
    ArmTimer(connect_timeout);
    server_.core_status().ssl_accepts->Add();  // attempted
    co_await tls_->async_handshake(asio::ssl::stream_base::server,
                                   asio::redirect_error(asio::use_awaitable, ec));
    timer_.cancel();
    if (ec) co_return Status::IOError("TLS handshake failed: " + ec.message());
    server_.core_status().ssl_finished_accepts->Add();  // completed
    ctx_.secure_transport = true;
    ctx_.tls_version = SSL_get_version(tls_->native_handle());
    ctx_.tls_cipher = SSL_get_cipher_name(tls_->native_handle());
    packet = co_await ReadPacket(connect_timeout, false);
    if (!packet.ok()) {
      if (packet.status().mysql_errno() != 1105) co_await WriteLastError(packet.status());
      co_return packet.status();
    }
  }
  auto response = p::ParseHandshakeResponse41(packet.value(), caps);
  if (!response.ok()) {
    co_await WriteLastError(response.status());
    co_return response.status();
  }
  ctx_.capabilities = response->client_flags & caps;
  ctx_.collation = response->collation;
  LoginRequest req{std::move(response).value()};
  co_return co_await Authenticate(req);
}

asio::awaitable<Status> Session::Authenticate(const LoginRequest& req) {
  const auto connect_timeout = std::chrono::seconds(server_.executor().ConnectTimeout());
  const p::HandshakeResponse41& r = req.response;
  acl::AccessControl& acl = server_.acl();
  ctx_.user = r.user;
  const char* using_password = r.auth_response.empty() ? "NO" : "YES";
  auto deny = [&]() { return MakeError(er::kAccessDenied, ctx_.user, ctx_.host, using_password); };

  acl::ClientHost client{remote_ip_, ctx_.host == "localhost" ? "localhost" : ""};
  auto account = acl.FindAccountForLogin(r.user, client);
  if (!account) {
    Status st = deny();
    SLUICE_LOG_NOTE(server_.log(), 10926, "Access denied for user '{}'@'{}' (unknown account)", r.user, ctx_.host);
    co_await WriteLastError(st);
    co_return st;
  }

  std::string client_plugin = r.client_plugin;
  if (client_plugin.empty()) client_plugin = p::kNativePasswordPlugin;
  std::string auth_data = r.auth_response;
  const std::string& plugin = account->plugin;
  // A client that answered the greeting with an empty response for an
  // account that has a password did not use the greeting's plugin (MariaDB
  // clients without caching_sha2_password do this): it gets an
  // AuthSwitchRequest to the account's plugin, as mysqld sends it.
  const bool empty_reply = auth_data.empty() && !account->auth_string.empty();
  if (client_plugin != plugin || (empty_reply && (ctx_.capabilities & p::CLIENT_PLUGIN_AUTH))) {
    if (!(ctx_.capabilities & p::CLIENT_PLUGIN_AUTH)) {
      Status st = MakeError(er::kNotSupportedAuthMode);
      co_await WriteLastError(st);
      co_return st;
    }
    scramble_ = p::GenerateScramble();
    SLUICE_CO_RETURN_IF_ERROR(co_await WritePacket(p::EncodeAuthSwitchRequest(plugin, scramble_)));
    auto reply = co_await ReadPacket(connect_timeout, false);
    if (!reply.ok()) co_return reply.status();
    auth_data = std::move(reply).value();
    using_password = auth_data.empty() || auth_data == std::string(1, '\0') ? "NO" : "YES";
  }
  if (auth_data.size() == 1 && auth_data[0] == '\0') auth_data.clear();

  bool ok = false;
  if (plugin == p::kNativePasswordPlugin) {
    ok = acl.VerifyNativeReply(*account, scramble_, auth_data);
  } else if (plugin == p::kCachingSha2Plugin) {
    if (auth_data.empty() || account->auth_string.empty()) {
      ok = auth_data.empty() && account->auth_string.empty();
    } else {
      switch (acl.VerifyCachingSha2Fast(*account, scramble_, auth_data)) {
        case acl::Sha2FastAuth::kOk:
          ok = true;
          SLUICE_CO_RETURN_IF_ERROR(co_await WritePacket(p::EncodeAuthMoreData("\x03")));
          break;
        case acl::Sha2FastAuth::kMismatch:
          ok = false;
          break;
        case acl::Sha2FastAuth::kNotCached: {
          SLUICE_CO_RETURN_IF_ERROR(co_await WritePacket(p::EncodeAuthMoreData("\x04")));
          auto reply = co_await ReadPacket(connect_timeout, false);
          if (!reply.ok()) co_return reply.status();
          std::string password;
          bool have_password = false;
          if (ctx_.secure_transport) {
            password = std::move(reply).value();
            have_password = true;
          } else if (reply.value() == "\x02" || reply.value() == "\x01") {
            // The client asks for our RSA public key, then sends the
            // password XOR the scramble, RSA-OAEP encrypted.
            SLUICE_CO_RETURN_IF_ERROR(
                co_await WritePacket(p::EncodeAuthMoreData(server_.rsa_keys().public_pem())));
            auto encrypted = co_await ReadPacket(connect_timeout, false);
            if (!encrypted.ok()) co_return encrypted.status();
            auto plain = server_.rsa_keys().DecryptOaep(encrypted.value());
            if (plain.ok()) {
              password = p::XorWithScramble(plain.value(), scramble_);
              have_password = true;
            }
          } else if (reply.value().size() == 256 || reply.value().size() == 512) {
            // Client already had the public key (--server-public-key-path).
            auto plain = server_.rsa_keys().DecryptOaep(reply.value());
            if (plain.ok()) {
              password = p::XorWithScramble(plain.value(), scramble_);
              have_password = true;
            }
          }
          // A cleartext password over plain TCP is refused: it was exposed.
          if (have_password) {
            while (!password.empty() && password.back() == '\0') password.pop_back();
            ok = acl.VerifyCleartext(*account, password);
            if (ok) acl.CacheSha2Digest(*account, password);
          }
          break;
        }
      }
    }
  }
  if (!ok) {
    Status st = deny();
    SLUICE_LOG_NOTE(server_.log(), 10926, "Access denied for user '{}'@'{}'", ctx_.user, ctx_.host);
    co_await WriteLastError(st);
    co_return st;
  }
  if (server_.executor().RequireSecureTransport() && !ctx_.secure_transport) {
    Status st = MakeError(er::kSecureTransportRequired);
    co_await WriteLastError(st);
    co_return st;
  }
  if (account->locked) {
    Status st = MakeError(er::kAccountHasBeenLocked, ctx_.user, ctx_.host);
    co_await WriteLastError(st);
    co_return st;
  }
  if (account->password_expired && !(ctx_.capabilities & p::CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS)) {
    // disconnect_on_expired_password=ON: a client that cannot run in the
    // expired-password sandbox is refused.
    Status st = MakeError(er::kMustChangePasswordLogin);
    co_await WriteLastError(st);
    co_return st;
  }
  if (server_.connection_slots_in_use() > server_.executor().MaxConnections() &&
      !account->HasDynamicOrSuper("CONNECTION_ADMIN")) {
    // The last of max_connections + 1 slots is kept for an administrator.
    Status st = MakeError(er::kConCount);
    co_await WriteLastError(st);
    co_return st;
  }
  ctx_.account = account;
  ctx_.acl_version = acl.version();
  {
    bool mysqlbinlog = false, libmariadb = false;
    for (const auto& [k, v] : r.attributes) {
      if (k == "program_name" && v == "mysqlbinlog") mysqlbinlog = true;
      if (k == "_client_name" && v.find("mariadb") != std::string::npos) libmariadb = true;
    }
    ctx_.mariadb_binlog_client = mysqlbinlog && libmariadb;
  }
  ctx_.priv_user = account->user;
  ctx_.priv_host = account->host;
  server_.executor().InitSession(ctx_);
  ctx_.SetProcessIdentity(ctx_.user, ctx_.peer, "");
  if ((ctx_.capabilities & p::CLIENT_CONNECT_WITH_DB) && !r.database.empty()) {
    const std::string* db = &r.database;
    auto use_db = [this, db] { return server_.executor().UseDatabase(ctx_, *db); };
    Status st = co_await RunOnWorker(server_.workers(), std::move(use_db));
    if (!st.ok()) {
      co_await WriteLastError(st);
      co_return st;
    }
  }
  p::OkPacket ok_packet;
  ok_packet.status_flags = server_.executor().StatusFlags(ctx_);
  SLUICE_CO_RETURN_IF_ERROR(co_await WritePacket(p::EncodeOk(ok_packet, ctx_.capabilities)));
  ctx_.SetCommand("Sleep", "");
  co_return Status::OK();
}

asio::awaitable<void> Session::CommandLoop() {
  for (;;) {
    if (ctx_.kill_state() == KillState::kConnection) co_return;
    auto packet = co_await ReadPacket(std::chrono::seconds(server_.executor().IdleTimeout(ctx_)), true);
    if (!packet.ok()) {
      const Status& st = packet.status();
      if (timed_out_) {
        // MySQL 8.0.24+: tell the client why before closing.
        next_seq_ = 0;
        co_await WriteLastError(MakeError(er::kClientInteractionTimeout));
        server_.core_status().aborted_clients->Add();
      } else if (st.code() == Status::Code::kMySQL) {
        co_await WriteLastError(st);  // 1153, 1156: then close, as mysqld does
        server_.core_status().aborted_clients->Add();
      } else if (ctx_.kill_state() != KillState::kConnection && !server_.shutting_down()) {
        server_.core_status().aborted_clients->Add();
      }
      co_return;
    }
    // KILL CONNECTION may land while the next command was already in flight:
    // the connection ends without running it.
    if (ctx_.kill_state() == KillState::kConnection) co_return;
    std::string& pkt = packet.value();
    if (pkt.empty()) {
      co_await WriteError(MakeError(er::kMalformedPacket));
      continue;
    }
    uint8_t command = static_cast<uint8_t>(pkt[0]);
    if (command == p::COM_QUIT) {
      GiveBackSlot();
      co_return;
    }
    if (command == p::COM_BINLOG_DUMP || command == p::COM_BINLOG_DUMP_GTID) {
      if (co_await RunDump(pkt)) co_return;
      continue;
    }
    if (command == p::COM_CHANGE_USER) {
      // Re-authenticates on this connection; on failure the connection
      // closes, as mysqld does.
      auto change = p::ParseChangeUser(std::string_view(pkt).substr(1), ctx_.capabilities);
      if (!change.ok()) {
        co_await WriteError(change.status());
        continue;
      }
      server_.UnregisterReplicaOf(id());
      if (ctx_.vars) server_.executor().EndSession(ctx_);
      ctx_.ResetForChangeUser();
      LoginRequest req{std::move(change).value()};
      Status st = co_await Authenticate(req);
      if (!st.ok()) co_return;
      continue;
    }
    StartClientWatch();
    HoldSocket(SocketHolder::kWorker);
    ReleaseToWorker();
    auto serve = [this, &pkt] { return ServeOnWorker(pkt); };
    Served served = co_await RunOnWorker(server_.workers(), std::move(serve));
    const bool reclaimed = ReclaimFromWorker();
    HoldSocket(SocketHolder::kStrand);
    if (!reclaimed) {
      StopClientWatch();
      co_return;
    }
    StopClientWatch();
    if (served.over) co_return;
    if (!served.payloads.empty()) {
      Status st = co_await WritePackets(served.payloads);
      if (!st.ok()) co_return;
    }
    if (served.close_connection) co_return;
  }
}

namespace {
// How long a worker that has answered a command waits for the next one on
// the same connection before handing it back to the I/O thread. A busy
// client's next command usually comes well within it; a quiet connection
// holds no thread for longer.
constexpr int kStayOnWorkerMs = 50;
}  // namespace

Session::Served Session::ServeOnWorker(const std::string& packet) {
  if (reply_ == nullptr) reply_ = std::make_unique<Response>();
  Response& r = *reply_;
  auto run = [this, &r](std::string_view command) {
    // A KILL QUERY aimed at the previous statement does not carry over.
    int expected = static_cast<int>(KillState::kQuery);
    ctx_.killed.compare_exchange_strong(expected, static_cast<int>(KillState::kNone));
    server_.threads_running.fetch_add(1, std::memory_order_relaxed);
    server_.executor().Dispatch(ctx_, command, &r);
    server_.threads_running.fetch_sub(1, std::memory_order_relaxed);
  };
  run(packet);
  // TLS keeps its stream state in the coroutine's objects: those replies go
  // back to the strand. So do jobs run inline after the pool stopped.
  const bool stay = !tls_ && WorkerPool::OnWorkerThread();
  Served out;
  for (;;) {
    if (!stay || r.close_connection) {
      out.payloads = std::move(r.payloads);
      out.close_connection = r.close_connection;
      return out;
    }
    if (!r.payloads.empty() && !WriteOnWorker(r.payloads)) {
      out.over = true;
      return out;
    }
    const std::optional<std::string_view> next = NextCommandOnWorker();
    if (!next) return out;
    // KILL CONNECTION may land while the next command was already in
    // flight: the connection ends without running it.
    if (ctx_.kill_state() == KillState::kConnection) {
      out.over = true;
      return out;
    }
    run(*next);
  }
}

std::chrono::milliseconds Session::NetWriteTimeout() {
  // Capped at 2^20 s (12 days): in milliseconds it still fits poll's int.
  return std::chrono::seconds(std::min<uint64_t>(server_.executor().NetTimeout(ctx_, /*write=*/true), 1u << 20));
}

bool Session::WriteOnWorker(const p::Payloads& payloads) {
  Frame(payloads, &next_seq_, &out_);  // out_ is empty between replies
  // net_write_timeout: a client that stops reading does not hold the
  // session (and its reply) forever.
  const bool sent = SendAll(fd_, out_, static_cast<int>(NetWriteTimeout().count())) == 0;  // else timed out, or gone
  if (sent) ctx_.bytes_sent += out_.size();
  ClearScratch(out_);
  return sent;
}

namespace {
// What a worker reads at a time: a typical command, and whatever a
// pipelining client sent after it, in one recv(2).
constexpr size_t kInputChunk = 16 << 10;
}  // namespace

bool Session::ReadAheadOnWorker(size_t want) {
  want = std::max(want, kInputChunk);
  if (in_.pos == in_.end) in_.pos = in_.end = 0;
  if (in_.cap - in_.end < want) {
    // Move the unread bytes to the front, into a larger buffer if need be.
    const size_t unread = in_.size();
    const size_t cap = std::max(in_.cap, unread + want);
    if (cap != in_.cap) {
      auto grown = std::make_unique<char[]>(cap);
      if (unread != 0) std::memcpy(grown.get(), in_.data(), unread);
      in_.buf = std::move(grown);
      in_.cap = cap;
    } else if (unread != 0) {
      std::memmove(in_.buf.get(), in_.data(), unread);
    }
    in_.pos = 0;
    in_.end = unread;
  }
  ssize_t got;
  do {
    got = ::recv(fd_, in_.buf.get() + in_.end, in_.cap - in_.end, MSG_DONTWAIT);
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return false;
  in_.end += static_cast<size_t>(got);
  return true;
}

std::optional<std::string_view> Session::NextCommandOnWorker() {
  // A large packet's buffer is not kept once it has been used.
  if (in_.size() == 0 && in_.cap > kInputChunk) in_ = ReadAhead{};
  auto header = [this] { return p::ParseFrameHeader(reinterpret_cast<const uint8_t*>(in_.data())); };
  auto whole = [&] { return in_.size() > p::kHeaderSize && in_.size() >= p::kHeaderSize + header().length; };
  // A pipelining client's next command may be here already.
  if (!whole()) {
    pollfd pfd{fd_, POLLIN | POLLRDHUP, 0};
    idle_on_worker_.store(true, std::memory_order_relaxed);
    int rc;
    do {
      rc = ::poll(&pfd, 1, kStayOnWorkerMs);
    } while (rc < 0 && errno == EINTR);
    idle_on_worker_.store(false, std::memory_order_relaxed);
    // Quiet, hung up or failed: the coroutine reads (and reports) it.
    if (rc != 1 || pfd.revents != POLLIN) return std::nullopt;
    if (!ReadAheadOnWorker(0)) return std::nullopt;
  }
  if (in_.size() <= p::kHeaderSize) return std::nullopt;
  const p::FrameHeader h = header();
  const uint8_t command = static_cast<uint8_t>(in_.data()[p::kHeaderSize]);
  // The coroutine's ReadPacket answers a bad sequence id or a packet over
  // max_allowed_packet, and reassembles multi-frame packets; the commands
  // that change what the connection is run there too.
  if (h.seq != 0 || h.length == 0 || h.length >= p::kMaxChunk ||
      h.length > server_.executor().MaxAllowedPacket(ctx_) || command == p::COM_QUIT ||
      command == p::COM_BINLOG_DUMP || command == p::COM_BINLOG_DUMP_GTID || command == p::COM_CHANGE_USER) {
    return std::nullopt;
  }
  const size_t total = p::kHeaderSize + h.length;
  // A large command: the rest of it, if it has all arrived.
  if (in_.size() < total && !ReadAheadOnWorker(total - in_.size())) return std::nullopt;
  if (in_.size() < total) return std::nullopt;
  const std::string_view payload(in_.data() + p::kHeaderSize, h.length);
  in_.pos += total;
  ctx_.bytes_received += total;
  next_seq_ = 1;
  return payload;
}

}  // namespace sluice::server

namespace sluice::server {

namespace {

// Frames dump packets and writes them synchronously from the dump thread
// (the coroutine is suspended meanwhile, so nothing else uses the socket).
// Packets are gathered up to 64 KiB before a write, and flushed whenever
// the sender catches up. A plain socket is out of asio's hands for the dump
// (Session::ReleaseToWorker): the sink writes to the descriptor itself. As
// a DumpConnection it also lets a transmit
// observer read what the reader sends back (semisync acks) from its own
// thread without blocking: on a plain socket with recv(2), which does not
// disturb the dump thread's writes; on TLS the stream's state is shared by
// both directions, so reads and writes take turns under io_mu_ (taken per
// write of up to 64 KiB, not per event) and a read never waits for data.
// A write holds io_mu_ for as long as the reader takes to read it (a write
// with no progress for net_write_timeout ends the connection); a read
// that may defer (ReadPacket's `defer`) waits for it at most
// kReadWaitForWrite and then answers kBusy, so that a replica that stops
// reading cannot hold the thread reading every replica's acks.
template <typename Stream>
class SocketSink : public rpl::PacketSink, public rpl::DumpConnection {
  static constexpr bool kTls = !std::is_same_v<Stream, Session::StreamSocket>;

 public:
  // `read_ahead`: what the client sent after the dump command that the
  // session has already read (Session::in_). `watch`: where a write that
  // ran past `write_timeout_ms` (net_write_timeout) is told, and where a TLS
  // write is stamped for the strand's watch (Session::DumpWriteWatch).
  SocketSink(Stream& stream, int fd, uint8_t first_seq, std::string read_ahead, Session::DumpWriteWatch* watch,
             int write_timeout_ms)
      : stream_(stream),
        fd_(fd),
        watch_(*watch),
        write_timeout_ms_(write_timeout_ms),
        seq_(first_seq),
        in_(std::move(read_ahead)) {}
  Status Send(std::string_view payload) override { return SendPieces({}, payload); }
  Status SendPieces(std::string_view head, std::string_view body) override {
    p::AppendPacket(&buf_, &seq_, head, body);
    return buf_.size() >= (64u << 10) ? Flush() : Status::OK();
  }
  Status SendEvents(std::string_view run) override {
    rpl::AppendEventPackets(&buf_, &seq_, run);
    return buf_.size() >= (64u << 10) ? Flush() : Status::OK();
  }
  Status Flush() override {
    if (buf_.empty()) return Status::OK();
    if constexpr (kTls) {
      error_code ec;
      MutexLock io(&io_mu_);
      // A record at a time, each stamped: the strand's watch times out a
      // write that makes no progress, not a long one that does.
      for (size_t off = 0; off < buf_.size() && !ec;) {
        watch_.since_ns.store(SteadyNowNs(), std::memory_order_relaxed);
        off += stream_.write_some(asio::buffer(buf_.data() + off, buf_.size() - off), ec);
      }
      watch_.since_ns.store(0, std::memory_order_relaxed);
      buf_.clear();
      if (ec) return WriteFailed(ec.message());
      return Status::OK();
    } else {
      // A plain socket's reads (the ack reader's recv) never touch the
      // writer's state.
      const int err = SendAll(fd_, buf_, write_timeout_ms_);
      buf_.clear();
      if (err == ETIMEDOUT) watch_.timed_out.store(true, std::memory_order_relaxed);
      if (err != 0) return WriteFailed(std::strerror(err));
      return Status::OK();
    }
  }
  uint8_t seq() const { return seq_; }

  int fd() const override { return fd_; }
  int ReadPacket(std::string* payload, size_t max, bool defer) override {
    MutexLock lock(&read_mu_);
    for (;;) {
      if (int taken = p::TakePacket(&in_, payload, max); taken != 0) return taken;
      char chunk[4096];
      const int n = ReadSome(chunk, sizeof(chunk), defer);
      if (n == kWriteInProgress) return kBusy;
      if (n <= 0) return n;
      in_.append(chunk, static_cast<size_t>(n));
    }
  }
  Status Flush(int next_seq) override {
    Status s = Flush();
    if (next_seq >= 0) seq_ = static_cast<uint8_t>(next_seq);
    return s;
  }
  void Close() override { ::shutdown(fd(), SHUT_RDWR); }
  bool ReadsWaitForWrites() const override { return kTls; }

 private:
  static constexpr int kWriteInProgress = -2;
  static constexpr auto kReadWaitForWrite = std::chrono::milliseconds(2);

  Status WriteFailed(const std::string& why) const {
    if (watch_.timed_out.load(std::memory_order_relaxed)) {
      return Status::IOError("dump connection: no progress writing to the reader for net_write_timeout");
    }
    return Status::IOError("dump connection: " + why);
  }

  // Takes io_mu_ if it comes free within kReadWaitForWrite. It polls: only
  // a read that found a write in progress waits here, and a lock given up
  // on a timer (pthread_mutex_clocklock) is one TSan cannot see taken.
  bool LockForRead() TRY_ACQUIRE(true, io_mu_) {
    const auto deadline = std::chrono::steady_clock::now() + kReadWaitForWrite;
    while (!io_mu_.TryLock()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    return true;
  }

  // What has arrived, without waiting for data: > 0 bytes, 0 nothing yet,
  // -1 gone, kWriteInProgress (`defer`, TLS) a write held the stream.
  int ReadSome(char* buf, size_t size, bool defer) {
    if constexpr (kTls) {
      if (!defer) {
        io_mu_.Lock();
      } else if (!LockForRead()) {
        return kWriteInProgress;
      }
      error_code ec, ignored;
      stream_.next_layer().non_blocking(true, ignored);
      const size_t n = stream_.read_some(asio::buffer(buf, size), ec);
      stream_.next_layer().non_blocking(false, ignored);
      io_mu_.Unlock();
      if (n > 0) return static_cast<int>(n);
      return ec == asio::error::would_block || ec == asio::error::try_again ? 0 : -1;
    } else {
      for (;;) {
        const ssize_t n = ::recv(fd(), buf, size, MSG_DONTWAIT);
        if (n > 0) return static_cast<int>(n);
        if (n < 0 && errno == EINTR) continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
      }
    }
  }

  Stream& stream_;
  const int fd_;  // the connection's descriptor (Session::Fd)
  Session::DumpWriteWatch& watch_;
  const int write_timeout_ms_;
  std::string buf_;
  uint8_t seq_;
  // TLS: the stream, between the dump thread and a reader. (Not an
  // annotation on stream_: a plain socket's is used without it.)
  Mutex io_mu_;
  Mutex read_mu_;
  std::string in_ GUARDED_BY(read_mu_);  // bytes read, not yet a whole packet
};

std::string UserVar(const SessionContext& ctx, std::string_view name) {
  auto it = ctx.user_vars.find(std::string(name));
  if (it == ctx.user_vars.end() || it->second.is_null()) return std::string();
  return it->second.ToString();
}

bool HasUserVar(const SessionContext& ctx, std::string_view name) {
  auto it = ctx.user_vars.find(std::string(name));
  return it != ctx.user_vars.end() && !it->second.is_null();
}

const char* StateText(rpl::BinlogSender::State s) {
  switch (s) {
    case rpl::BinlogSender::State::kStarting: return "Starting";
    case rpl::BinlogSender::State::kSending: return "Sending binlog event to replica";
    case rpl::BinlogSender::State::kWaiting: return "Source has sent all binlog to replica; waiting for more updates";
    case rpl::BinlogSender::State::kSwitching: return "Finished reading one binlog; switching to next binlog";
    case rpl::BinlogSender::State::kDone: return "Waiting to finalize termination";
  }
  return "";
}

}  // namespace

asio::awaitable<bool> Session::RunDump(const std::string& packet) {
  const bool gtid = static_cast<uint8_t>(packet[0]) == p::COM_BINLOG_DUMP_GTID;
  ctx_.status->Add(server_.core_status().com_admin_commands);
  if (!ctx_.account || !ctx_.account->HasGlobal(acl::Priv::kReplicationSlave)) {
    co_await WriteError(MakeError(er::kSpecificAccessDenied, "REPLICATION SLAVE"));
    co_return false;
  }
  binlog::Binlog* bl = server_.binlog();
  if (bl == nullptr) {
    co_await WriteError(MakeError(er::kMasterFatalReadingBinlog, "Binary log is not open"));
    co_return true;
  }
  std::string_view body = std::string_view(packet).substr(1);
  Result<rpl::DumpRequest> req = gtid ? rpl::ParseBinlogDumpGtid(body) : rpl::ParseBinlogDump(body);
  if (!req.ok()) {
    co_await WriteError(req.status());
    co_return false;
  }
  rpl::SenderOptions options;
  options.server_id = bl->server_id();
  if (auto nice = server_.sys_vars().Get("sluice_plain_reader_nice", vars::GetScope::kGlobal, nullptr); nice.ok()) {
    options.plain_reader_nice = static_cast<int>(nice->ToUInt());
  }
  for (const char* name : {"source_binlog_checksum", "master_binlog_checksum"}) {
    if (!HasUserVar(ctx_, name)) continue;
    std::string v = UserVar(ctx_, name);
    options.reader_checksum = sql::EqualsIgnoreCase(v, "CRC32") ? binlog::Checksum::kCrc32 : binlog::Checksum::kOff;
    break;
  }
  for (const char* name : {"source_heartbeat_period", "master_heartbeat_period"}) {
    if (!HasUserVar(ctx_, name)) continue;
    auto it = ctx_.user_vars.find(name);
    double ns = it->second.ToDouble();
    if (ns > 0) options.heartbeat_period = std::chrono::nanoseconds(static_cast<int64_t>(ns));
    break;
  }
  // A MariaDB replica (it says so, and registered: mariadb-binlog, whose
  // copies must stay byte for byte, does not) gets JSON as text.
  if (HasUserVar(ctx_, "mariadb_slave_capability")) {
    for (const Server::ReplicaInfo& r : server_.Replicas()) {
      if (r.connection_id != ctx_.connection_id) continue;
      options.mariadb_json_to_text = [](std::string_view binary) { return sql::json::BinaryToText(binary); };
      break;
    }
  }
  rpl::TransmitParam param;
  param.server_id = req->server_id;
  param.connection_id = ctx_.connection_id;
  param.dump_flags = req->flags;
  param.host = remote_ip_;
  // A copy of the user variables: the dump thread reads them after this
  // coroutine has moved on to waiting.
  auto vars = std::make_shared<std::map<std::string, std::string>>();
  for (const auto& [k, v] : ctx_.user_vars) vars->emplace(k, v.is_null() ? std::string() : v.ToString());
  param.user_var = [vars](std::string_view name) {
    auto it = vars->find(sql::AsciiLower(name));
    return it == vars->end() ? std::string() : it->second;
  };
  std::string uuid = UserVar(ctx_, "replica_uuid");
  if (uuid.empty()) uuid = UserVar(ctx_, "slave_uuid");
  server_.RegisterDump(ctx_.connection_id, req->server_id, uuid);
  const std::string command = gtid ? "Binlog Dump GTID" : "Binlog Dump";
  ctx_.SetCommand(command, "", StateText(rpl::BinlogSender::State::kStarting));

  dump_stop_.store(ctx_.kill_state() != KillState::kNone, std::memory_order_relaxed);
  // net_write_timeout, the session's (a reader may SET it before its dump).
  const std::chrono::milliseconds write_timeout = NetWriteTimeout();
  dump_write_.since_ns.store(0, std::memory_order_relaxed);
  dump_write_.timed_out.store(false, std::memory_order_relaxed);
  HoldSocket(SocketHolder::kDumpThread);
  // Out of the I/O threads' epoll set for the dump, as for a worker: a
  // semisync replica's every ack would otherwise wake an I/O thread.
  ReleaseToWorker();
  struct Done {
    Status status;
    uint8_t seq;
  };
  auto job = [this, bl, request = std::move(req).value(), options, param = std::move(param), command,
              write_timeout]() mutable {
    auto run = [&](auto& stream) {
      SocketSink sink(stream, fd_, next_seq_, in_.size() != 0 ? std::string(in_.data(), in_.size()) : std::string(),
                      &dump_write_, static_cast<int>(write_timeout.count()));
      in_ = ReadAhead{};
      param.connection = &sink;
      rpl::BinlogSender sender(*bl, server_.replication(), std::move(request), options, std::move(param), sink,
                               dump_stop_);
      sender.set_state_listener(
          [this, &command](rpl::BinlogSender::State s) { ctx_.SetCommand(command, "", StateText(s)); });
      Status st = sender.Run();
      (void)sink.Flush();
      return Done{st, sink.seq()};
    };
    return tls_ ? run(*tls_) : run(socket_);
  };
  std::optional<Done> ran;
  std::exception_ptr no_thread;
  watching_dump_writes_ = tls_.has_value();
  if (watching_dump_writes_) WatchDumpWrites(write_timeout);
  try {
    ran = co_await RunOnThread(server_.workers(), "sl_dump", std::move(job));
  } catch (const std::system_error&) {
    no_thread = std::current_exception();
  }
  watching_dump_writes_ = false;
  timer_.cancel();
  const bool reclaimed = ReclaimFromWorker();
  HoldSocket(SocketHolder::kStrand);
  server_.UnregisterDump(ctx_.connection_id);
  if (no_thread) std::rethrow_exception(no_thread);
  if (!reclaimed) co_return true;
  const Done& done = *ran;
  if (dump_write_.timed_out.load(std::memory_order_relaxed)) {
    // A reader that stopped reading would not read an error either; MySQL
    // ends such a connection the same way ("Got timeout writing
    // communication packets") and counts it an aborted client.
    server_.core_status().aborted_clients->Add();
    co_return true;
  }
  if (!done.status.ok() && !dump_stop_.load() && ctx_.kill_state() == KillState::kNone) {
    next_seq_ = done.seq;
    co_await WriteError(done.status);
  }
  co_return true;
}

}  // namespace sluice::server
