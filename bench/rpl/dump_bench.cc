// sluice-dump-bench: how much N binlog dump readers cost committers.
//
//   sluice-dump-bench [--writers 4] [--readers 0,40,100] [--seconds 3]
//                     [--sync-binlog 0] [--rows 5]
//
// Writers commit small transactions (BEGIN, one rows-sized event, Xid)
// through Binlog::Commit; readers are BinlogSenders streaming to a sink
// that only counts bytes. For each reader count it runs three modes side
// by side:
//   plain      no observer registered;
//   idle-obs   an observer registered that answers F_DONT_OBSERVE to every
//              reader (an installed, idle semisync plugin): sluice's case;
//   bug70218   the same observer answering F_OBSERVE to every reader and
//              taking one global mutex per hook, as MySQL 5.6 did before
//              the fix (three hooks per event under LOCK_plugin).
// Prints commits/s and the ratio to 0 readers. Not a test: asserts nothing.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "binlog/binlog.h"
#include "binlog/event.h"
#include "server/rpl/binlog_sender.h"
#include "server/rpl/delegates.h"

namespace {

using namespace sluice;
using namespace sluice::server::rpl;

class CountingSink : public PacketSink {
 public:
  Status Send(std::string_view payload) override {
    bytes_ += payload.size();
    return Status::OK();
  }
  Status Flush() override { return Status::OK(); }
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t bytes_ = 0;
};

std::mutex g_plugin_lock;  // MySQL 5.6's LOCK_plugin stand-in

class Observer : public BinlogTransmitObserver {
 public:
  explicit Observer(bool observe_all) : observe_all_(observe_all) {}
  Status TransmitStart(TransmitParam& p, std::string_view, uint64_t) override {
    p.flags |= observe_all_ ? TransmitParam::kObserve : TransmitParam::kDontObserve;
    return Status::OK();
  }
  Status ReserveHeader(TransmitParam&, uint8_t*, size_t, size_t* len) override {
    std::lock_guard l(g_plugin_lock);
    *len = 0;
    return Status::OK();
  }
  Status BeforeSendEvent(TransmitParam&, std::string&, std::string_view, uint64_t) override {
    std::lock_guard l(g_plugin_lock);
    return Status::OK();
  }
  Status AfterSendEvent(TransmitParam&, std::string_view, std::string_view, uint64_t) override {
    std::lock_guard l(g_plugin_lock);
    return Status::OK();
  }

 private:
  bool observe_all_;
};

class StorageObserver : public BinlogStorageObserver {
 public:
  Status AfterFlush(std::string_view, uint64_t) override {
    std::lock_guard l(g_plugin_lock);
    return Status::OK();
  }
  Status AfterSync(std::string_view, uint64_t) override {
    std::lock_guard l(g_plugin_lock);
    return Status::OK();
  }
};

struct Figures {
  double commits_per_s = 0;
  double reader_mb_per_s = 0;
};

Figures RunOnce(int writers, int readers, double seconds, uint32_t sync_binlog, int rows, int mode) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("sluice-dump-bench-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  binlog::Binlog::Options o;
  o.dir = dir.string();
  o.server_uuid = *binlog::Uuid::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562");
  o.sync_binlog = sync_binlog;
  auto opened = binlog::Binlog::Open(o, nullptr);
  if (!opened.ok() || !(*opened)->StartWriting().ok()) {
    std::fprintf(stderr, "cannot open a binlog in %s\n", dir.c_str());
    std::exit(1);
  }
  std::unique_ptr<binlog::Binlog> bl = std::move(opened).value();
  Registry registry;
  bl->set_hooks(&registry);
  Observer observer(mode == 2);
  StorageObserver storage;
  if (mode > 0) (void)registry.transmit().Add(&observer);
  // MySQL 5.6's semisync also ran after_flush / after_sync (and
  // after_commit) for every group under the same plugin lock.
  if (mode == 2) (void)registry.storage().Add(&storage);

  std::atomic<bool> stop_readers{false};
  std::vector<std::unique_ptr<CountingSink>> sinks;
  std::vector<std::thread> reader_threads;
  for (int i = 0; i < readers; ++i) {
    sinks.push_back(std::make_unique<CountingSink>());
    reader_threads.emplace_back([&, i] {
      DumpRequest req;
      req.server_id = static_cast<uint32_t>(100 + i);
      SenderOptions so;
      so.reader_checksum = binlog::Checksum::kCrc32;
      TransmitParam p;
      p.server_id = req.server_id;
      BinlogSender s(*bl, registry, req, so, p, *sinks[i], stop_readers);
      (void)s.Run();
    });
  }
  // One transaction: BEGIN, `rows` events of ~100 bytes, Xid.
  binlog::TransactionCache proto;
  {
    binlog::EventHeader h;
    h.server_id = 1;
    h.type = binlog::kQueryEvent;
    binlog::QueryInfo q;
    q.query = "BEGIN";
    (void)proto.Append(binlog::EncodeQuery(h, q, binlog::Checksum::kCrc32));
    for (int r = 0; r < rows; ++r) {
      h.type = binlog::kQueryEvent;
      q.query = std::string(80, 'x');
      (void)proto.Append(binlog::EncodeQuery(h, q, binlog::Checksum::kCrc32));
    }
    h.type = binlog::kXidEvent;
    (void)proto.Append(binlog::EncodeXid(h, 1, binlog::Checksum::kCrc32));
  }
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> commits{0};
  std::vector<std::thread> writer_threads;
  for (int w = 0; w < writers; ++w) {
    writer_threads.emplace_back([&] {
      uint64_t n = 0;
      while (!stop.load(std::memory_order_relaxed)) {
        binlog::Binlog::CommitResult written;
        if (!bl->Commit(proto, 1, &written).ok()) break;  // after_sync runs inside, as for a session
        bl->CommitDone();
        ++n;
      }
      commits.fetch_add(n);
    });
  }
  auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (auto& t : writer_threads) t.join();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stop_readers.store(true);
  for (auto& t : reader_threads) t.join();
  uint64_t bytes = 0;
  for (auto& s : sinks) bytes += s->bytes();
  bl.reset();
  fs::remove_all(dir);
  return {static_cast<double>(commits.load()) / elapsed, static_cast<double>(bytes) / elapsed / 1e6};
}

std::vector<int> ParseList(const char* s) {
  std::vector<int> out;
  for (const char* p = s; *p;) {
    out.push_back(std::atoi(p));
    const char* c = std::strchr(p, ',');
    if (c == nullptr) break;
    p = c + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int writers = 4, rows = 5;
  double seconds = 3;
  uint32_t sync_binlog = 0;
  std::vector<int> readers = {0, 40, 100};
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--writers") writers = std::atoi(argv[i + 1]);
    else if (a == "--readers") readers = ParseList(argv[i + 1]);
    else if (a == "--seconds") seconds = std::atof(argv[i + 1]);
    else if (a == "--sync-binlog") sync_binlog = static_cast<uint32_t>(std::atoi(argv[i + 1]));
    else if (a == "--rows") rows = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--writers N] [--readers 0,40,100] [--seconds S] [--sync-binlog N] [--rows N]\n",
                   argv[0]);
      return 2;
    }
  }
  std::printf("writers=%d rows/trx=%d sync_binlog=%u seconds=%.1f cores=%u\n", writers, rows, sync_binlog, seconds,
              std::thread::hardware_concurrency());
  std::printf("%8s %12s %12s %12s %10s %10s %14s\n", "readers", "plain c/s", "idle-obs c/s", "bug70218 c/s", "idle/0",
              "70218/0", "reader MB/s");
  double base = 0;
  for (int r : readers) {
    Figures plain = RunOnce(writers, r, seconds, sync_binlog, rows, 0);
    Figures idle = RunOnce(writers, r, seconds, sync_binlog, rows, 1);
    Figures old = RunOnce(writers, r, seconds, sync_binlog, rows, 2);
    if (r == 0) base = plain.commits_per_s;
    std::printf("%8d %12.0f %12.0f %12.0f %10.2f %10.2f %14.1f\n", r, plain.commits_per_s, idle.commits_per_s,
                old.commits_per_s, base > 0 ? idle.commits_per_s / base : 0, base > 0 ? old.commits_per_s / base : 0,
                idle.reader_mb_per_s);
    std::fflush(stdout);
  }
  return 0;
}
