// storage/redo/redo_log.cc
#include "storage/redo/redo_log.h"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "base/thread_name.h"

namespace sluice::storage {

namespace {

constexpr char kLegacyLogName[] = "redo.log";  // the one file before segments
constexpr char kCtlName[] = "redo.ctl";
// A slot: [magic u64][seq u64][checkpoint u64][crc32 of bytes 0..24]
// [sealed u64][crc32 of bytes 0..36]. A slot from before sealing ends at the
// first crc (and a checkpoint written by such a version leaves whatever
// followed it, which the second crc then rejects); a version that reads
// only that far still reads the checkpoint.
constexpr uint64_t kCtlMagic = 0x534c554943454350ull;  // "SLUICECP"
constexpr size_t kSlotBase = 24;
constexpr size_t kSlotSealed = kSlotBase + 4;
constexpr size_t kSlotLength = kSlotSealed + 8 + 4;
constexpr uint64_t kSlotSize = 512;
// The sealed LSN of a slot without one: its writer fsynced every segment
// whole before it started the next, so every segment but the last is.
constexpr uint64_t kAllSealed = ~uint64_t{0};

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
  bool has_sealed = false;  // the second crc holds
  uint64_t sealed = 0;
};

Slot ParseSlot(const char* p, size_t n) {
  Slot s;
  if (n < kSlotBase + 4 || GetU64(p) != kCtlMagic) return s;
  if (GetU32(p + kSlotBase) != Crc(0, p, kSlotBase)) return s;
  s.valid = true;
  s.seq = GetU64(p + 8);
  s.lsn = GetU64(p + 16);
  s.has_sealed = n >= kSlotLength && GetU32(p + kSlotSealed + 8) == Crc(0, p, kSlotSealed + 8);
  if (s.has_sealed) s.sealed = GetU64(p + kSlotSealed);
  return s;
}

// Writes slot (seq % 2) and syncs the control file.
Status WriteSlot(io::File* ctl, uint64_t seq, uint64_t checkpoint, uint64_t sealed) {
  char slot[kSlotLength];
  PutU64(slot, kCtlMagic);
  PutU64(slot + 8, seq);
  PutU64(slot + 16, checkpoint);
  PutU32(slot + kSlotBase, Crc(0, slot, kSlotBase));
  PutU64(slot + kSlotSealed, sealed);
  PutU32(slot + kSlotSealed + 8, Crc(0, slot, kSlotSealed + 8));
  SLUICE_RETURN_IF_ERROR(ctl->WriteAt((seq % 2) * kSlotSize, std::string_view(slot, sizeof(slot))));
  return ctl->Sync();
}

// The start LSN a segment's file name gives, or nullopt for other names
// (only the exact spelling SegmentName writes).
std::optional<uint64_t> ParseSegmentName(const std::string& name) {
  constexpr std::string_view kPrefix = "redo.";
  if (name.compare(0, kPrefix.size(), kPrefix) != 0) return std::nullopt;
  uint64_t v = 0;
  const char* end = name.data() + name.size();
  auto [p, ec] = std::from_chars(name.data() + kPrefix.size(), end, v, 16);
  if (ec != std::errc() || p != end || name != RedoLog::SegmentName(v)) return std::nullopt;
  return v;
}

std::string SegmentPath(const std::string& dir, uint64_t start_lsn) {
  return dir + "/" + RedoLog::SegmentName(start_lsn);
}

}  // namespace

std::string RedoLog::SegmentName(uint64_t start_lsn) { return fmt::format("redo.{:016x}", start_lsn); }

Result<std::unique_ptr<RedoLog>> RedoLog::Open(io::FileSystem* fs, const std::string& dir,
                                               const Options& options,
                                               const RecordCallback& on_record) {
  SLUICE_RETURN_IF_ERROR(fs->CreateDir(dir));
  const std::string ctl_path = dir + "/" + kCtlName;

  // The segments on disk, oldest first; a datadir from before segments
  // has its one file renamed to the segment at LSN 0.
  Result<std::vector<std::string>> names = fs->List(dir);
  if (!names.ok()) return names.status();
  std::vector<uint64_t> segments;
  bool legacy = false;
  for (const std::string& name : *names) {
    if (name == kLegacyLogName) legacy = true;
    if (std::optional<uint64_t> start = ParseSegmentName(name)) segments.push_back(*start);
  }
  std::sort(segments.begin(), segments.end());
  if (legacy) {
    if (!segments.empty()) {
      return Status::Corruption(fmt::format("{}: both {} and redo segments are present", dir, kLegacyLogName));
    }
    SLUICE_RETURN_IF_ERROR(fs->Rename(dir + "/" + kLegacyLogName, SegmentPath(dir, 0)));
    SLUICE_RETURN_IF_ERROR(fs->SyncDir(dir));
    segments.push_back(0);
  }

  Result<bool> ctl_existed = fs->Exists(ctl_path);
  if (!ctl_existed.ok()) return ctl_existed.status();
  Result<std::unique_ptr<io::File>> ctl = fs->Open(ctl_path, io::OpenMode::kOpenOrCreate);
  if (!ctl.ok()) return ctl.status();

  // Control file: the valid slot with the highest seq.
  uint64_t checkpoint = 0;
  uint64_t seq = 0;
  uint64_t sealed = 0;
  bool unsealed_slot = false;  // the newest slot has no sealed LSN: rewrite it
  {
    Result<uint64_t> size = (*ctl)->Size();
    if (!size.ok()) return size.status();
    if (*size > 0) {
      std::string buf(2 * kSlotSize, '\0');
      Result<size_t> n = (*ctl)->ReadAt(0, buf.data(), buf.size());
      if (!n.ok()) return n.status();
      Slot slots[2];
      for (uint64_t i = 0; i < 2; ++i) {
        uint64_t off = i * kSlotSize;
        if (*n <= off) break;
        slots[i] = ParseSlot(buf.data() + off, std::min<size_t>(kSlotSize, *n - off));
      }
      const bool newer = slots[1].valid && (!slots[0].valid || slots[1].seq > slots[0].seq);
      const Slot& best = slots[newer ? 1 : 0];
      const Slot& other = slots[newer ? 0 : 1];
      if (!best.valid) return Status::Corruption(ctl_path + ": no valid checkpoint slot");
      checkpoint = best.lsn;
      seq = best.seq;
      // A slot whose sealed LSN did not land (a write torn past the first
      // crc) reads as the other slot's, older and so no larger: taken as
      // from before sealing, it would call segments no sync reached sealed.
      sealed = best.has_sealed ? best.sealed : other.valid && other.has_sealed ? other.sealed : kAllSealed;
      unsealed_slot = !best.has_sealed;
    }
  }

  bool created = !*ctl_existed;
  if (segments.empty()) {
    if (checkpoint != 0) {
      return Status::Corruption(fmt::format("{}: checkpoint {} but no redo segment", dir, checkpoint));
    }
    Result<std::unique_ptr<io::File>> f = fs->Open(SegmentPath(dir, 0), io::OpenMode::kCreateNew);
    if (!f.ok()) return f.status();
    segments.push_back(0);
    created = true;
  }
  if (created) SLUICE_RETURN_IF_ERROR(fs->SyncDir(dir));

  // Recovery starts in the last segment that begins at or before the
  // checkpoint; the ones before it are leftovers of a removal a crash cut
  // short.
  size_t first = segments.size();
  for (size_t i = 0; i < segments.size(); ++i) {
    if (segments[i] <= checkpoint) first = i;
  }
  if (first == segments.size()) {
    return Status::Corruption(fmt::format("{}: checkpoint {} is before the first redo segment ({})", dir,
                                          checkpoint, SegmentName(segments.front())));
  }
  for (size_t i = 0; i < first; ++i) (void)fs->Remove(SegmentPath(dir, segments[i]));
  segments.erase(segments.begin(), segments.begin() + static_cast<std::ptrdiff_t>(first));

  // Scan from the checkpoint, segment by segment. A segment that ends at or
  // before `sealed` was fsynced whole, with the directory, before the
  // control file said so: damage there is Corruption. The writer starts a
  // new segment without waiting for an fsync of the full one (the next
  // sync does that, oldest first), so from the last sealed segment on, a
  // crash may leave any of them torn, short, or missing: the first gap
  // ends the log, and the segments after it go. Nothing after the gap was
  // acknowledged as durable, since a sync covers a segment only after it
  // has synced every segment before it.
  uint64_t pos = checkpoint;
  std::string payload;
  std::unique_ptr<io::File> last;
  bool resealed = false;  // whole segments past `sealed`, fsynced here
  for (size_t i = 0; i < segments.size(); ++i) {
    const uint64_t seg_start = segments[i];
    bool is_last = i + 1 == segments.size();
    const bool is_sealed = !is_last && segments[i + 1] <= sealed;
    const std::string path = SegmentPath(dir, seg_start);
    Result<std::unique_ptr<io::File>> f = fs->Open(path, io::OpenMode::kOpenExisting);
    if (!f.ok()) return f.status();
    Result<uint64_t> size = (*f)->Size();
    if (!size.ok()) return size.status();
    const uint64_t seg_end = seg_start + *size;
    if (!is_last && (seg_end > segments[i + 1] || (is_sealed && seg_end != segments[i + 1]))) {
      return Status::Corruption(fmt::format("{}: ends at lsn {} but the next segment starts at {}", path,
                                            seg_end, segments[i + 1]));
    }
    if (pos > seg_end) {
      return Status::Corruption(fmt::format("{}: checkpoint {} is past the end of the log ({})", path,
                                            checkpoint, seg_end));
    }
    while (pos + kRecordHeaderSize <= seg_end) {
      char hdr[kRecordHeaderSize];
      bool complete = false;
      SLUICE_RETURN_IF_ERROR(ReadFully(f->get(), pos - seg_start, hdr, sizeof(hdr), &complete));
      if (!complete) break;
      const uint32_t len = GetU32(hdr + 4);
      const uint8_t type = static_cast<uint8_t>(hdr[8]);
      if (type == 0 || len > kMaxPayload || pos + kRecordHeaderSize + len > seg_end) break;
      payload.resize(len);
      SLUICE_RETURN_IF_ERROR(
          ReadFully(f->get(), pos - seg_start + kRecordHeaderSize, payload.data(), len, &complete));
      if (!complete) break;
      if (GetU32(hdr) != RecordCrc(pos, hdr + 4, payload)) break;
      const uint64_t end = pos + FramedSize(len);
      if (on_record) SLUICE_RETURN_IF_ERROR(on_record(Record{pos, end, type, payload}));
      pos = end;
    }
    if (is_sealed && pos < seg_end) {
      return Status::Corruption(fmt::format("{}: damaged record at lsn {}, and later segments follow",
                                            path, pos));
    }
    if (!is_last && pos < segments[i + 1]) {
      // The end of the log, in a segment the writer had left before a
      // sync reached it: the later ones hold nothing durable.
      for (size_t j = i + 1; j < segments.size(); ++j) {
        SLUICE_RETURN_IF_ERROR(fs->Remove(SegmentPath(dir, segments[j])));
      }
      segments.resize(i + 1);
      SLUICE_RETURN_IF_ERROR(fs->SyncDir(dir));
      is_last = true;
    }
    if (pos < seg_end) {
      // Torn or corrupt tail: drop it durably before appending after it.
      SLUICE_RETURN_IF_ERROR((*f)->Truncate(pos - seg_start));
      SLUICE_RETURN_IF_ERROR((*f)->Sync());
    }
    if (is_last) {
      last = std::move(*f);
    } else if (!is_sealed) {
      // Whole, and perhaps only in the page cache: make it durable before
      // the control file counts it as sealed.
      SLUICE_RETURN_IF_ERROR((*f)->Sync());
      resealed = true;
    }
  }
  // A slot without a sealed LSN is rewritten now: read as from before
  // sealing, it claims every segment but the last as sealed, which the
  // full segments this writer leaves to the next sync will not be.
  if (resealed || unsealed_slot) {
    if (resealed) SLUICE_RETURN_IF_ERROR(fs->SyncDir(dir));
    SLUICE_RETURN_IF_ERROR(WriteSlot(ctl->get(), ++seq, checkpoint, segments.back()));
  }
  // Every segment before the last is whole and durable now.
  sealed = segments.back();

  return std::unique_ptr<RedoLog>(new RedoLog(fs, dir, options, std::move(segments), std::move(last),
                                              std::move(*ctl), pos, checkpoint, seq, sealed));
}

RedoLog::RedoLog(io::FileSystem* fs, std::string dir, const Options& options, std::vector<uint64_t> segments,
                 std::unique_ptr<io::File> log, std::unique_ptr<io::File> ctl, uint64_t end_lsn,
                 uint64_t checkpoint_lsn, uint64_t ctl_seq, uint64_t sealed_lsn)
    : fs_(fs),
      dir_(std::move(dir)),
      options_(options),
      ctl_(std::move(ctl)),
      ctl_seq_(ctl_seq),
      ctl_checkpoint_(checkpoint_lsn),
      sealed_lsn_(sealed_lsn),
      segments_(std::move(segments)),
      log_(std::move(log)),
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
  if (pending_.size() >= options_.buffer_size && !writer_active_) {
    Status st = LeadWrite();
    if (!st.ok()) return st;
  }
  return end;
}

Status RedoLog::LeadWrite() {
  writer_active_ = true;
  std::string buf;
  buf.swap(pending_);
  pending_.swap(spare_);
  const uint64_t start = written_lsn_;
  const uint64_t end = current_lsn_;
  mu_.Unlock();

  Status st = WriteSegmented(start, buf);

  mu_.Lock();
  ++stats_.writes;
  if (st.ok()) {
    stats_.bytes_written += buf.size();
    written_lsn_ = end;
  } else if (error_.ok()) {
    error_ = st;
  }
  writer_active_ = false;
  // Kept for the next write unless a burst grew it past the buffer size.
  if (buf.capacity() <= std::max<size_t>(options_.buffer_size, size_t{1} << 20)) {
    buf.clear();
    spare_.swap(buf);
  }
  write_cv_.NotifyAll();
  return error_.ok() ? st : error_;
}

Status RedoLog::LeadSync() {
  syncer_active_ = true;
  // Everything up to here was written before the fsync starts, so the
  // fsync covers it; what is written meanwhile waits for the next one.
  const uint64_t target = written_lsn_;
  mu_.Unlock();

  // The segment holding `target`, or a later one, and the full segments
  // before it that no sync has covered yet (WriteSegmented leaves them).
  std::shared_ptr<io::File> segment;
  std::vector<std::shared_ptr<io::File>> full;
  bool dir_dirty;
  uint64_t segment_start;
  {
    MutexLock seg(&seg_mu_);
    segment = log_;
    full.swap(unsynced_);
    dir_dirty = dir_dirty_;
    dir_dirty_ = false;
    segment_start = segments_.back();
  }
  // Oldest first, then the directory (the new segments' names), then the
  // control file says they are sealed, and only then the last segment:
  // whatever a crash leaves, a segment whose records were acknowledged as
  // durable never follows a torn one.
  Status st;
  for (const std::shared_ptr<io::File>& f : full) {
    if (st.ok()) st = f->Sync();
  }
  if (st.ok() && dir_dirty) st = fs_->SyncDir(dir_);
  if (st.ok()) {
    MutexLock c(&ctl_mu_);
    if (segment_start > sealed_lsn_) st = WriteCtlLocked(ctl_checkpoint_, segment_start);
  }
  if (st.ok()) st = segment->Sync();

  mu_.Lock();
  ++stats_.fsyncs;
  if (st.ok()) {
    flushed_lsn_ = std::max(flushed_lsn_, target);
  } else if (error_.ok()) {
    error_ = st;
  }
  syncer_active_ = false;
  sync_cv_.NotifyAll();
  return error_.ok() ? st : error_;
}

Status RedoLog::WriteCtlLocked(uint64_t checkpoint, uint64_t sealed) {
  SLUICE_RETURN_IF_ERROR(WriteSlot(ctl_.get(), ctl_seq_ + 1, checkpoint, sealed));
  ++ctl_seq_;
  ctl_checkpoint_ = checkpoint;
  sealed_lsn_ = sealed;
  return Status::OK();
}

Status RedoLog::WriteSegmented(uint64_t start, std::string_view data) {
  MutexLock seg(&seg_mu_);
  if (start - segments_.back() >= options_.segment_size) {
    // The last segment is full: start the next at `start`. Its fsync is
    // left to the next sync (LeadSync), which takes the full segments
    // first: an fsync here stalled every commit behind this write, for
    // half a second under a busy disk.
    Result<std::unique_ptr<io::File>> next =
        fs_->Open(SegmentPath(dir_, start), io::OpenMode::kCreateNew);
    if (!next.ok()) return next.status();
    unsynced_.push_back(std::move(log_));
    dir_dirty_ = true;
    log_ = std::move(*next);
    segments_.push_back(start);
    segments_created_.fetch_add(1, std::memory_order_relaxed);
  }
  return log_->WriteAt(start - segments_.back(), data);
}

Status RedoLog::WaitLocked(uint64_t lsn, bool sync) {
  if (lsn > current_lsn_) {
    return Status::InvalidArgument("redo lsn " + std::to_string(lsn) + " is past the end " +
                                   std::to_string(current_lsn_));
  }
  for (;;) {
    if (!error_.ok()) return error_;
    if (written_lsn_ < lsn) {
      // A write is in progress (it ends in bounded time: no fsync in it).
      // It may have taken this record; if not, the next write leader
      // takes it, this thread when nobody else is first.
      if (writer_active_) {
        write_cv_.Wait(&mu_);
        continue;
      }
      SLUICE_RETURN_IF_ERROR(LeadWrite());
      continue;
    }
    if (!sync || flushed_lsn_ >= lsn) return Status::OK();
    if (syncer_active_) {
      sync_cv_.Wait(&mu_);
      continue;
    }
    SLUICE_RETURN_IF_ERROR(LeadSync());
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
  Status st;
  {
    MutexLock c(&ctl_mu_);
    st = WriteCtlLocked(lsn, sealed_lsn_);
  }
  MutexLock lk(&mu_);
  if (!st.ok()) {
    if (error_.ok()) error_ = st;
    return error_;
  }
  checkpoint_lsn_ = lsn;
  lk.Unlock();

  // Recovery never reads before the checkpoint now: the segments that end
  // at or before it go. A removal that fails leaves a file Open removes.
  std::vector<uint64_t> gone;
  {
    MutexLock seg(&seg_mu_);
    size_t n = 0;
    while (n + 1 < segments_.size() && segments_[n + 1] <= lsn) ++n;
    gone.assign(segments_.begin(), segments_.begin() + static_cast<std::ptrdiff_t>(n));
    segments_.erase(segments_.begin(), segments_.begin() + static_cast<std::ptrdiff_t>(n));
  }
  for (uint64_t start : gone) {
    if (fs_->Remove(SegmentPath(dir_, start)).ok()) {
      segments_removed_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  return Status::OK();
}

std::vector<uint64_t> RedoLog::segment_starts() const {
  MutexLock seg(&seg_mu_);
  return segments_;
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
    // Whatever leads are busy now finish without it; a failure is sticky
    // in error_.
    if (!writer_active_ && written_lsn_ < current_lsn_ && !LeadWrite().ok()) continue;
    if (!syncer_active_ && flushed_lsn_ < written_lsn_) (void)LeadSync();
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
  Stats s = stats_;
  s.segments_created = segments_created_.load(std::memory_order_relaxed);
  s.segments_removed = segments_removed_.load(std::memory_order_relaxed);
  return s;
}
Status RedoLog::error() const {
  MutexLock lk(&mu_);
  return error_;
}

}  // namespace sluice::storage
