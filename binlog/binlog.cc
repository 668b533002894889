#include "binlog/binlog.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "base/cpus.h"
#include "base/io/write_file_atomically.h"
#include "base/log.h"
#include "binlog/bytes_internal.h"
#include "binlog/event_internal.h"
#include "binlog/file_reader.h"

namespace sluice::binlog {

using internal::LoadLE;
using internal::StoreLE;

namespace {

// Offset of the Format_description's flags byte (after the 4-byte magic):
// BINLOG_IN_USE_F is set there while the file is written.
constexpr uint64_t kFdeFlagsOffset = 4 + 17;

// Clears BINLOG_IN_USE_F in `file` and syncs it. The flag is outside the
// FDE's CRC (computed with it cleared), so only that byte changes.
Status ClearInUseFlag(io::File& file) {
  char flags = 0;
  Result<size_t> got = file.ReadAt(kFdeFlagsOffset, &flags, 1);
  if (!got.ok()) return got.status();
  if (*got != 1 || (flags & kLogEventBinlogInUse) == 0) return Status::OK();
  flags = static_cast<char>(flags & ~kLogEventBinlogInUse);
  SLUICE_RETURN_IF_ERROR(file.WriteAt(kFdeFlagsOffset, std::string_view(&flags, 1)));
  return file.Sync();
}

uint64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint32_t NowSeconds() { return static_cast<uint32_t>(NowMicros() / 1000000); }

constexpr uint64_t kOffsetBits = 40;

// A published position as one atomic word: file number << 40 | offset.
uint64_t PackEnd(uint32_t file_number, uint64_t offset) { return (uint64_t{file_number} << kOffsetBits) | offset; }
Binlog::End UnpackEnd(uint64_t v) {
  return Binlog::End{static_cast<uint32_t>(v >> kOffsetBits), v & ((uint64_t{1} << kOffsetBits) - 1)};
}

// Appends `event` (built with `from`'s checksum) to `out` in checksum
// `to`'s form: the four CRC bytes dropped, or added as zeros, and
// event_size set to match. The CRC itself is PatchLogPos's to compute.
void AppendInForm(std::string& out, std::string_view event, Checksum from, Checksum to) {
  const bool from_crc = from == Checksum::kCrc32, to_crc = to == Checksum::kCrc32;
  if (from_crc == to_crc) {
    out.append(event);
    return;
  }
  const size_t start = out.size();
  out.append(event.substr(0, event.size() - (from_crc ? kChecksumLen : 0)));
  if (to_crc) out.append(kChecksumLen, '\0');
  StoreLE(out.data() + start + 9, out.size() - start, 4);
}

// Appends `event` (built with `from`'s checksum) to `out` as an event of a
// file with checksum `to`, with log_pos = `log_pos`.
void AppendPatched(std::string& out, std::string_view event, Checksum from, Checksum to, uint64_t end_in_file) {
  const size_t start = out.size();
  AppendInForm(out, event, from, to);
  PatchLogPos(out.data() + start, static_cast<uint32_t>(end_in_file), to);
}

size_t PatchedSize(size_t size, Checksum from, Checksum to) {
  if (from == to || (from != Checksum::kCrc32 && to != Checksum::kCrc32)) return size;
  return from == Checksum::kCrc32 ? size - kChecksumLen : size + kChecksumLen;
}

}  // namespace

// ---------------------------------------------------------------- TransactionCache

TransactionCache::~TransactionCache() = default;

namespace {
// A failure of the spill file, as MySQL reports one of a temporary file
// (ER_ERROR_ON_WRITE): the statement fails, the session goes on.
Status SpillError(const Status& io_error) {
  return Status::MySQL(1026, "HY000", fmt::format("Error writing file 'binlog cache' ({})", io_error.message()));
}
}  // namespace

Status TransactionCache::MakeRoom(uint64_t size) {
  if (size_ + size > max_size_) {
    return Status::MySQL(1197, "HY000",
                         "Multi-statement transaction required more than 'max_binlog_cache_size' bytes of storage; "
                         "increase this mysqld variable and try again");
  }
  // Past cache_size in memory: what is in memory goes to the file (the
  // whole cache the first time, the tail after that), so that memory stays
  // about cache_size.
  if (mem_.size() + size > cache_size_) SLUICE_RETURN_IF_ERROR(Spill());
  return Status::OK();
}

Status TransactionCache::Append(std::string_view event) {
  SLUICE_RETURN_IF_ERROR(MakeRoom(event.size()));
  mem_.append(event);
  size_ += event.size();
  return Status::OK();
}

Status TransactionCache::AppendWithoutCrc(std::string_view event) {
  const uint64_t size = PatchedSize(event.size(), Checksum::kOff, checksum_);
  SLUICE_RETURN_IF_ERROR(MakeRoom(size));
  AppendInForm(mem_, event, Checksum::kOff, checksum_);
  size_ += size;
  return Status::OK();
}

Status TransactionCache::Spill() {
  if (file_ == nullptr) {
    io::FileSystem& fs = fs_ != nullptr ? *fs_ : io::DefaultFileSystem();
    Result<std::unique_ptr<io::File>> file = fs.NewTempFile(temp_dir_);
    if (!file.ok()) return SpillError(file.status());
    file_ = std::move(file).value();
  }
  // On failure nothing changes: the bytes stay in memory, and a later write
  // at file_size_ overwrites whatever part of them landed.
  if (Status s = file_->WriteAt(file_size_, mem_); !s.ok()) return SpillError(s);
  file_size_ += mem_.size();
  mem_.clear();
  if (mem_.capacity() > cache_size_) mem_.shrink_to_fit();
  spilled_ = true;
  return Status::OK();
}

Status TransactionCache::Truncate(uint64_t size) {
  if (size >= size_) return Status::OK();
  if (size >= file_size_) {
    mem_.resize(size - file_size_);
  } else {
    if (Status s = file_->Truncate(size); !s.ok()) return SpillError(s);
    mem_.clear();
    file_size_ = size;
  }
  size_ = size;
  return Status::OK();
}

void TransactionCache::Clear() {
  mem_.clear();
  if (mem_.capacity() > cache_size_) mem_.shrink_to_fit();
  file_.reset();  // an unnamed temporary file: closing it frees it
  file_size_ = 0;
  size_ = 0;
  spilled_ = false;
  has_statements_ = false;
}

Status TransactionCache::ForEachChunkSpilled(const std::function<Status(std::string_view)>& f) const {
  std::string chunk;
  uint64_t pos = 0;
  constexpr size_t kChunk = size_t{1} << 20;
  auto read = [&](uint64_t offset, char* out, size_t n) -> Status {
    Result<size_t> got = file_->ReadAt(offset, out, n);
    if (!got.ok()) return got.status();
    if (*got != n) return Status::IOError(fmt::format("binlog cache read: short read at {}", offset));
    return Status::OK();
  };
  // The file holds whole events (it is written in whole events), then memory.
  while (pos < file_size_) {
    chunk.clear();
    // Whole events, about kChunk bytes at a time.
    while (pos < file_size_ && (chunk.empty() || chunk.size() < kChunk)) {
      char header[kHeaderLen];
      SLUICE_RETURN_IF_ERROR(read(pos, header, kHeaderLen));
      const uint32_t size = static_cast<uint32_t>(LoadLE(header + 9, 4));
      if (size < kHeaderLen || pos + size > file_size_) return Status::Corruption("binlog cache: bad event size");
      const size_t at = chunk.size();
      chunk.resize(at + size);
      SLUICE_RETURN_IF_ERROR(read(pos, chunk.data() + at, size));
      pos += size;
    }
    SLUICE_RETURN_IF_ERROR(f(chunk));
  }
  return mem_.empty() ? Status::OK() : f(mem_);
}

// ---------------------------------------------------------------- Binlog

struct Binlog::Ticket {
  const TransactionCache* cache;
  uint32_t timestamp;
  uint64_t engine_mark;
  CommitResult result;  // the leader's, until `done`
  Status status;        // the leader's, until `done`
  uint64_t generation = 0;  // the queue it joined (Binlog::queue_generation_)
  bool done = false;        // under queue_mu_
};

Binlog::Binlog(Options options)
    : options_(std::move(options)),
      fs_(options_.fs != nullptr ? *options_.fs : io::DefaultFileSystem()),
      sync_binlog_(options_.sync_binlog),
      max_size_(options_.max_size),
      expire_seconds_(options_.expire_seconds),
      server_id_(options_.server_id),
      checksum_(options_.checksum),
      gtid_mode_(options_.gtid_mode),
      after_sync_backlog_(options_.after_sync_backlog != 0
                              ? options_.after_sync_backlog
                              : std::max<size_t>(4, 2 * size_t{UsableCpus()})) {
  notifier_ = std::thread([this] { NotifierLoop(); });
}

Binlog::~Binlog() {
  (void)Close();
  {
    MutexLock l(&notifier_mu_);
    notifier_stop_ = true;
  }
  notifier_cv_.NotifyOne();
  if (notifier_.joinable()) notifier_.join();
}

std::string Binlog::FileName(uint32_t number) const { return fmt::format("{}.{:06d}", options_.basename, number); }

std::string Binlog::FilePath(const std::string& name) const { return options_.dir + "/" + name; }

namespace {
// "binlog.000012" -> 12 for basename "binlog"; nullopt otherwise.
std::optional<uint32_t> FileNumber(std::string_view basename, std::string_view name) {
  if (name.starts_with("./")) name.remove_prefix(2);
  if (name.size() <= basename.size() + 1 || !name.starts_with(basename) || name[basename.size()] != '.') {
    return std::nullopt;
  }
  std::string_view digits = name.substr(basename.size() + 1);
  if (digits.size() < 6) return std::nullopt;
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
    if (n > 0xffffff) return std::nullopt;
  }
  return static_cast<uint32_t>(n);
}

// The Previous_gtids set of a binlog file (empty when it has none).
Result<GtidSet> ReadPreviousGtids(io::FileSystem& fs, const std::string& path) {
  Result<std::unique_ptr<BinlogFileReader>> r = BinlogFileReader::Open(path, /*verify_checksums=*/false, &fs);
  if (!r.ok()) return r.status();
  for (int i = 0; i < 2; ++i) {
    Result<std::optional<BinlogFileReader::Event>> ev = (*r)->Next();
    if (!ev.ok()) return ev.status();
    if (!ev->has_value()) break;
    if ((*ev)->header.type == kPreviousGtidsEvent) return DecodePreviousGtids((*ev)->bytes, (*r)->format().checksum);
  }
  return GtidSet();
}
}  // namespace

Result<std::unique_ptr<Binlog>> Binlog::Open(Options options, RecoveryInfo* recovery) {
  std::unique_ptr<Binlog> b(new Binlog(std::move(options)));
  RecoveryInfo local;
  MutexLock lock(&b->flush_mu_);
  SLUICE_RETURN_IF_ERROR(b->RecoverLocked(recovery != nullptr ? recovery : &local));
  return b;
}

Status Binlog::RecoverLocked(RecoveryInfo* recovery) {
  const std::string index_path = FilePath(options_.basename + ".index");
  Result<std::optional<std::string>> index = io::ReadFileIfExists(fs_, index_path);
  if (!index.ok()) return index.status();
  std::vector<uint32_t> files;
  if (index->has_value()) {
    std::string_view rest = **index;
    while (!rest.empty()) {
      const size_t eol = rest.find('\n');
      std::string_view line = rest.substr(0, eol);
      rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
      if (line.empty()) break;
      std::optional<uint32_t> n = FileNumber(options_.basename, line);
      if (!n) return Status::Corruption(fmt::format("binlog index {}: bad line '{}'", index_path, line));
      // A file listed but gone (removed by hand) is skipped, as a purge.
      Result<bool> exists = fs_.Exists(FilePath(FileName(*n)));
      if (!exists.ok()) return exists.status();
      if (*exists) files.push_back(*n);
    }
  }
  {
    MutexLock s(&state_mu_);
    files_ = files;
  }
  if (files.empty()) return Status::OK();

  // gtid_purged: what the oldest file says came before it.
  Result<GtidSet> purged = ReadPreviousGtids(fs_, FilePath(FileName(files.front())));
  if (!purged.ok()) return purged.status();

  // The last file: everything up to its last whole transaction counts.
  const std::string last = FileName(files.back());
  recovery->last_file = last;
  Result<std::unique_ptr<BinlogFileReader>> rr =
      BinlogFileReader::Open(FilePath(last), /*verify_checksums=*/true, &fs_);
  if (!rr.ok()) return rr.status();
  BinlogFileReader& r = **rr;
  GtidSet executed;
  uint64_t boundary = 4;  // end of the last complete transaction / control event
  uint64_t max_xid = 0;
  // The transaction being read: its GTID and Xid, and whether it began
  // with BEGIN (then it ends at Xid or COMMIT; else its one Query ends it).
  std::optional<GtidInfo> gtid;
  bool in_begin = false;
  std::optional<uint64_t> xid;
  auto finish_trx = [&](uint64_t end) {
    if (gtid && !gtid->anonymous) executed.Add(gtid->sid, gtid->gno);
    if (xid) {
      recovery->xids.insert(*xid);
      max_xid = std::max(max_xid, *xid);
    }
    gtid.reset();
    xid.reset();
    in_begin = false;
    boundary = end;
  };
  const Checksum cs = r.format().checksum;
  while (true) {
    Result<std::optional<BinlogFileReader::Event>> ev = r.Next();
    if (!ev.ok()) break;  // a torn or corrupt tail: cut at the boundary
    if (!ev->has_value()) break;
    const BinlogFileReader::Event& e = **ev;
    const uint64_t end = e.offset + e.bytes.size();
    switch (e.header.type) {
      case kFormatDescriptionEvent:
        recovery->crashed = (e.header.flags & kLogEventBinlogInUse) != 0;
        boundary = end;
        break;
      case kPreviousGtidsEvent: {
        Result<GtidSet> p = DecodePreviousGtids(e.bytes, cs);
        if (!p.ok()) return p.status();
        executed = *p;
        boundary = end;
        break;
      }
      case kGtidEvent:
      case kAnonymousGtidEvent: {
        Result<GtidInfo> g = DecodeGtid(e.bytes, cs);
        if (!g.ok()) return g.status();
        gtid = *g;
        in_begin = false;
        xid.reset();
        break;
      }
      case kQueryEvent: {
        Result<QueryInfo> q = DecodeQuery(e.bytes, cs);
        if (!q.ok()) return q.status();
        if (q->query == "BEGIN") {
          in_begin = true;
        } else if (!in_begin || q->query == "COMMIT" || q->query == "ROLLBACK") {
          finish_trx(end);
        }
        break;
      }
      case kXidEvent: {
        Result<uint64_t> x = DecodeXid(e.bytes, cs);
        if (!x.ok()) return x.status();
        xid = *x;
        finish_trx(end);
        break;
      }
      case kRotateEvent:
      case kStopEvent:
        if (!gtid) boundary = end;
        break;
      default:
        break;  // Table_map, rows events: inside a transaction
    }
  }
  rr->reset();
  Result<std::unique_ptr<io::File>> last_file = fs_.Open(FilePath(last), io::OpenMode::kOpenExisting);
  if (!last_file.ok()) return last_file.status();
  Result<uint64_t> size = (*last_file)->Size();
  if (!size.ok()) return size.status();
  if (boundary < *size) {
    recovery->truncated_bytes = *size - boundary;
    SLUICE_RETURN_IF_ERROR((*last_file)->Truncate(boundary));
  }
  next_xid_.store(max_xid + 1, std::memory_order_relaxed);
  {
    MutexLock s(&state_mu_);
    gtid_executed_ = std::move(executed);
    gtid_purged_ = std::move(*purged);
  }
  file_number_ = files.back();
  file_size_ = boundary;
  return Status::OK();
}

Status Binlog::StartWriting() {
  MutexLock lock(&flush_mu_);
  if (writing_) return Status::OK();
  uint32_t number = 1;
  {
    MutexLock s(&state_mu_);
    if (!files_.empty()) number = files_.back() + 1;
  }
  if (number > 1) {
    // The old last file is now closed: clear its in-use flag (its CRC was
    // computed without it).
    // Best effort, as before: a flag left set only makes the next start
    // read the file as one that crashed, which is harmless.
    Result<std::unique_ptr<io::File>> old = fs_.Open(FilePath(FileName(number - 1)), io::OpenMode::kOpenExisting);
    if (old.ok()) (void)ClearInUseFlag(**old);
  }
  first_file_ = true;
  SLUICE_RETURN_IF_ERROR(OpenNewFileLocked(number));
  writing_ = true;
  PurgeExpiredLocked();
  return Status::OK();
}

Status Binlog::OpenNewFileLocked(uint32_t number) {
  const std::string name = FileName(number);
  const std::string path = FilePath(name);
  Result<std::unique_ptr<io::File>> opened = fs_.Open(path, io::OpenMode::kOpenOrCreate);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<io::File> file = std::move(*opened);
  const Checksum cs = checksum_.load(std::memory_order_relaxed);
  std::string head(kBinlogMagic, 4);
  EventHeader h;
  h.timestamp = NowSeconds();
  h.server_id = server_id();
  h.type = kFormatDescriptionEvent;
  h.flags = kLogEventBinlogInUse;
  std::string fde = EncodeFormatDescription(h, options_.server_version, first_file_ ? h.timestamp : 0, cs);
  first_file_ = false;
  // FDE's log_pos: patched below (its CRC is over the flags cleared).
  StoreLE(fde.data() + 13, 4 + fde.size(), 4);
  {
    std::string copy = fde;
    copy[17] = static_cast<char>(copy[17] & ~kLogEventBinlogInUse);
    StoreLE(fde.data() + fde.size() - 4, Crc32(std::string_view(copy).substr(0, copy.size() - 4)), 4);
  }
  head += fde;
  EventHeader p;
  p.timestamp = h.timestamp;
  p.server_id = h.server_id;
  p.type = kPreviousGtidsEvent;
  GtidSet executed = gtid_executed();
  std::string prev = EncodePreviousGtids(p, executed, cs);
  PatchLogPos(prev.data(), static_cast<uint32_t>(head.size() + prev.size()), cs);
  head += prev;
  Status s = file->Truncate(0);  // a file of that name left over
  if (s.ok()) s = file->WriteAt(0, head);
  if (s.ok()) s = file->Sync();
  if (!s.ok()) {
    file.reset();
    (void)fs_.Remove(path);
    return s;
  }
  {
    MutexLock st(&state_mu_);
    files_.push_back(number);
  }
  s = WriteIndexLocked();
  if (!s.ok()) {
    MutexLock st(&state_mu_);
    files_.pop_back();
    return s;
  }
  file_ = std::move(file);
  file_number_ = number;
  file_size_ = head.size();
  file_checksum_ = cs;
  sequence_number_ = 0;
  last_group_end_ = 0;
  PublishEnd(number, file_size_);
  return Status::OK();
}

Status Binlog::WriteIndexLocked() {
  std::string text;
  {
    MutexLock s(&state_mu_);
    for (uint32_t n : files_) text += "./" + FileName(n) + "\n";
  }
  io::AtomicWriteOptions o;
  o.temp_suffix = "_crash_safe";  // MySQL's name for it
  return io::WriteFileAtomically(fs_, FilePath(options_.basename + ".index"), text, o);
}

Status Binlog::CloseFileLocked(bool stop_event) {
  if (file_ == nullptr) return Status::OK();
  if (!sync_error_.ok()) {
    // The file's durable state is unknown: no Stop or Rotate event, and the
    // in-use flag stays set, so the next start recovers the file as after a
    // crash.
    file_.reset();
    return sync_error_;
  }
  const Checksum cs = file_checksum_;
  EventHeader h;
  h.timestamp = NowSeconds();
  h.server_id = server_id();
  std::string ev;
  if (stop_event) {
    h.type = kStopEvent;
    ev = EncodeStop(h, cs);
  } else {
    h.type = kRotateEvent;
    ev = EncodeRotate(h, 4, FileName(file_number_ + 1), cs);
  }
  PatchLogPos(ev.data(), static_cast<uint32_t>(file_size_ + ev.size()), cs);
  Status s = file_->WriteAt(file_size_, ev);
  if (s.ok()) file_size_ += ev.size();
  if (s.ok()) s = SyncLocked();
  // Clear BINLOG_IN_USE_F: the file is complete.
  if (s.ok()) s = ClearInUseFlag(*file_);
  // A file that could not be finished cleanly is not written to again.
  if (!s.ok() && sync_error_.ok()) SetSyncErrorLocked("closing the binlog file", s);
  file_.reset();
  PublishEnd(file_number_, file_size_);
  return s.ok() ? s : sync_error_;
}

Status Binlog::RotateLocked() {
  if (!sync_error_.ok()) return sync_error_;
  SLUICE_RETURN_IF_ERROR(CloseFileLocked(/*stop_event=*/false));
  rotate_wanted_ = false;
  SLUICE_RETURN_IF_ERROR(OpenNewFileLocked(file_number_ + 1));
  PurgeExpiredLocked();
  return Status::OK();
}

Status Binlog::SyncLocked() {
  if (!sync_error_.ok()) return sync_error_;
  Status s = file_->Sync();
  if (s.ok()) return s;
  SetSyncErrorLocked("sync stage of the commit", s);
  return sync_error_;
}

void Binlog::SetSyncErrorLocked(std::string_view stage, const Status& cause) {
  // MySQL's binlog_error_action=ABORT_SERVER stops the server here; sluice
  // stays up (reads and SHOW go on) but refuses every later commit, so no
  // commit is acknowledged whose binlog was not durably written.
  // ER_BINLOG_LOGGING_IMPOSSIBLE, worded as MySQL's sync-stage failure.
  sync_error_ = Status::MySQL(1598, "HY000",
                              fmt::format("Binary logging not possible. Message: An error occurred during {} ({}); "
                                          "commits are refused until the server restarts",
                                          stage, cause.message()));
  SLUICE_LOG_ERROR(base::GetLogger("binlog"), 0, "{}", sync_error_.message());
}

Status Binlog::sync_error() const {
  MutexLock lock(&flush_mu_);
  return sync_error_;
}

void Binlog::WaitNoPendingLocked() {
  MutexLock p(&pending_mu_);
  while (pending_ != 0) pending_cv_.Wait(&pending_mu_);
}

Status Binlog::Close() {
  MutexLock lock(&flush_mu_);
  if (!writing_) return Status::OK();
  WaitNoPendingLocked();
  writing_ = false;
  return CloseFileLocked(/*stop_event=*/true);
}

Status Binlog::Rotate() {
  MutexLock lock(&flush_mu_);
  if (!writing_) return Status::MySQL(1381, "HY000", "You are not using binary logging");
  WaitNoPendingLocked();
  return RotateLocked();
}

Status Binlog::SetChecksum(Checksum c) {
  MutexLock lock(&flush_mu_);
  if (checksum_.exchange(c) == c || !writing_) return Status::OK();
  WaitNoPendingLocked();
  return RotateLocked();
}

// ---------------------------------------------------------------- commit

Status Binlog::Commit(const TransactionCache& cache, uint32_t timestamp, CommitResult* result,
                      uint64_t engine_mark) {
  Ticket me{&cache, timestamp, engine_mark, {}, Status::OK()};
  {
    MutexLock q(&queue_mu_);
    me.generation = queue_generation_;
    queue_.push_back(&me);
    if (queue_.size() > 1) {
      // A leader is gathering (or about to gather) this queue, and wakes
      // its followers once they are through after_sync.
      CondVar& cv = group_cv_[me.generation % kGroupCvs];
      while (!me.done) cv.Wait(&queue_mu_);
      if (result != nullptr) *result = std::move(me.result);
      return me.status;
    }
  }
  CommitHooks* const hooks = hooks_.load(std::memory_order_acquire);
  const bool after_sync = hooks != nullptr && hooks->WantsAfterSync();
  if (after_sync) AwaitAfterSyncBacklog();
  MutexLock flush(&flush_mu_);
  if (NextGroupSyncsLocked(sync_binlog_.load(std::memory_order_relaxed))) {
    // This group will be fsynced, which costs the same for one transaction
    // or twenty. While the queue still grows (the committers the last
    // group released are coming back), give them the CPU before taking
    // it, a few times at most: slap c16 with sync_binlog=1 went from 10 to
    // 13 transactions per group, sysbench oltp_insert 10-19 % faster. With
    // no one coming, one sched_yield.
    size_t size;
    {
      MutexLock q(&queue_mu_);
      size = queue_.size();
    }
    for (int i = 0; i < kGatherYields; ++i) {
      sched_yield();
      MutexLock q(&queue_mu_);
      if (queue_.size() == size) break;
      size = queue_.size();
    }
  }
  std::vector<Ticket*> group;
  uint64_t generation;
  {
    MutexLock q(&queue_mu_);
    group.swap(queue_);
    queue_.swap(spare_queue_);
    generation = queue_generation_++;
  }
  Status s = writing_ ? FlushGroupLocked(group)
                      : Status::MySQL(1381, "HY000", "You are not using binary logging");
  auto release_followers = [&] {
    const size_t n = group.size();
    {
      MutexLock q(&queue_mu_);
      for (Ticket* t : group) {
        if (!s.ok()) t->status = s;
        t->done = true;
      }
      group.clear();
      if (spare_queue_.capacity() < group.capacity()) spare_queue_.swap(group);
    }
    // One broadcast wakes the group; the next groups' followers wait on
    // other condition variables (a group waiting for its acks would wake
    // them for nothing otherwise).
    if (n > 1) group_cv_[generation % kGroupCvs].NotifyAll();
  };
  if (s.ok() && after_sync) {
    // The next group may be written and synced while this one's after_sync
    // hooks wait (semisync AFTER_SYNC). The leader runs them for every
    // transaction of its group, in order, so a follower sleeps once, here,
    // not once for the group and again for its ack.
    {
      MutexLock a(&after_sync_mu_);
      in_after_sync_ += group.size();
    }
    flush.Unlock();
    for (const Ticket* t : group) hooks->AfterSync(t->result.file, t->result.end);
    {
      MutexLock a(&after_sync_mu_);
      in_after_sync_ -= group.size();
      // The only waiter there can be is the next leader.
      if (in_after_sync_ == 0) after_sync_cv_.NotifyOne();
    }
    release_followers();
  } else {
    // Followers first: the next leader takes its queue once it gets
    // flush_mu_, and by then they may have queued their next transactions.
    // Letting it in first made groups smaller (slap c16, sync_binlog=1:
    // 8.7 transactions per group instead of 9.8).
    release_followers();
    flush.Unlock();
  }
  if (result != nullptr) *result = std::move(me.result);
  return me.status;
}

void Binlog::AwaitAfterSyncBacklog() {
  // With many transactions waiting for their acks, a machine with few
  // cores is busy, and one bigger group costs less than another group
  // overlapping their round trips: one write, one ack request, one wake-up
  // instead of several. Slap with one semisync reader (2 cores, 100000
  // inserts, three alternating runs): c16 18000 groups instead of 65000, 72
  // instead of 91 µs of server CPU per insert, 14 % less time; c64 64
  // instead of 79 µs, 14 % less time. With a few committers the round
  // trips overlap as before: c2 and c4 unchanged, where waiting behind any
  // transaction in after_sync made c2 30 % slower. The threshold grows
  // with the cores (two per CPU): on 16 cores a threshold of 4 left one
  // group waiting for its acks at a time, and 1semi at c16 did 41000-43000
  // inserts/s; with 32, 60000 (never waiting: 57000-65000 at c16, but
  // 57000-58000 at c64 against 64000-65000, with more CPU).
  MutexLock a(&after_sync_mu_);
  if (in_after_sync_ < after_sync_backlog_) return;
  // The groups in after_sync finish (acked, or semisync times out and
  // turns off); no new one starts while this leader, the only one, waits.
  while (in_after_sync_ > 0) after_sync_cv_.Wait(&after_sync_mu_);
}

void Binlog::CommitDone() {
  MutexLock p(&pending_mu_);
  if (pending_ > 0 && --pending_ == 0) pending_cv_.NotifyAll();
}

Status Binlog::FlushGroupLocked(std::vector<Ticket*>& group) {
  // After a failed sync nothing more is written: the file's durable
  // content is unknown, and a commit acknowledged now could be lost.
  if (!sync_error_.ok()) return sync_error_;
  // No file: a rotation failed to open the next one; try again.
  if (file_ == nullptr || rotate_wanted_ || file_size_ >= max_size_.load(std::memory_order_relaxed)) {
    WaitNoPendingLocked();
    SLUICE_RETURN_IF_ERROR(RotateLocked());
  }
  // The group's prepare records first: nothing reaches the binlog whose
  // prepare a crash could lose.
  uint64_t mark = 0;
  for (const Ticket* t : group) mark = std::max(mark, t->engine_mark);
  if (mark != 0) {
    EngineFlush* ef = engine_flush_.load(std::memory_order_acquire);
    if (ef == nullptr) return Status::InvalidArgument("binlog: a prepare mark and no engine to flush it");
    SLUICE_RETURN_IF_ERROR(ef->FlushUpTo(mark));
  }
  const Checksum cs = file_checksum_;
  const uint64_t start = file_size_;
  uint64_t offset = start;
  std::string buf;
  buf.swap(group_buf_);  // the last group's buffer, emptied: its capacity
  buf.clear();
  Status s;
  uint64_t written = start;
  io::File* const active = file_.get();  // the lambdas below are analysed without flush_mu_
  auto write_out = [&]() -> Status {
    if (buf.empty()) return Status::OK();
    Status w = active->WriteAt(written, buf);
    written += buf.size();
    buf.clear();
    return w;
  };
  Uuid sid = options_.server_uuid;
  int64_t next_gno;
  {
    MutexLock st(&state_mu_);
    next_gno = gtid_executed_.LastGno(sid) + 1;
  }
  const bool gtids = gtid_mode_.load(std::memory_order_relaxed);
  const int64_t last_committed = last_group_end_;
  const int64_t first_gno = next_gno;
  // Formatted once per group: this runs under flush_mu_, which every
  // committer behind this group waits for. Each committer's GTID text is
  // formatted by whoever needs it, after this lock (CommitResult::gtid).
  const std::string file_name = FileName(file_number_);
  for (Ticket* t : group) {
    const TransactionCache& cache = *t->cache;
    GtidInfo g;
    g.anonymous = !gtids;
    g.may_have_sbr = cache.has_statements();
    if (gtids) {
      g.sid = sid;
      g.gno = next_gno++;
    }
    g.last_committed = last_committed;
    g.sequence_number = ++sequence_number_;
    g.immediate_commit_timestamp = NowMicros();
    g.original_commit_timestamp = g.immediate_commit_timestamp;
    // The cache's size in this file's checksum form.
    uint64_t body = 0;
    if (cache.checksum() == cs) {
      body = cache.size();
    } else {
      s = cache.ForEachChunk([&](std::string_view chunk) {
        while (!chunk.empty()) {
          const uint32_t size = static_cast<uint32_t>(LoadLE(chunk.data() + 9, 4));
          body += PatchedSize(size, cache.checksum(), cs);
          chunk.remove_prefix(size);
        }
        return Status::OK();
      });
      if (!s.ok()) break;
    }
    g.transaction_length = 0;
    uint64_t gsize = GtidEventSize(g, cs);
    for (int i = 0; i < 3; ++i) {  // the length's own lenenc width: a fix point
      g.transaction_length = gsize + body;
      gsize = GtidEventSize(g, cs);
    }
    g.transaction_length = gsize + body;
    EventHeader h;
    h.timestamp = t->timestamp;
    h.server_id = server_id();
    h.type = gtids ? kGtidEvent : kAnonymousGtidEvent;
    h.log_pos = static_cast<uint32_t>(offset + gsize);
    const size_t gtid_at = buf.size();
    AppendGtid(buf, h, g, cs);
    offset += buf.size() - gtid_at;
    s = cache.ForEachChunk([&](std::string_view chunk) {
      while (!chunk.empty()) {
        const uint32_t size = static_cast<uint32_t>(LoadLE(chunk.data() + 9, 4));
        const uint64_t out_size = PatchedSize(size, cache.checksum(), cs);
        AppendPatched(buf, chunk.substr(0, size), cache.checksum(), cs, offset + out_size);
        offset += out_size;
        chunk.remove_prefix(size);
      }
      return buf.size() >= (size_t{4} << 20) ? write_out() : Status::OK();
    });
    if (!s.ok()) break;
    t->result.sid = sid;
    t->result.gno = gtids ? g.gno : 0;
    t->result.file = file_name;
    t->result.end = offset;
  }
  if (s.ok()) s = write_out();
  // Kept for the next group, unless a group of big transactions grew it.
  if (buf.capacity() <= (size_t{1} << 20)) group_buf_.swap(buf);
  if (!s.ok()) {
    // Nothing of the group may stay: cut the file back.
    (void)file_->Truncate(start);
    sequence_number_ = last_committed;
    return s;
  }
  file_size_ = offset;
  last_group_end_ = sequence_number_;
  stat_bytes_.fetch_add(offset - start, std::memory_order_relaxed);
  stat_commits_.fetch_add(group.size(), std::memory_order_relaxed);
  stat_groups_.fetch_add(1, std::memory_order_relaxed);
  if (CommitHooks* hooks = hooks_.load(std::memory_order_acquire)) hooks->AfterFlush(file_name, offset);

  const uint32_t n = sync_binlog_.load(std::memory_order_relaxed);
  if (!NextGroupSyncsLocked(n)) {
    if (n != 0) ++groups_since_sync_;
  } else {
    groups_since_sync_ = 0;
    if (Status e = SyncLocked(); !e.ok()) {
      // The group is not acknowledged (every committer gets the error and
      // rolls back) and, the error being sticky, neither is any later one.
      // Cut the group off as far as the file system still obeys; the next
      // start's recovery reads the file as after a crash.
      (void)file_->Truncate(start);
      file_size_ = start;
      sequence_number_ = last_committed;
      last_group_end_ = last_committed;
      return e;
    }
    stat_syncs_.fetch_add(1, std::memory_order_relaxed);
  }
  if (gtids && next_gno > first_gno) {
    MutexLock st(&state_mu_);
    gtid_executed_.AddInterval(sid, first_gno, next_gno - 1);
  }
  {
    MutexLock p(&pending_mu_);
    pending_ += group.size();
  }
  PublishEnd(file_number_, offset);
  if (file_size_ >= max_size_.load(std::memory_order_relaxed)) rotate_wanted_ = true;
  return Status::OK();
}

// ---------------------------------------------------------------- files

std::vector<BinlogFileInfo> Binlog::ListFiles() const {
  std::vector<uint32_t> files;
  {
    MutexLock s(&state_mu_);
    files = files_;
  }
  std::vector<BinlogFileInfo> out;
  for (uint32_t n : files) {
    BinlogFileInfo f;
    f.name = FileName(n);
    Result<std::unique_ptr<io::File>> file = fs_.Open(FilePath(f.name), io::OpenMode::kReadOnly);
    Result<uint64_t> size = file.ok() ? (*file)->Size() : Result<uint64_t>(file.status());
    f.size = size.ok() ? *size : 0;
    out.push_back(std::move(f));
  }
  return out;
}

std::pair<std::string, uint64_t> Binlog::CurrentPosition() const {
  End e = end();
  return {FileName(e.file_number), e.offset};
}

bool Binlog::HasFile(const std::string& name) const {
  std::optional<uint32_t> n = FileNumber(options_.basename, name);
  if (!n) return false;
  MutexLock s(&state_mu_);
  return std::find(files_.begin(), files_.end(), *n) != files_.end();
}

Status Binlog::PurgeFilesLocked(size_t count) {
  std::vector<uint32_t> gone;
  uint32_t first_kept;
  {
    MutexLock s(&state_mu_);
    count = std::min(count, files_.size() - 1);  // never the active file
    if (count == 0) return Status::OK();
    gone.assign(files_.begin(), files_.begin() + static_cast<long>(count));
    first_kept = files_[count];
  }
  Result<GtidSet> purged = ReadPreviousGtids(fs_, FilePath(FileName(first_kept)));
  if (!purged.ok()) return purged.status();
  {
    MutexLock s(&state_mu_);
    files_.erase(files_.begin(), files_.begin() + static_cast<long>(count));
    gtid_purged_ = std::move(*purged);
  }
  SLUICE_RETURN_IF_ERROR(WriteIndexLocked());
  for (uint32_t n : gone) (void)fs_.Remove(FilePath(FileName(n)));
  return Status::OK();
}

Status Binlog::PurgeTo(const std::string& name) {
  MutexLock lock(&flush_mu_);
  std::optional<uint32_t> n = FileNumber(options_.basename, name);
  size_t index = 0;
  {
    MutexLock s(&state_mu_);
    auto it = n ? std::find(files_.begin(), files_.end(), *n) : files_.end();
    if (it == files_.end()) return Status::MySQL(1373, "HY000", "Target log not found in binlog index");
    index = static_cast<size_t>(it - files_.begin());
  }
  return PurgeFilesLocked(index);
}

Status Binlog::PurgeBefore(int64_t unix_seconds) {
  MutexLock lock(&flush_mu_);
  return PurgeBeforeLocked(unix_seconds);
}

Status Binlog::PurgeBeforeLocked(int64_t unix_seconds) {
  std::vector<uint32_t> files;
  {
    MutexLock s(&state_mu_);
    files = files_;
  }
  size_t count = 0;  // the oldest files last written before the time
  for (size_t i = 0; i + 1 < files.size(); ++i) {
    Result<int64_t> mtime = fs_.ModificationTime(FilePath(FileName(files[i])));
    if (!mtime.ok() || *mtime >= unix_seconds) break;
    ++count;
  }
  return PurgeFilesLocked(count);
}

void Binlog::PurgeExpiredLocked() {
  const uint64_t expire = expire_seconds_.load(std::memory_order_relaxed);
  if (expire == 0) return;
  (void)PurgeBeforeLocked(static_cast<int64_t>(NowSeconds()) - static_cast<int64_t>(expire));
}

Status Binlog::Reset(uint64_t first_number) {
  MutexLock lock(&flush_mu_);
  if (first_number == 0 || first_number > 2000000000) first_number = 1;
  WaitNoPendingLocked();
  // RESET MASTER after a failed sync: refused as well (restart first), so
  // that the next start's recovery finds the file as the failure left it.
  if (!sync_error_.ok()) return sync_error_;
  file_.reset();
  std::vector<uint32_t> files;
  {
    MutexLock s(&state_mu_);
    files.swap(files_);
    gtid_executed_.Clear();
    gtid_purged_.Clear();
  }
  for (uint32_t n : files) (void)fs_.Remove(FilePath(FileName(n)));
  SLUICE_RETURN_IF_ERROR(WriteIndexLocked());
  if (!writing_) return Status::OK();
  return OpenNewFileLocked(static_cast<uint32_t>(first_number));
}

GtidSet Binlog::gtid_executed() const {
  MutexLock s(&state_mu_);
  return gtid_executed_;
}

Result<GtidSet> Binlog::PreviousGtidsOf(const std::string& name) const {
  return ReadPreviousGtids(fs_, FilePath(name));
}

GtidSet Binlog::gtid_purged() const {
  MutexLock s(&state_mu_);
  return gtid_purged_;
}

// ---------------------------------------------------------------- readers

void Binlog::PublishEnd(uint32_t number, uint64_t offset) {
  end_.store(PackEnd(number, offset), std::memory_order_seq_cst);
  WakeReaders();
}

void Binlog::WakeReaders() {
  // A reader registers as a waiter before it re-checks end_ (both seq_cst),
  // so either it sees the new end or this sees it waiting. Prompt readers
  // (a few semisync replicas, whose acks commits wait for) are woken here
  // at once; the others by the notifier, batched.
  if (prompt_waiters_.load(std::memory_order_seq_cst) != 0) {
    { MutexLock p(&prompt_mu_); }
    prompt_cv_.NotifyAll();
  }
  if (end_waiters_.load(std::memory_order_seq_cst) == 0) return;
  if (notify_pending_.exchange(true, std::memory_order_acq_rel)) return;  // the notifier will
  MutexLock l(&notifier_mu_);
  notifier_cv_.NotifyOne();
}

std::chrono::microseconds Binlog::ReaderWakeInterval(int readers) {
  return std::clamp(kReaderWakePerReader * std::max(readers, 0), kReaderWakeMin, kReaderWakeMax);
}

void Binlog::NotifierLoop() {
  MutexLock l(&notifier_mu_);
  while (true) {
    while (!notifier_stop_ && !notify_pending_.load(std::memory_order_acquire)) notifier_cv_.Wait(&notifier_mu_);
    if (notifier_stop_) break;
    l.Unlock();
    notify_pending_.store(false, std::memory_order_release);
    const int woken = end_waiters_.load(std::memory_order_relaxed);
    {
      MutexLock e(&end_mu_);
    }
    end_cv_.NotifyAll();
    // Ends published from now on wait for the next broadcast: one per
    // interval at most, however many groups commit meanwhile.
    std::this_thread::sleep_for(ReaderWakeInterval(woken));
    l.Lock();
  }
}

Binlog::End Binlog::end() const { return UnpackEnd(end_.load(std::memory_order_acquire)); }

Binlog::End Binlog::WaitForEnd(End seen, std::chrono::milliseconds timeout, bool capped, bool prompt) const {
  const uint64_t packed = PackEnd(seen.file_number, seen.offset);
  auto current = [&] {
    const uint64_t e = end_.load(std::memory_order_seq_cst);
    return capped ? std::min(e, reader_limit_.load(std::memory_order_seq_cst)) : e;
  };
  // Prompt readers wait on their own condition variable (WakeReaders).
  Mutex* mu = prompt ? &prompt_mu_ : &end_mu_;
  CondVar& cv = prompt ? prompt_cv_ : end_cv_;
  std::atomic<int>& waiters = prompt ? prompt_waiters_ : end_waiters_;
  MutexLock l(mu);
  waiters.fetch_add(1, std::memory_order_seq_cst);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (current() == packed) {
    if (!cv.WaitUntil(mu, deadline)) break;
  }
  waiters.fetch_sub(1, std::memory_order_relaxed);
  return capped ? reader_end() : end();
}

bool Binlog::SetReaderLimit(std::string_view file, uint64_t offset) {
  std::optional<uint32_t> n = FileNumber(options_.basename, file);
  if (!n || offset >= (uint64_t{1} << kOffsetBits)) return false;
  const uint64_t packed = PackEnd(*n, offset);
  if (reader_limit_.exchange(packed, std::memory_order_seq_cst) != packed) WakeReaders();
  return true;
}

void Binlog::ClearReaderLimit() {
  if (reader_limit_.exchange(UINT64_MAX, std::memory_order_seq_cst) != UINT64_MAX) WakeReaders();
}

Binlog::End Binlog::reader_end() const {
  return UnpackEnd(std::min(end_.load(std::memory_order_acquire), reader_limit_.load(std::memory_order_acquire)));
}

Binlog::Stats Binlog::stats() const {
  Stats s;
  s.commits = stat_commits_.load(std::memory_order_relaxed);
  s.groups = stat_groups_.load(std::memory_order_relaxed);
  s.syncs = stat_syncs_.load(std::memory_order_relaxed);
  s.bytes_written = stat_bytes_.load(std::memory_order_relaxed);
  return s;
}

size_t Binlog::queued() const {
  MutexLock q(&queue_mu_);
  return queue_.size();
}

}  // namespace sluice::binlog
