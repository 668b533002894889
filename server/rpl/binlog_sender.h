// server/rpl/binlog_sender.h
//
// BinlogSender: one dump connection's stream of the binary log
// (COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID), as MySQL's Binlog_sender:
// per file a fake Rotate (ARTIFICIAL, log_pos 0) and the file's
// Format_description (in-use flag cleared; log_pos and create time zeroed
// when starting mid-file), then the events as stored, following Rotate
// into the next file. At the end of the active file it waits for the
// binlog's published end to move (Binlog::WaitForEnd), sending a heartbeat
// every heartbeat period; BINLOG_DUMP_NON_BLOCK (or server_id 0) ends with
// an EOF packet instead. In GTID mode whole transactions the reader has are
// skipped.
//
// It reads the files itself through a BinlogFileReader (bounded buffer: no
// shared in-memory queue), up to the published end, and takes no lock a
// committing session takes. Transmit observers are asked once at start
// (Registry::TransmitStart); a connection no observer wants runs no hook
// per event.
//
// Thread-safety: Run() on one thread (the connection's dump thread); stop()
// may be set from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "binlog/binlog.h"
#include "binlog/event.h"
#include "binlog/gtid.h"
#include "server/rpl/delegates.h"
#include "server/rpl/mariadb_json.h"

namespace sluice::server::rpl {

// Where packets go: the connection (tests: memory). Payloads only; the
// sink frames them.
class PacketSink {
 public:
  virtual ~PacketSink() = default;
  // IOError when the reader is gone.
  virtual Status Send(std::string_view payload) = 0;
  // One packet whose payload is `head` then `body`. A sink that frames
  // into a buffer of its own overrides it to skip the join.
  virtual Status SendPieces(std::string_view head, std::string_view body) {
    std::string joined;
    joined.reserve(head.size() + body.size());
    joined.append(head).append(body);
    return Send(joined);
  }
  // Each event of `run` (whole events back to back, as a binlog file holds
  // them) as its own packet: the OK byte, then the event. A sink that
  // frames into a buffer of its own overrides it with
  // AppendEventPackets: one loop for the run, not a call per event.
  virtual Status SendEvents(std::string_view run);
  // Pushes what is buffered (called before waiting for new events).
  virtual Status Flush() = 0;
};

// Appends the packets of SendEvents(run) to `out`, sequence numbers from
// `*seq` on: per event a frame header, the OK byte and the event (an event
// of 16 MiB or more in several frames, as AppendPacket splits it).
void AppendEventPackets(std::string* out, uint8_t* seq, std::string_view run);

struct DumpRequest {
  bool gtid = false;       // COM_BINLOG_DUMP_GTID
  std::string file;        // basename; "" = the first file
  uint64_t position = 4;
  uint16_t flags = 0;      // kNonBlock ...
  uint32_t server_id = 0;  // the reader's
  binlog::GtidSet gtids;   // GTID dump: what the reader already has
  static constexpr uint16_t kNonBlock = 0x01;
};
// Parse the command bodies (after the command byte). 1835 malformed.
Result<DumpRequest> ParseBinlogDump(std::string_view body);
Result<DumpRequest> ParseBinlogDumpGtid(std::string_view body);

struct SenderOptions {
  // @master_binlog_checksum / @source_binlog_checksum as announced (kUndef:
  // not announced: then a CRC32 binlog is refused with 1236).
  binlog::Checksum reader_checksum = binlog::Checksum::kUndef;
  // @master_heartbeat_period / @source_heartbeat_period; zero: none.
  std::chrono::nanoseconds heartbeat_period{0};
  uint32_t server_id = 0;  // this server's (fake Rotate, heartbeats)
  // How long one wait for new events may last before stop is re-checked.
  std::chrono::milliseconds poll{500};
  // Set for a MariaDB replica (it announced @mariadb_slave_capability and
  // registered with COM_REGISTER_SLAVE; mariadb-binlog does not register):
  // JSON goes to it as text (MariadbJsonRewriter), this converting each
  // binary value. Unset: every event goes as the file has it.
  std::function<Result<std::string>(std::string_view)> mariadb_json_to_text;
  // sluice_plain_reader_nice: a reader no observer asked for (a plain
  // replica, a CDC reader) raises its thread's nice value to this once its
  // transmit starts, so that on a busy CPU commits, statements and semisync
  // replicas run first and it catches up when the CPU frees. 0: unchanged.
  // REQUIRES: Run() on a thread of the dump's own (RunOnThread).
  int plain_reader_nice = 0;
};

class BinlogSender {
 public:
  BinlogSender(binlog::Binlog& binlog, Registry& registry, DumpRequest request, SenderOptions options,
               TransmitParam param, PacketSink& sink, const std::atomic<bool>& stop);

  // Streams until the reader goes (OK), stop is set (OK), a NON_BLOCK dump
  // reaches the end (EOF sent, OK), or an error: a Status to send as ERR
  // (1236 with MySQL's messages).
  Status Run();

  // For the process list: what the sender is doing now.
  enum class State { kStarting, kSending, kWaiting, kSwitching, kDone };
  void set_state_listener(std::function<void(State)> f) { on_state_ = std::move(f); }

  // This sender's own counters: written by its thread only (Bump, no
  // locked add per event), readable from any thread.
  struct Counters {
    static void Bump(std::atomic<uint64_t>& c, uint64_t n) {
      c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    std::atomic<uint64_t> events{0};
    std::atomic<uint64_t> bytes{0};
    std::atomic<uint64_t> heartbeats{0};
    std::atomic<uint64_t> skipped{0};  // events of transactions the reader had (GTID dump)
    // Per-event observer hook calls (reserve_header, before/after_send_event):
    // zero for a reader no observer asked for.
    std::atomic<uint64_t> hook_calls{0};
  };
  const Counters& counters() const { return counters_; }

 private:
  Status SendEvent(std::string_view event, const std::string& file, uint64_t end_pos);
  // SendEvent of `event` or of what the MariaDB rewriter gives for it.
  Status SendFileEvent(std::string_view event, const std::string& file, uint64_t end_pos);
  Status SendHeartbeat(const std::string& file, uint64_t pos);
  // A GTID dump: whether the reader has the transaction of this event, the
  // last event's answer being `skipping`.
  bool Skips(uint8_t type, std::string_view event, bool skipping) const;
  // A run of whole events (BinlogFileReader::NextRun) to a plain reader;
  // for a GTID dump less the transactions it has.
  Status SendRun(std::string_view run, size_t count);
  Status SendRunSkipping(std::string_view run, bool* skipping);
  // A run to an observed reader (semisync) or a MariaDB replica: event by
  // event through SendFileEvent, the first at `offset` in `file`.
  Status SendRunByEvent(std::string_view run, uint64_t offset, const std::string& file, bool* skipping);
  // For a MariaDB replica: the last event boundary at or before `pos` in
  // the file (its first `size` bytes), when `pos` is at most
  // MariadbJsonRewriter::kMaxOvershoot past it; else 1236.
  static Result<uint64_t> ResumePoint(const std::string& path, uint64_t pos, uint64_t size, io::FileSystem* fs);
  Status Fatal(std::string message) const;
  void SetState(State s);

  binlog::Binlog& binlog_;
  Registry& registry_;
  DumpRequest request_;
  SenderOptions options_;
  TransmitParam param_;
  PacketSink& sink_;
  const std::atomic<bool>& stop_;
  TransmitSession transmit_;
  std::function<void(State)> on_state_;
  State state_ = State::kStarting;
  Counters counters_;
  std::optional<MariadbJsonRewriter> mariadb_;  // a MariaDB replica's dump
  // Where we are, for error messages.
  std::string last_file_;
  uint64_t last_pos_ = 0;
  binlog::Checksum file_checksum_ = binlog::Checksum::kOff;
};

}  // namespace sluice::server::rpl
