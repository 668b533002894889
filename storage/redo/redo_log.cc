// storage/redo/redo_log.cc
#include "storage/redo/redo_log.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/thread_name.h"

namespace sluice::storage {

namespace {

constexpr char kLogName[] = "redo.log";
constexpr char kCtlName[] = "redo.ctl";
constexpr uint64_t kCtlMagic = 0x534c554943454350ull;  // "SLUICECP"
constexpr uint64_t kSlotSize = 512;
constexpr size_t kSlotPayload = 24;  // magic, seq, checkpoint_lsn

void PutU32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
void PutU64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

uint32_t Crc(uint32_t crc, const char* p, size_t n) {
  return static_cast<uint32_t>(
      crc32(crc, reinterpret_cast<const Bytef*>(p), static_cast<uInt>(n)));
}

// crc over start LSN, then header bytes 4..8 (length, type), then payload.
uint32_t RecordCrc(uint64_t start_lsn, const char* len_and_type, std::string_view payload) {
  char lsn[8];
  PutU64(lsn, start_lsn);
  uint32_t c = Crc(0, lsn, 8);
  c = Crc(c, len_and_type, 5);
  return Crc(c, payload.data(), payload.size());
}

Status ReadFully(io::File* f, uint64_t off, char* buf, size_t n, bool* complete) {
  Result<size_t> r = f->ReadAt(off, buf, n);
  if (!r.ok()) return r.status();
  *complete = *r == n;
  return Status::OK();
}

struct Slot {
  bool valid = false;
  uint64_t seq = 0;
  uint64_t lsn = 0;
};

Slot ParseSlot(const char* p, size_t n) {
  Slot s;
  if (n < kSlotPayload + 4) return s;
  if (GetU64(p) != kCtlMagic) return s;
  if (GetU32(p + kSlotPayload) != Crc(0, p, kSlotPayload)) return s;
  s.valid = true;
  s.seq = GetU64(p + 8);
  s.lsn = GetU64(p + 16);
  return s;
}

}  // namespace

Result<std::unique_ptr<RedoLog>> RedoLog::Open(io::FileSystem* fs, const std::string& dir,
                                               const Options& options,
                                               const RecordCallback& on_record) {
  SLUICE_RETURN_IF_ERROR(fs->CreateDir(dir));
  const std::string log_path = dir + "/" + kLogName;
  const std::string ctl_path = dir + "/" + kCtlName;

  Result<bool> existed = fs->Exists(log_path);
  if (!existed.ok()) return existed.status();
  Result<std::unique_ptr<io::File>> log = fs->Open(log_path, io::OpenMode::kOpenOrCreate);
  if (!log.ok()) return log.status();
  Result<std::unique_ptr<io::File>> ctl = fs->Open(ctl_path, io::OpenMode::kOpenOrCreate);
  if (!ctl.ok()) return ctl.status();
  if (!*existed) SLUICE_RETURN_IF_ERROR(fs->SyncDir(dir));

  // Control file: the valid slot with the highest seq.
  uint64_t checkpoint = 0;
  uint64_t seq = 0;
  {
    Result<uint64_t> size = (*ctl)->Size();
    if (!size.ok()) return size.status();
    if (*size > 0) {
      std::string buf(2 * kSlotSize, '\0');
      Result<size_t> n = (*ctl)->ReadAt(0, buf.data(), buf.size());
      if (!n.ok()) return n.status();
      Slot best;
      for (uint64_t i = 0; i < 2; ++i) {
        uint64_t off = i * kSlotSize;
        if (*n <= off) break;
        Slot s = ParseSlot(buf.data() + off, std::min<size_t>(kSlotSize, *n - off));
        if (s.valid && (!best.valid || s.seq > best.seq)) best = s;
      }
      if (!best.valid) return Status::Corruption(ctl_path + ": no valid checkpoint slot");
      checkpoint = best.lsn;
      seq = best.seq;
    }
  }

  // Scan the log from the checkpoint.
  Result<uint64_t> log_size = (*log)->Size();
  if (!log_size.ok()) return log_size.status();
  if (checkpoint > *log_size) {
    return Status::Corruption(log_path + ": checkpoint " + std::to_string(checkpoint) +
                              " is past the end of the log (" + std::to_string(*log_size) + ")");
  }
  uint64_t pos = checkpoint;
  std::string payload;
  while (pos + kRecordHeaderSize <= *log_size) {
    char hdr[kRecordHeaderSize];
    bool complete = false;
    SLUICE_RETURN_IF_ERROR(ReadFully(log->get(), pos, hdr, sizeof(hdr), &complete));
    if (!complete) break;
    const uint32_t len = GetU32(hdr + 4);
    const uint8_t type = static_cast<uint8_t>(hdr[8]);
    if (type == 0 || len > kMaxPayload || pos + kRecordHeaderSize + len > *log_size) break;
    payload.resize(len);
    SLUICE_RETURN_IF_ERROR(ReadFully(log->get(), pos + kRecordHeaderSize, payload.data(), len, &complete));
    if (!complete) break;
    if (GetU32(hdr) != RecordCrc(pos, hdr + 4, payload)) break;
    const uint64_t end = pos + FramedSize(len);
    if (on_record) SLUICE_RETURN_IF_ERROR(on_record(Record{pos, end, type, payload}));
    pos = end;
  }
  if (pos < *log_size) {
    // Torn or corrupt tail: drop it durably before appending after it.
    SLUICE_RETURN_IF_ERROR((*log)->Truncate(pos));
    SLUICE_RETURN_IF_ERROR((*log)->Sync());
  }

  return std::unique_ptr<RedoLog>(new RedoLog(fs, dir, options, std::move(*log), std::move(*ctl),
                                              pos, checkpoint, seq));
}

RedoLog::RedoLog(io::FileSystem* fs, std::string dir, const Options& options, std::unique_ptr<io::File> log,
                 std::unique_ptr<io::File> ctl, uint64_t end_lsn, uint64_t checkpoint_lsn,
                 uint64_t ctl_seq)
    : fs_(fs),
      dir_(std::move(dir)),
      options_(options),
      log_(std::move(log)),
      ctl_(std::move(ctl)),
      ctl_seq_(ctl_seq),
      current_lsn_(end_lsn),
      written_lsn_(end_lsn),
      flushed_lsn_(end_lsn),
      checkpoint_lsn_(checkpoint_lsn) {
  if (options_.flush_interval.count() > 0) background_ = std::thread([this] {
      NameThisThread("sl_redo_flush");
      BackgroundLoop();
    });
}

RedoLog::~RedoLog() {
  // No flush here: a crash test destroys the log after dropping unsynced
  // data. Close() is the clean shutdown.
  StopBackground();
}

void RedoLog::StopBackground() {
  {
    MutexLock lk(&mu_);
    stop_ = true;
  }
  stop_cv_.NotifyAll();
  if (background_.joinable()) background_.join();
}

Status RedoLog::Close() {
  StopBackground();
  MutexLock lk(&mu_);
  return WaitLocked(current_lsn_, /*sync=*/true);
}

Result<uint64_t> RedoLog::Append(std::string_view payload, uint8_t type) {
  if (type == 0) return Status::InvalidArgument("redo record type 0 is reserved");
  if (payload.size() > kMaxPayload) return Status::InvalidArgument("redo record too large");
  MutexLock lk(&mu_);
  if (!error_.ok()) return error_;
  const uint64_t start = current_lsn_;
  char hdr[kRecordHeaderSize];
  PutU32(hdr + 4, static_cast<uint32_t>(payload.size()));
  hdr[8] = static_cast<char>(type);
  PutU32(hdr, RecordCrc(start, hdr + 4, payload));
  pending_.append(hdr, sizeof(hdr));
  pending_.append(payload.data(), payload.size());
  current_lsn_ = start + FramedSize(payload.size());
  const uint64_t end = current_lsn_;
  if (pending_.size() >= options_.buffer_size && !leader_active_) {
    Status st = LeadFlush(/*sync=*/false);
    if (!st.ok()) return st;
  }
  return end;
}

Status RedoLog::LeadFlush(bool sync) {
  leader_active_ = true;
  std::string buf;
  buf.swap(pending_);
  const uint64_t start = written_lsn_;
  const uint64_t end = current_lsn_;
  const bool do_sync = (sync || sync_requested_lsn_ > flushed_lsn_) && end > flushed_lsn_;
  mu_.Unlock();

  // flush stage
  Status st;
  bool wrote = false;
  if (!buf.empty()) {
    st = log_->WriteAt(start, buf);
    wrote = true;
  }
  // sync stage
  bool synced = false;
  if (st.ok() && do_sync) {
    st = log_->Sync();
    synced = true;
  }

  mu_.Lock();
  // commit stage: publish and wake the followers.
  if (wrote) {
    ++stats_.writes;
    if (st.ok()) stats_.bytes_written += buf.size();
  }
  if (synced) ++stats_.fsyncs;
  if (st.ok()) {
    written_lsn_ = end;
    if (do_sync) flushed_lsn_ = std::max(flushed_lsn_, end);
  } else if (error_.ok()) {
    error_ = st;
  }
  leader_active_ = false;
  cv_.NotifyAll();
  return error_.ok() ? st : error_;
}

Status RedoLog::WaitLocked(uint64_t lsn, bool sync) {
  if (lsn > current_lsn_) {
    return Status::InvalidArgument("redo lsn " + std::to_string(lsn) + " is past the end " +
                                   std::to_string(current_lsn_));
  }
  for (;;) {
    if (!error_.ok()) return error_;
    if ((sync ? flushed_lsn_ : written_lsn_) >= lsn) return Status::OK();
    if (sync) sync_requested_lsn_ = std::max(sync_requested_lsn_, lsn);
    if (leader_active_) {
      // Follower: the leader's flush ends in bounded time (one write+fsync).
      cv_.Wait(&mu_);
      continue;
    }
    Status st = LeadFlush(sync);
    if (!st.ok()) return st;
  }
}

Status RedoLog::WaitFlushed(uint64_t lsn, Durability durability) {
  MutexLock lk(&mu_);
  switch (durability) {
    case Durability::kNone:
      if (!error_.ok()) return error_;
      if (lsn > current_lsn_) return Status::InvalidArgument("redo lsn past the end");
      return Status::OK();
    case Durability::kWriteEachCommit:
      return WaitLocked(lsn, /*sync=*/false);
    case Durability::kSyncEachCommit: {
      Status st = WaitLocked(lsn, /*sync=*/true);
      if (st.ok()) ++stats_.commits_served;
      return st;
    }
  }
  return Status::InvalidArgument("unknown durability");
}

Status RedoLog::FlushUpTo(uint64_t lsn) {
  MutexLock lk(&mu_);
  return WaitLocked(std::min(lsn, current_lsn_), /*sync=*/true);
}

Status RedoLog::Checkpoint(uint64_t lsn) {
  MutexLock ck(&ckpt_mu_);
  {
    MutexLock lk(&mu_);
    if (!error_.ok()) return error_;
    if (lsn > flushed_lsn_) {
      return Status::InvalidArgument("checkpoint " + std::to_string(lsn) + " is past flushed lsn " +
                                     std::to_string(flushed_lsn_));
    }
    if (lsn < checkpoint_lsn_) return Status::InvalidArgument("checkpoint lsn moves backwards");
  }
  const uint64_t seq = ctl_seq_ + 1;
  char slot[kSlotPayload + 4];
  PutU64(slot, kCtlMagic);
  PutU64(slot + 8, seq);
  PutU64(slot + 16, lsn);
  PutU32(slot + kSlotPayload, Crc(0, slot, kSlotPayload));
  Status st = ctl_->WriteAt((seq % 2) * kSlotSize, std::string_view(slot, sizeof(slot)));
  if (st.ok()) st = ctl_->Sync();
  MutexLock lk(&mu_);
  if (!st.ok()) {
    if (error_.ok()) error_ = st;
    return error_;
  }
  ctl_seq_ = seq;
  checkpoint_lsn_ = lsn;
  return Status::OK();
}

void RedoLog::BackgroundLoop() {
  MutexLock lk(&mu_);
  while (!stop_) {
    // Its own condition variable: waking at every commit's flush only to
    // sleep again was a quarter of a context switch per commit.
    const auto deadline = std::chrono::steady_clock::now() + options_.flush_interval;
    while (!stop_ && std::chrono::steady_clock::now() < deadline) {
      if (!stop_cv_.WaitUntil(&mu_, deadline)) break;
    }
    if (stop_) break;
    if (!error_.ok()) continue;
    if (leader_active_ || flushed_lsn_ >= current_lsn_) continue;
    (void)LeadFlush(/*sync=*/true);  // a failure is sticky in error_
  }
}

uint64_t RedoLog::current_lsn() const {
  MutexLock lk(&mu_);
  return current_lsn_;
}
uint64_t RedoLog::written_lsn() const {
  MutexLock lk(&mu_);
  return written_lsn_;
}
uint64_t RedoLog::flushed_lsn() const {
  MutexLock lk(&mu_);
  return flushed_lsn_;
}
uint64_t RedoLog::checkpoint_lsn() const {
  MutexLock lk(&mu_);
  return checkpoint_lsn_;
}
RedoLog::Stats RedoLog::stats() const {
  MutexLock lk(&mu_);
  return stats_;
}
Status RedoLog::error() const {
  MutexLock lk(&mu_);
  return error_;
}

}  // namespace sluice::storage
