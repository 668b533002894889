// server/session.h
//
// Session: one client connection. Its coroutine runs on the connection's
// strand and does the I/O (handshake, TLS, authentication exchange, reading
// commands, writing responses); every statement runs on a WorkerPool
// thread (RunOnWorker), never on an I/O thread. One command at a time: the
// coroutine awaits the worker, so the SQL state in `ctx_` is touched by one
// thread at a time, handed over through the pool's queue and the strand.
//
// Other threads see a session only through Kill() and process_info(),
// which are thread-safe. Lifetime: shared_ptr held by the coroutine; the
// server's registry holds weak_ptrs.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "protocol/payloads.h"
#include "server/asio.h"
#include "server/session_state.h"

namespace sluice::server {

class Server;
struct LoginRequest;
struct Response;

class Session : public std::enable_shared_from_this<Session> {
 public:
  // Either transport: TCP, or the Unix socket (--socket).
  using StreamSocket = asio::generic::stream_protocol::socket;
  // Who is at the other end, as accounts and the process list see it.
  struct Peer {
    std::string ip;    // empty for the Unix socket
    std::string host;  // "localhost" (loopback or Unix socket) or the ip
    std::string peer;  // "host:port" (process list); "localhost" for the socket
    bool local_socket = false;  // counts as a secure transport, as in MySQL
  };
  static Peer TcpPeer(const tcp::socket& socket);
  static Peer UnixPeer();

  // `server` must outlive the session (Server::Stop waits for sessions).
  Session(Server& server, StreamSocket socket, Peer peer, uint32_t connection_id);
  ~Session();

  void Start();
  uint32_t id() const { return ctx_.connection_id; }

  // KILL QUERY (connection=false) interrupts the running statement; KILL
  // CONNECTION also closes the connection. Safe from any thread.
  void Kill(bool connection);
  // Closes the connection at server shutdown. Safe from any thread.
  void Shutdown();
  // The session's max_connections slot (Server::connection_slots_in_use):
  // taken when the server registers it, given back once, when the session
  // knows it is ending (WriteLastError, or at its end). Any thread.
  void TakeSlot();
  void GiveBackSlot();

  exec::ProcessInfo process_info() const { return ctx_.process_info(); }

  // net_write_timeout for a dump: a reader that stops reading does not hold
  // its dump thread (and the binlog file it has open) for ever. A plain
  // socket's sends poll with the timeout; a TLS write cannot time out (the
  // SSL stream writes to a blocking socket), so the dump thread stamps each
  // write it starts and the strand's timer (WatchDumpWrites) shuts the
  // socket down under a write that has made no progress for the timeout,
  // as KILL does.
  struct DumpWriteWatch {
    std::atomic<int64_t> since_ns{0};  // steady clock; 0: no write in progress
    std::atomic<bool> timed_out{false};
  };

 private:
  asio::awaitable<void> Run();
  asio::awaitable<Status> Handshake();
  asio::awaitable<Status> Authenticate(const LoginRequest& req);
  asio::awaitable<void> CommandLoop();
  // COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID: the connection becomes a dump
  // connection; a dump thread (rpl::BinlogSender) writes to the socket
  // while this coroutine waits. Returns true when the connection is over
  // (after a dump, always; false after an error answered before it began).
  asio::awaitable<bool> RunDump(const std::string& packet);

  // Reads one logical packet (all its chunks). `timeout` bounds the wait;
  // the first chunk's sequence id must equal expected_seq_ (0 for a new
  // command). Errors: network (session ends), 1153 too large, 1156 order.
  asio::awaitable<Result<std::string>> ReadPacket(std::chrono::seconds timeout, bool new_command);
  // Frames and writes payloads with consecutive sequence ids from next_seq_.
  asio::awaitable<Status> WritePackets(const protocol::Payloads& payloads);
  asio::awaitable<Status> WritePacket(std::string payload);
  asio::awaitable<Status> WriteError(const Status& st);
  // The error that ends the session: its max_connections slot is given back
  // first (GiveBackSlot), so a client that reconnects on reading it finds
  // the slot free. `p41`: false for an error sent before the greeting.
  asio::awaitable<void> WriteLastError(const Status& st, bool p41 = true);

  // Fills `b` from the socket, after what a worker read ahead (in_).
  asio::awaitable<size_t> ReadExact(asio::mutable_buffer b, error_code& ec);
  template <typename Buffers>
  asio::awaitable<size_t> WriteAll(const Buffers& b, error_code& ec);
  void ArmTimer(std::chrono::seconds timeout);
  void CloseSocket();
  // While a command runs on a worker the coroutine does not read the
  // socket, so nothing would notice a client that went away: the strand
  // polls the socket every kClientWatchInterval, and a hung-up client kills
  // the statement as KILL CONNECTION does (MySQL checks the same with
  // vio_is_connected). StartClientWatch / StopClientWatch bracket the
  // command; both run on the strand.
  void StartClientWatch();
  void StopClientWatch();
  bool ClientHungUp();

  // A command on its worker (CommandLoop hands each one over): runs it and,
  // on a plain socket, writes the reply itself and then runs the commands
  // that follow within kStayOnWorkerMs on the same thread, as MySQL's
  // thread-per-connection does, instead of crossing to the I/O thread and
  // back per command. Anything it does not handle (a partial or large
  // packet, COM_QUIT, a dump, COM_CHANGE_USER, a quiet client) it leaves
  // unread for the coroutine.
  struct Served {
    // The reply the worker left for the coroutine to write: the command's
    // own on TLS or off the pool, or the last one when it closes the
    // connection (KILL of itself, SHUTDOWN). Empty when every reply is on
    // the wire already, or the command has none (COM_STMT_CLOSE).
    protocol::Payloads payloads;
    bool close_connection = false;      // after that reply (Response::close_connection)
    bool over = false;                  // the connection ends (a failed write, KILL)
  };
  Served ServeOnWorker(const std::string& packet);
  // The session's net_write_timeout, for a write from a thread (a worker's
  // reply, a dump's events).
  std::chrono::milliseconds NetWriteTimeout();
  // Writes a reply from the worker (net_write_timeout). False: connection over.
  bool WriteOnWorker(const protocol::Payloads& payloads);
  // The next command when one arrives whole within kStayOnWorkerMs and is
  // one ServeOnWorker may run; otherwise what was read stays in in_ for the
  // coroutine. The command's bytes are in in_: valid until the next call.
  std::optional<std::string_view> NextCommandOnWorker();
  // One non-blocking read of up to `want` bytes (at least kInputChunk) onto
  // the end of in_. False when the client is gone or sent nothing.
  bool ReadAheadOnWorker(size_t want);
  // Copies up to `size` read-ahead bytes out of in_; returns how many.
  size_t TakeReadAhead(char* out, size_t size);

  // Who may use the socket: the strand, or a thread the coroutine waits
  // for (a dump thread, or a worker serving commands). While a thread holds
  // it, KILL shuts it down (a thread-safe system call: the thread's poll,
  // read or write returns) and only the coroutine closes it, once the
  // thread is done, so the descriptor is never closed under the thread.
  enum class SocketHolder { kStrand, kDumpThread, kWorker };
  void HoldSocket(SocketHolder h) EXCLUDES(socket_mu_);
  bool SocketHeldByThread() EXCLUDES(socket_mu_);
  // While a worker serves a plain connection, or a dump thread streams to
  // it, the socket is taken out of the I/O threads' epoll set (asio
  // registers every socket edge-triggered, so each command the client sends,
  // or each ack a semisync replica sends, would otherwise wake an I/O thread
  // that has nothing to do with it), and put back when the coroutine takes
  // over again. On the strand; `fd_` stays the descriptor throughout.
  void ReleaseToWorker();
  bool ReclaimFromWorker();
  // The socket's descriptor, for the threads that use it directly (the
  // worker, the dump thread, KILL, the client watch).
  int Fd() const { return fd_; }

  Server& server_;
  StreamSocket socket_;
  const int fd_;
  bool released_ = false;  // on the strand: ReleaseToWorker .. ReclaimFromWorker
  asio::generic::stream_protocol protocol_{AF_INET, 0};  // for ReclaimFromWorker
  std::optional<asio::ssl::stream<StreamSocket>> tls_;
  asio::steady_timer timer_;
  asio::steady_timer watch_timer_;
  bool watching_ = false;  // on the strand
  std::string remote_ip_;
  std::string scramble_;
  uint8_t next_seq_ = 0;
  bool timed_out_ = false;
  std::atomic<bool> holds_slot_{false};  // TakeSlot .. GiveBackSlot
  Mutex socket_mu_;
  SocketHolder socket_holder_ GUARDED_BY(socket_mu_) = SocketHolder::kStrand;
  std::atomic<bool> dump_stop_{false};  // ends a dump thread
  DumpWriteWatch dump_write_;
  bool watching_dump_writes_ = false;  // on the strand: WatchDumpWrites runs
  void WatchDumpWrites(std::chrono::nanoseconds timeout);
  void ShutDownUnderDumpThread() EXCLUDES(socket_mu_);
  // A worker waits for the next command: the client watch (which counts a
  // hang-up as an aborted client) is for running statements only.
  std::atomic<bool> idle_on_worker_{false};

  // Bytes a worker read from the socket and has not used yet: the
  // commands it serves are read with one recv(2) each (MySQL's net layer
  // reads the same way, through a buffer), and what it reads beyond the
  // command it takes (a pipelined command, or one it leaves to the
  // coroutine) is used from here first: by NextCommandOnWorker, by
  // ReadExact, and by a dump connection's reader (SocketSink). buf[pos,
  // end) is unread. Used by one thread at a time: the worker, or the
  // coroutine once RunOnWorker has returned.
  struct ReadAhead {
    std::unique_ptr<char[]> buf;
    size_t cap = 0;
    size_t pos = 0;
    size_t end = 0;
    size_t size() const { return end - pos; }
    const char* data() const { return buf.get() + pos; }
  };
  ReadAhead in_;
  // The framed reply WriteOnWorker sends, kept between commands (base/scratch.h).
  std::string out_;
  // The reply a worker's command produces, kept between commands likewise
  // (Executor::Dispatch fills it; Payloads::clear keeps its buffers).
  std::unique_ptr<Response> reply_;

  SessionState ctx_;
};

}  // namespace sluice::server
