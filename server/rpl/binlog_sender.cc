#include "server/rpl/binlog_sender.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "binlog/file_reader.h"
#include "protocol/command.h"
#include "protocol/packet.h"
#include "protocol/response.h"
#include "protocol/wire.h"

namespace sluice::server::rpl {

namespace p = sluice::protocol;
using binlog::Checksum;
using binlog::EventHeader;

namespace {

Status Malformed() { return Status::MySQL(1835, "HY000", "Malformed communication packet."); }

Status Error1236(std::string message) { return Status::MySQL(1236, "HY000", std::move(message)); }

std::optional<uint32_t> NumberOf(const std::vector<binlog::BinlogFileInfo>& files, const std::string& name) {
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].name == name) return static_cast<uint32_t>(i);
  }
  return std::nullopt;
}

// "binlog.000012" -> 12 (the binlog's file numbering).
uint32_t FileNumberOf(const std::string& name) {
  size_t dot = name.rfind('.');
  if (dot == std::string::npos) return 0;
  uint64_t n = 0;
  for (char c : name.substr(dot + 1)) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return static_cast<uint32_t>(n);
}

}  // namespace

Result<DumpRequest> ParseBinlogDump(std::string_view body) {
  Result<p::BinlogDumpRequest> wire = p::ParseBinlogDump(body);
  if (!wire.ok()) return wire.status();
  DumpRequest req;
  req.file = std::string(wire->file);
  req.position = wire->position;
  req.flags = wire->flags;
  req.server_id = wire->server_id;
  return req;
}

Result<DumpRequest> ParseBinlogDumpGtid(std::string_view body) {
  Result<p::BinlogDumpRequest> wire = p::ParseBinlogDumpGtid(body);
  if (!wire.ok()) return wire.status();
  DumpRequest req;
  req.gtid = true;
  req.file = std::string(wire->file);
  req.position = wire->position;
  req.flags = wire->flags;
  req.server_id = wire->server_id;
  if (wire->has_gtid_data) {
    Result<binlog::GtidSet> set = binlog::GtidSet::Decode(wire->gtid_data);
    if (!set.ok()) return Malformed();
    req.gtids = std::move(set).value();
  }
  return req;
}

namespace {

// A thread may raise its own nice value without privileges (lowering it
// again would need CAP_SYS_NICE): the dump's thread ends with the dump.
void LowerThisThreadPriority(int nice) {
#ifdef __linux__
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (errno == 0 && now < nice) (void)::setpriority(PRIO_PROCESS, tid, nice);
#else
  (void)nice;
#endif
}

}  // namespace

BinlogSender::BinlogSender(binlog::Binlog& binlog, Registry& registry, DumpRequest request, SenderOptions options,
                           TransmitParam param, PacketSink& sink, const std::atomic<bool>& stop)
    : binlog_(binlog),
      registry_(registry),
      request_(std::move(request)),
      options_(options),
      param_(std::move(param)),
      sink_(sink),
      stop_(stop) {}

void BinlogSender::SetState(State s) {
  if (s == state_) return;
  state_ = s;
  if (on_state_) on_state_(s);
}

Status BinlogSender::Fatal(std::string message) const {
  return Error1236(fmt::format("{}; the last event read from '{}' at {}", message, last_file_, last_pos_));
}

namespace {
constexpr char kEventOk = '\0';  // the byte before each event in its packet

// The event_size field of the event at `event` (little-endian).
size_t EventSize(const char* event) {
  const auto* b = reinterpret_cast<const uint8_t*>(event + 9);  // event_size, little-endian
  return b[0] | (b[1] << 8) | (b[2] << 16) | (size_t{b[3]} << 24);
}

// Calls `f(event)` for each event of `run` (whole events back to back).
template <typename F>
Status ForEachEvent(std::string_view run, F&& f) {
  while (run.size() >= binlog::kHeaderLen) {
    const size_t size = EventSize(run.data());
    if (size < binlog::kHeaderLen || size > run.size()) break;
    SLUICE_RETURN_IF_ERROR(f(run.substr(0, size)));
    run.remove_prefix(size);
  }
  return Status::OK();
}
}  // namespace

Status PacketSink::SendEvents(std::string_view run) {
  return ForEachEvent(run, [&](std::string_view event) { return SendPieces(std::string_view(&kEventOk, 1), event); });
}

void AppendEventPackets(std::string* out, uint8_t* seq, std::string_view run) {
  // Events are back to back; so are their packets, 5 bytes longer each.
  out->reserve(out->size() + run.size() + run.size() / 8);
  // A one-frame packet is framed here rather than by AppendPacket: the
  // call per event cost the dump threads 47 ns an event instead of 32
  // (bench/dump_cost.py, two alternating runs each).
  (void)ForEachEvent(run, [&](std::string_view event) {
    const size_t payload = event.size() + 1;
    if (payload >= p::kMaxChunk) {
      p::AppendPacket(out, seq, std::string_view(&kEventOk, 1), event);
    } else {
      const char head[p::kHeaderSize + 1] = {static_cast<char>(payload & 0xFF),
                                             static_cast<char>((payload >> 8) & 0xFF),
                                             static_cast<char>((payload >> 16) & 0xFF), static_cast<char>((*seq)++),
                                             kEventOk};
      out->append(head, sizeof(head));
      out->append(event);
    }
    return Status::OK();
  });
}

Status BinlogSender::SendEvent(std::string_view event, const std::string& file, uint64_t end_pos) {
  if (!transmit_.observed()) {
    // Framed straight from the reader's buffer into the sink's.
    SLUICE_RETURN_IF_ERROR(sink_.SendPieces(std::string_view(&kEventOk, 1), event));
  } else {
    // One buffer per sender, reused: no allocation per event once warm.
    thread_local std::string packet;
    packet.assign(1, kEventOk);
    SLUICE_RETURN_IF_ERROR(transmit_.ReserveHeader(packet));
    packet.append(event);
    SLUICE_RETURN_IF_ERROR(transmit_.BeforeSendEvent(packet, file, end_pos));
    SLUICE_RETURN_IF_ERROR(sink_.Send(packet));
    SLUICE_RETURN_IF_ERROR(transmit_.AfterSendEvent(event, file, end_pos));
    Counters::Bump(counters_.hook_calls, 3);
  }
  Counters::Bump(counters_.events, 1);
  Counters::Bump(counters_.bytes, event.size());
  return Status::OK();
}

bool BinlogSender::Skips(uint8_t type, std::string_view event, bool skipping) const {
  if (type == binlog::kGtidEvent) {
    Result<binlog::GtidInfo> g = binlog::DecodeGtid(event, file_checksum_);
    return g.ok() && request_.gtids.Contains(g->sid, g->gno);
  }
  if (type == binlog::kAnonymousGtidEvent || type == binlog::kRotateEvent || type == binlog::kStopEvent ||
      type == binlog::kPreviousGtidsEvent) {
    return false;
  }
  return skipping;  // the rest of the transaction goes as its Gtid event went
}

Status BinlogSender::SendRun(std::string_view run, size_t count) {
  SLUICE_RETURN_IF_ERROR(sink_.SendEvents(run));
  Counters::Bump(counters_.events, count);
  Counters::Bump(counters_.bytes, run.size());
  return Status::OK();
}

Status BinlogSender::SendRunSkipping(std::string_view run, bool* skipping) {
  size_t from = 0, at = 0, count = 0;  // run[from, at): `count` events to send
  uint64_t skipped = 0;
  while (at < run.size()) {  // NextRun's runs are whole events
    const size_t size = EventSize(run.data() + at);
    if (size < binlog::kHeaderLen || size > run.size() - at) return Fatal("binlog event with a bad event_size");
    const std::string_view event = run.substr(at, size);
    *skipping = Skips(static_cast<uint8_t>(event[4]), event, *skipping);
    if (*skipping) {
      if (count != 0) SLUICE_RETURN_IF_ERROR(SendRun(run.substr(from, at - from), count));
      count = 0;
      from = at + event.size();
      ++skipped;
    } else {
      ++count;
    }
    at += event.size();
  }
  Counters::Bump(counters_.skipped, skipped);
  return count != 0 ? SendRun(run.substr(from), count) : Status::OK();
}

Status BinlogSender::SendRunByEvent(std::string_view run, uint64_t offset, const std::string& file, bool* skipping) {
  TransmitSession::Events events(transmit_);
  return ForEachEvent(run, [&](std::string_view event) {
    const uint64_t at = offset;
    offset += event.size();
    last_pos_ = at;
    if (request_.gtid) {
      *skipping = Skips(static_cast<uint8_t>(event[4]), event, *skipping);
      if (*skipping) {
        Counters::Bump(counters_.skipped, 1);
        return Status::OK();
      }
    }
    return SendFileEvent(event, file, offset);
  });
}

Status BinlogSender::SendHeartbeat(const std::string& file, uint64_t pos) {
  EventHeader h;
  h.type = binlog::kHeartbeatEvent;
  h.server_id = options_.server_id;
  h.log_pos = static_cast<uint32_t>(pos);
  std::string ev = binlog::EncodeHeartbeat(h, file, file_checksum_);
  Counters::Bump(counters_.heartbeats, 1);
  // Heartbeats carry no observer header: nothing waits for their ack.
  std::string packet(1, '\0');
  if (transmit_.observed()) SLUICE_RETURN_IF_ERROR(transmit_.ReserveHeader(packet));
  packet += ev;
  return sink_.Send(packet);
}

Status BinlogSender::SendFileEvent(std::string_view event, const std::string& file, uint64_t end_pos) {
  if (!mariadb_) return SendEvent(event, file, end_pos);
  Result<std::optional<std::string>> r = mariadb_->Rewrite(event, file_checksum_);
  if (!r.ok()) return Fatal(r.status().message());
  return SendEvent(r->has_value() ? std::string_view(**r) : event, file, end_pos);
}

Result<uint64_t> BinlogSender::ResumePoint(const std::string& path, uint64_t pos, uint64_t size,
                                          io::FileSystem* fs) {
  Result<std::unique_ptr<binlog::BinlogFileReader>> opened = binlog::BinlogFileReader::Open(path, false, fs);
  if (!opened.ok()) return Error1236(fmt::format("could not open log file: {}", opened.status().message()));
  binlog::BinlogFileReader& reader = **opened;
  reader.set_limit(size);
  uint64_t boundary = 4;
  binlog::BinlogFileReader::Event e;
  for (;;) {
    Result<bool> got = reader.Next(&e);
    if (!got.ok()) return Error1236(fmt::format("could not read log file: {}", got.status().message()));
    if (!*got) break;
    const uint64_t end = e.offset + e.bytes.size();
    if (end > pos) break;
    boundary = end;
  }
  if (pos - boundary > MariadbJsonRewriter::kMaxOvershoot) {
    return Error1236(fmt::format("Client requested master to start replication from position {}, which is not "
                                 "the start of an event",
                                 pos));
  }
  return boundary;
}

Status BinlogSender::Run() {
  SetState(State::kStarting);
  if (options_.mariadb_json_to_text) mariadb_.emplace(options_.mariadb_json_to_text);
  const bool non_block = (request_.flags & DumpRequest::kNonBlock) != 0 || request_.server_id == 0;
  std::vector<binlog::BinlogFileInfo> files = binlog_.ListFiles();
  if (files.empty()) return Error1236("Binary log is not open");
  std::string file;
  uint64_t pos = request_.position;
  if (request_.gtid) {
    if (!binlog_.gtid_mode()) {
      return Error1236(
          "The replication sender thread cannot start in AUTO_POSITION mode: this server has GTID_MODE = OFF "
          "instead of ON.");
    }
    const binlog::GtidSet executed = binlog_.gtid_executed();
    const binlog::GtidSet purged = binlog_.gtid_purged();
    const binlog::Uuid& own = binlog_.server_uuid();
    if (request_.gtids.LastGno(own) > executed.LastGno(own) ||
        [&] {
          binlog::GtidSet mine;
          auto it = request_.gtids.sids().find(own);
          if (it == request_.gtids.sids().end()) return false;
          for (const auto& iv : it->second) mine.AddInterval(own, iv.first, iv.last);
          return !executed.Contains(mine);
        }()) {
      return Error1236(
          "Slave has more GTIDs than the master has, using the master's SERVER_UUID. This may indicate that the end "
          "of the binary log was truncated or that the last binary log file was lost, e.g., after a power or disk "
          "failure when sync_binlog != 1. The master may or may not have rolled back transactions that were already "
          "replicated to the slave. Suggest to replicate any transactions that master has rolled back from slave to "
          "master, and/or commit empty transactions on master to account for transactions that have been committed "
          "on master but are not included in GTID_EXECUTED.");
    }
    if (!request_.gtids.Contains(purged)) {
      binlog::GtidSet missing = purged;
      missing.Remove(request_.gtids);
      return Error1236(fmt::format(
          "Cannot replicate because the master purged required binary logs. Replicate the missing transactions from "
          "elsewhere, or provision a new slave from backup. Consider increasing the master's binary log expiration "
          "period. The GTID set sent by the slave is '{}', and the missing transactions are '{}'.",
          request_.gtids.ToString(","), missing.ToString(",")));
    }
    // The newest file whose Previous_gtids the reader has: it needs nothing
    // before it.
    file = files.front().name;
    for (size_t i = files.size(); i-- > 0;) {
      Result<binlog::GtidSet> prev = binlog_.PreviousGtidsOf(files[i].name);
      if (!prev.ok()) return Error1236(fmt::format("Could not read '{}': {}", files[i].name, prev.status().message()));
      if (request_.gtids.Contains(*prev)) {
        file = files[i].name;
        break;
      }
    }
    pos = 4;
  } else {
    file = request_.file.empty() ? files.front().name : request_.file;
    // Clients name files by basename; a path before it is ignored, as MySQL.
    if (size_t slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
    std::optional<uint32_t> index = NumberOf(files, file);
    if (!index) return Error1236("Could not find first log file name in binary log index file");
    if (pos < 4) return Error1236("Client requested master to start replication from position < 4.");
    // The active file's size is its published end.
    const binlog::Binlog::End end = binlog_.end();
    uint64_t size = files[*index].size;
    if (FileNumberOf(file) == end.file_number) size = end.offset;
    if (pos > size) return Error1236("Client requested master to start replication from position > file size");
    if (mariadb_ && pos > 4) {
      // A MariaDB replica's IO position may be past the last event it has
      // (MariadbJsonRewriter): resume at the event boundary before it.
      Result<uint64_t> resume = ResumePoint(binlog_.FilePath(file), pos, size, &binlog_.file_system());
      if (!resume.ok()) return resume.status();
      pos = *resume;
    }
  }
  last_file_ = file;
  last_pos_ = pos;

  Result<TransmitSession> ts = registry_.TransmitStart(param_, file, pos);
  if (!ts.ok()) return ts.status();
  transmit_ = std::move(ts).value();
  struct StopAtExit {
    TransmitSession& t;
    ~StopAtExit() { t.Stop(); }
  } stop_at_exit{transmit_};

  // A reader no observer asked for follows reader_end(): end() unless a
  // plugin holds plain readers back (semisync's
  // sluice_semi_sync_hold_plain_readers); an observed one follows end().
  const bool capped = !transmit_.observed();
  // Nothing to do per event but a GTID dump's skipping: no observer, no
  // rewrite. Such a sender hands the sink whole runs of events (NextRun,
  // SendEvents): with 40 mariadb-binlog readers catching up, the dump
  // threads' CPU per event sent went from about 100 ns to 35
  // (bench/dump_cost.py, docs/performance.md). Every sender reads runs;
  // an observed or MariaDB one sends their events one at a time
  // (SendRunByEvent; its cost per event: dump_cost.py --semisync).
  const bool plain = capped && !mariadb_;
  if (capped && options_.plain_reader_nice > 0) LowerThisThreadPriority(options_.plain_reader_nice);
  auto published = [&] { return capped ? binlog_.reader_end() : binlog_.end(); };
  bool first = true;
  // For heartbeats: when the sender last caught up having sent something
  // (read once per catch-up, not per event: with 40 readers the clock read
  // per event was 3 % of the server's CPU).
  auto last_send = std::chrono::steady_clock::now();
  bool sent = false;  // since last_send
  while (!stop_.load(std::memory_order_relaxed)) {
    // ---- open the file, fake Rotate, Format_description
    SetState(State::kSwitching);
    const std::string path = binlog_.FilePath(file);
    Result<std::unique_ptr<binlog::BinlogFileReader>> opened =
        binlog::BinlogFileReader::Open(path, false, &binlog_.file_system());
    if (!opened.ok()) return Fatal(fmt::format("could not open log file '{}': {}", file, opened.status().message()));
    binlog::BinlogFileReader& reader = **opened;
    const uint32_t number = FileNumberOf(file);
    Result<std::optional<binlog::BinlogFileReader::Event>> fde = reader.Next();
    if (!fde.ok() || !fde->has_value() || (*fde)->header.type != binlog::kFormatDescriptionEvent) {
      return Fatal("binlog truncated in the middle of event; consider out of disk space on master");
    }
    const Checksum fake_rotate_cs = first ? options_.reader_checksum : file_checksum_;
    file_checksum_ = reader.format().checksum;
    if (first && options_.reader_checksum == Checksum::kUndef && file_checksum_ != Checksum::kOff) {
      return Error1236("Slave can not handle replication events with the checksum that master is configured to log");
    }
    {
      EventHeader h;
      h.type = binlog::kRotateEvent;
      h.server_id = options_.server_id;
      h.flags = binlog::kLogEventArtificial;
      std::string rot = binlog::EncodeRotate(h, pos, file, fake_rotate_cs == Checksum::kCrc32 ? Checksum::kCrc32
                                                                                               : Checksum::kOff);
      Status s = SendFileEvent(rot, file, 0);  // a MariaDB replica's position starts over here
      if (!s.ok()) return s.IsIOError() ? Status::OK() : s;
    }
    {
      // Mid-file start: the replica must neither move its position to
      // this event nor drop its temporary tables.
      Result<std::string> ev = binlog::ResendFormatDescription(std::move((*fde)->bytes), /*mid_file=*/pos > 4);
      if (!ev.ok()) return Fatal(ev.status().message());
      Status s = SendFileEvent(*ev, file, pos > 4 ? 0 : 4 + ev->size());
      if (!s.ok()) return s.IsIOError() ? Status::OK() : s;
    }
    if (pos > 4) {
      Status s = reader.Seek(pos);
      if (!s.ok()) return Fatal(s.message());
    }
    first = false;

    // ---- stream the file
    bool skipping = false;  // a transaction the reader has (GTID dump)
    bool next_file = false;
    // The published end is read again only when the reader reaches the
    // end it last saw: per event the sender reads no line a committer writes.
    binlog::Binlog::End end = published();
    // A held reader may be ahead of the limit (in a later file): it waits.
    auto set_limit = [&](const binlog::Binlog::End& e) {
      if (e.file_number == number) {
        reader.set_written_limit(e.offset);  // the binlog publishes only what it wrote
      } else {
        reader.set_limit(e.file_number < number ? reader.valid_end() : UINT64_MAX);
      }
    };
    bool active = end.file_number <= number;
    set_limit(end);
    binlog::BinlogFileReader::EventRun run;  // events are sent from the reader's buffer
    while (!next_file) {
      if (stop_.load(std::memory_order_relaxed)) return Status::OK();
      Result<bool> got = reader.NextRun(&run);
      if (!got.ok()) return Fatal(got.status().message());
      if (!*got) {
        const binlog::Binlog::End now = published();
        if (now != end) {
          end = now;
          active = end.file_number <= number;
          set_limit(end);
          continue;
        }
        if (!active) {
          // The file is complete (rotated, stopped, or crashed and
          // recovered): go on with the next file in the index.
          files = binlog_.ListFiles();
          std::optional<uint32_t> index = NumberOf(files, file);
          if (!index || *index + 1 >= files.size()) {
            if (end.file_number > number) return Fatal("could not find next log");
            continue;  // the index is being rewritten: look again
          }
          file = files[*index + 1].name;
          pos = 4;
          next_file = true;
          break;
        }
        // Caught up with the active file.
        Status f = sink_.Flush();
        if (!f.ok()) return Status::OK();
        if (non_block) {
          SetState(State::kDone);
          Status s = sink_.Send(p::EncodeEof(0, 0));
          if (s.ok()) s = sink_.Flush();
          return Status::OK();
        }
        SetState(State::kWaiting);
        auto wait = options_.poll;
        if (options_.heartbeat_period.count() > 0) {
          const auto now = std::chrono::steady_clock::now();
          if (sent) {
            last_send = now;
            sent = false;
          }
          auto due = last_send + options_.heartbeat_period - now;
          if (due <= std::chrono::nanoseconds(0)) {
            // A MariaDB replica's IO position may be ahead (MariadbJsonRewriter).
            Status s = SendHeartbeat(file, reader.valid_end() + (mariadb_ ? mariadb_->overshoot() : 0));
            if (s.ok()) s = sink_.Flush();
            if (!s.ok()) return s.IsIOError() ? Status::OK() : s;
            last_send = std::chrono::steady_clock::now();
            continue;
          }
          wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(due) +
                                    std::chrono::milliseconds(1));
        }
        // An observed reader (semisync) is woken at once: commits wait for it.
        binlog_.WaitForEnd(end, wait, capped, /*prompt=*/!capped);
        continue;
      }
      SetState(State::kSending);
      Status s;
      if (plain) {
        last_pos_ = run.last_offset;
        s = request_.gtid ? SendRunSkipping(run.bytes, &skipping) : SendRun(run.bytes, run.count);
      } else {
        s = SendRunByEvent(run.bytes, run.offset, file, &skipping);
      }
      if (!s.ok()) return s.IsIOError() ? Status::OK() : s;
      sent = true;
    }
  }
  return Status::OK();
}

}  // namespace sluice::server::rpl
