#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <filesystem>
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "binlog/binlog.h"
#include "binlog/event.h"
#include "server/rpl/binlog_sender.h"
#include "server/rpl/delegates.h"
#include "protocol/packet.h"

namespace sluice::server::rpl {
namespace {

namespace fs = std::filesystem;
using binlog::Checksum;

// Counts every hook call; observes only readers with an odd server_id.
class CountingObserver : public BinlogTransmitObserver {
 public:
  Status TransmitStart(TransmitParam& p, std::string_view, uint64_t) override {
    starts.fetch_add(1);
    p.flags |= (p.server_id % 2 == 1) ? TransmitParam::kObserve : TransmitParam::kDontObserve;
    return Status::OK();
  }
  Status TransmitStop(TransmitParam&) override {
    stops.fetch_add(1);
    return Status::OK();
  }
  Status ReserveHeader(TransmitParam&, uint8_t* header, size_t, size_t* len) override {
    reserve.fetch_add(1);
    header[0] = 0xEF;
    header[1] = 0;
    *len = 2;
    return Status::OK();
  }
  Status BeforeSendEvent(TransmitParam&, std::string&, std::string_view, uint64_t) override {
    before.fetch_add(1);
    return Status::OK();
  }
  Status AfterSendEvent(TransmitParam&, std::string_view, std::string_view, uint64_t) override {
    after.fetch_add(1);
    return Status::OK();
  }
  uint64_t per_event() const { return reserve.load() + before.load() + after.load(); }
  std::atomic<uint64_t> starts{0}, stops{0}, reserve{0}, before{0}, after{0};
};

class MemorySink : public PacketSink {
 public:
  Status Send(std::string_view payload) override {
    if (fail) return Status::IOError("gone");
    packets.emplace_back(payload);
    return Status::OK();
  }
  Status Flush() override { return Status::OK(); }
  // The events (payload without the OK byte and the extra header, found
  // from the first packet: a fake Rotate, whose timestamp byte is 0).
  std::vector<std::string> Events() const {
    std::vector<std::string> out;
    const size_t header = !packets.empty() && packets[0].size() > 1 && static_cast<uint8_t>(packets[0][1]) == 0xEF
                              ? 2 : 0;
    for (const auto& p : packets) {
      if (!p.empty() && static_cast<uint8_t>(p[0]) == 0xFE && p.size() < 9) continue;  // EOF
      out.push_back(p.substr(1 + header));
    }
    return out;
  }
  std::vector<std::string> packets;
  bool fail = false;
};

class RplTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sluice_rpl_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    binlog::Binlog::Options o;
    o.dir = dir_.string();
    o.server_id = 1;
    o.server_uuid = *binlog::Uuid::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562");
    auto b = binlog::Binlog::Open(o, nullptr);
    ASSERT_TRUE(b.ok());
    binlog_ = std::move(b).value();
    ASSERT_TRUE(binlog_->StartWriting().ok());
  }
  void TearDown() override {
    binlog_.reset();
    fs::remove_all(dir_);
  }

  void Commit(uint64_t xid) {
    binlog::TransactionCache c;
    c.set_checksum(Checksum::kCrc32);
    binlog::EventHeader h;
    h.type = binlog::kQueryEvent;
    h.server_id = 1;
    binlog::QueryInfo q;
    q.query = "BEGIN";
    ASSERT_TRUE(c.Append(binlog::EncodeQuery(h, q, Checksum::kCrc32)).ok());
    h.type = binlog::kXidEvent;
    ASSERT_TRUE(c.Append(binlog::EncodeXid(h, xid, Checksum::kCrc32)).ok());
    ASSERT_TRUE(binlog_->Commit(c, 1).ok());
    binlog_->CommitDone();
  }

  Status Dump(DumpRequest req, MemorySink& sink, uint32_t server_id = 2,
              Checksum announced = Checksum::kCrc32, int plain_reader_nice = 0) {
    req.server_id = server_id;
    SenderOptions o;
    o.reader_checksum = announced;
    o.server_id = 1;
    o.plain_reader_nice = plain_reader_nice;
    TransmitParam p;
    p.server_id = server_id;
    std::atomic<bool> stop{false};
    BinlogSender s(*binlog_, registry_, req, o, p, sink, stop);
    return s.Run();
  }

  fs::path dir_;
  std::unique_ptr<binlog::Binlog> binlog_;
  Registry registry_;
};

TEST(DelegateTest, AddRemoveAndSnapshots) {
  Delegate<BinlogTransmitObserver> d;
  CountingObserver a, b;
  EXPECT_TRUE(d.empty());
  ASSERT_TRUE(d.Add(&a).ok());
  EXPECT_FALSE(d.Add(&a).ok());
  {
    const auto& before = d.read();
    ASSERT_TRUE(d.Add(&b).ok());
    EXPECT_EQ(before.size(), 1u);  // an old snapshot never changes
    EXPECT_EQ(d.read().size(), 2u);
  }
  EXPECT_TRUE(d.Remove(&a));
  EXPECT_FALSE(d.Remove(&a));
  EXPECT_EQ(d.read().size(), 1u);
  EXPECT_EQ(d.read()[0].observer, &b);
  EXPECT_FALSE(d.empty());
  EXPECT_EQ(d.retired_count(), 3u);
  d.Synchronize();
  EXPECT_EQ(d.retired_count(), 0u);
}

TEST(DelegateTest, SynchronizeFreesRetiredOwnersOnceReadersLeave) {
  Delegate<BinlogTransmitObserver> d;
  auto obs = std::make_shared<CountingObserver>();
  std::weak_ptr<CountingObserver> weak = obs;
  ASSERT_TRUE(d.Add(obs.get(), obs).ok());
  obs.reset();
  std::mutex mu;
  std::condition_variable cv;
  bool reading = false, release = false;
  std::thread reader([&] {
    const auto& snap = d.read();
    std::unique_lock lock(mu);
    reading = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
    EXPECT_EQ(snap.size(), 1u);
    EXPECT_FALSE(weak.expired());  // still reachable through the snapshot
  });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return reading; });
  }
  ASSERT_TRUE(d.Remove(weak.lock().get()));
  EXPECT_TRUE(d.empty());
  std::atomic<bool> synced{false};
  std::thread syncer([&] {
    d.Synchronize();
    synced = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(synced.load());  // waits for the reader
  EXPECT_FALSE(weak.expired());
  {
    std::lock_guard lock(mu);
    release = true;
    cv.notify_all();
  }
  reader.join();
  syncer.join();
  EXPECT_TRUE(synced.load());
  EXPECT_TRUE(weak.expired());  // the retired snapshot and its owner are gone

  // Many readers and writers at once: nothing freed under a reader.
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        for (const auto& e : d.read()) EXPECT_NE(e.observer, nullptr);
      }
    });
  }
  for (int i = 0; i < 300; ++i) {
    auto o = std::make_shared<CountingObserver>();
    ASSERT_TRUE(d.Add(o.get(), o).ok());
    ASSERT_TRUE(d.Remove(o.get()));
    if (i % 3 == 0) d.Synchronize();
  }
  stop = true;
  for (auto& t : readers) t.join();
  d.Synchronize();
  EXPECT_EQ(d.retired_count(), 0u);
}

TEST(RegistryTest, TransmitStartKeepsOnlyObservingObserversAndHoldsTheirOwners) {
  Registry r;
  auto obs = std::make_shared<CountingObserver>();
  std::weak_ptr<CountingObserver> weak = obs;
  ASSERT_TRUE(r.transmit().Add(obs.get(), obs).ok());
  TransmitParam plain;
  plain.server_id = 2;
  auto s1 = r.TransmitStart(plain, "binlog.000001", 4);
  ASSERT_TRUE(s1.ok());
  EXPECT_FALSE(s1->observed());
  TransmitParam semi;
  semi.server_id = 3;
  auto s2 = r.TransmitStart(semi, "binlog.000001", 4);
  ASSERT_TRUE(s2.ok());
  EXPECT_TRUE(s2->observed());
  EXPECT_EQ(obs->starts.load(), 2u);
  r.transmit().Remove(obs.get());
  obs.reset();
  r.transmit().Synchronize();     // frees the retired snapshots
  EXPECT_FALSE(weak.expired());  // the sessions keep it alive
  auto keep = weak.lock();
  s1->Stop();
  s2->Stop();
  EXPECT_EQ(keep->stops.load(), 2u);
  keep.reset();
  EXPECT_TRUE(weak.expired());  // Stop() let go of the observers
}

// An observer's failure reaches the client as MySQL reports it: 3100,
// naming the hook (the observer's own message goes to the error log).
TEST(RegistryTest, AFailingObserverIsRunHookError3100) {
  class Refusing : public TransObserver {
   public:
    Status BeforeCommit(const Param&) override { return Status::MySQL(1105, "HY000", "refused"); }
  };
  Registry r;
  auto obs = std::make_shared<Refusing>();
  ASSERT_TRUE(r.trans().Add(obs.get(), obs).ok());
  Status s = r.BeforeCommit(TransObserver::Param{});
  EXPECT_EQ(s.mysql_errno(), 3100);
  EXPECT_EQ(s.message(), "Error on observer while running replication hook 'before_commit'.");
  EXPECT_TRUE(r.AfterCommit(TransObserver::Param{}).ok());  // the default hooks pass
  r.trans().Remove(obs.get());
}

TEST(RegistryTest, APlainReaderDoesNotKeepARemovedObserversOwner) {
  Registry r;
  auto obs = std::make_shared<CountingObserver>();
  std::weak_ptr<CountingObserver> weak = obs;
  ASSERT_TRUE(r.transmit().Add(obs.get(), obs).ok());
  TransmitParam plain;
  plain.server_id = 2;  // declined
  auto s = r.TransmitStart(plain, "binlog.000001", 4);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->observed());
  {
    auto keep = weak.lock();
    s->Stop();  // alive: transmit_stop still reaches it
    EXPECT_EQ(keep->stops.load(), 1u);
  }
  auto s2 = r.TransmitStart(plain, "binlog.000001", 4);
  ASSERT_TRUE(s2.ok());
  r.transmit().Remove(obs.get());
  r.transmit().Synchronize();
  obs.reset();
  EXPECT_TRUE(weak.expired());  // the plain reader's session did not pin it
  s2->Stop();                   // and does not call it
}

TEST_F(RplTest, PlainReaderMakesNoHookCallAndTakesNoRegistryLock) {
  auto obs = std::make_shared<CountingObserver>();
  ASSERT_TRUE(registry_.transmit().Add(obs.get(), obs).ok());
  for (uint64_t i = 1; i <= 20; ++i) Commit(i);
  const uint64_t locks = registry_.transmit().lock_acquisitions();
  MemorySink plain;
  DumpRequest req;
  req.flags = DumpRequest::kNonBlock;
  ASSERT_TRUE(Dump(req, plain, /*server_id=*/2).ok());
  EXPECT_EQ(obs->per_event(), 0u);
  EXPECT_EQ(registry_.transmit().lock_acquisitions(), locks);
  auto events = plain.Events();
  // fake Rotate, FDE, Previous_gtids, 20 x (Gtid, Query, Xid)
  ASSERT_EQ(events.size(), 63u);
  EXPECT_EQ(static_cast<uint8_t>(events[0][4]), binlog::kRotateEvent);
  EXPECT_EQ(static_cast<uint8_t>(events[1][4]), binlog::kFormatDescriptionEvent);
  EXPECT_EQ(events[1][17] & binlog::kLogEventBinlogInUse, 0);
  EXPECT_TRUE(binlog::VerifyChecksum(events[1]));
  EXPECT_EQ(static_cast<uint8_t>(plain.packets.back()[0]), 0xFE);  // EOF: non-blocking end

  // An observed reader: three hooks per event, the header in every packet.
  MemorySink semi;
  ASSERT_TRUE(Dump(req, semi, /*server_id=*/3).ok());
  EXPECT_EQ(obs->reserve.load(), 63u);
  EXPECT_EQ(obs->before.load(), 63u);
  EXPECT_EQ(obs->after.load(), 63u);
  EXPECT_EQ(static_cast<uint8_t>(semi.packets[5][1]), 0xEF);
  EXPECT_EQ(semi.Events(), events);
  EXPECT_EQ(registry_.transmit().lock_acquisitions(), locks);
  EXPECT_EQ(obs->stops.load(), 2u);
}

// sluice_plain_reader_nice: a plain reader's thread takes the nice value
// once its transmit starts; an observed (semisync) reader's keeps its own.
TEST_F(RplTest, PlainReaderThreadTakesTheNiceValue) {
  auto obs = std::make_shared<CountingObserver>();  // observes server_id 3
  ASSERT_TRUE(registry_.transmit().Add(obs.get(), obs).ok());
  for (uint64_t i = 1; i <= 3; ++i) Commit(i);
  class NiceSink : public MemorySink {
   public:
    Status Send(std::string_view payload) override {
      nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
      return MemorySink::Send(payload);
    }
    int nice = -100;
  };
  auto dump_on_own_thread = [&](uint32_t server_id, int plain_nice) {
    NiceSink sink;
    std::thread t([&] {
      DumpRequest req;
      req.flags = DumpRequest::kNonBlock;
      EXPECT_TRUE(Dump(req, sink, server_id, Checksum::kCrc32, plain_nice).ok());
    });
    t.join();
    return sink.nice;
  };
  const int own = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
  EXPECT_EQ(dump_on_own_thread(/*server_id=*/2, 7), std::max(own, 7));
  EXPECT_EQ(dump_on_own_thread(/*server_id=*/3, 7), own);  // observed
  EXPECT_EQ(dump_on_own_thread(/*server_id=*/2, 0), own);
}

TEST_F(RplTest, StartsMidFileAndByGtid) {
  for (uint64_t i = 1; i <= 5; ++i) Commit(i);
  MemorySink all;
  DumpRequest req;
  req.flags = DumpRequest::kNonBlock;
  ASSERT_TRUE(Dump(req, all).ok());
  auto events = all.Events();
  // Start at the third transaction's Gtid event.
  auto h = binlog::ParseHeader(events[9]);
  ASSERT_TRUE(h.ok());
  ASSERT_EQ(h->type, binlog::kGtidEvent);
  const uint64_t pos = h->log_pos - h->event_size;
  MemorySink mid;
  req.position = pos;
  req.file = "binlog.000001";
  ASSERT_TRUE(Dump(req, mid).ok());
  auto got = mid.Events();
  ASSERT_EQ(got.size(), 2 + 9u);
  auto fde = binlog::ParseHeader(got[1]);
  EXPECT_EQ(fde->log_pos, 0u);  // mid-file start: the replica must not move
  EXPECT_TRUE(binlog::VerifyChecksum(got[1]));
  EXPECT_EQ(got[2], events[9]);
  // By GTID: the reader has 1-3, gets 4 and 5.
  MemorySink by_gtid;
  DumpRequest g;
  g.gtid = true;
  g.flags = DumpRequest::kNonBlock;
  g.gtids = *binlog::GtidSet::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-3");
  ASSERT_TRUE(Dump(g, by_gtid).ok());
  int gtids = 0;
  for (const auto& e : by_gtid.Events()) {
    if (static_cast<uint8_t>(e[4]) != binlog::kGtidEvent) continue;
    auto gi = binlog::DecodeGtid(e, Checksum::kCrc32);
    EXPECT_GE(gi->gno, 4);
    ++gtids;
  }
  EXPECT_EQ(gtids, 2);
  // Whole transactions are left out and nothing else, also between
  // transactions the reader lacks (a plain GTID reader's runs are split
  // around each one it has).
  for (const char* has : {"3e11fa47-71ca-11e1-9e33-c80aa9429562:1-3", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1:3:5",
                          "3e11fa47-71ca-11e1-9e33-c80aa9429562:2-4"}) {
    SCOPED_TRACE(has);
    g.gtids = *binlog::GtidSet::Parse(has);
    std::vector<std::string> expected;
    bool skip = false;
    for (const auto& e : events) {
      if (static_cast<uint8_t>(e[4]) == binlog::kGtidEvent) {
        auto gi = binlog::DecodeGtid(e, Checksum::kCrc32);
        skip = g.gtids.Contains(gi->sid, gi->gno);
      }
      if (!skip) expected.push_back(e);
    }
    MemorySink sink;
    ASSERT_TRUE(Dump(g, sink).ok());
    EXPECT_EQ(sink.Events(), expected);
  }
}

TEST_F(RplTest, ErrorsAre1236WithMySQLsMessages) {
  Commit(1);
  MemorySink sink;
  DumpRequest req;
  req.file = "binlog.000099";
  Status s = Dump(req, sink);
  EXPECT_EQ(s.mysql_errno(), 1236);
  EXPECT_EQ(s.message(), "Could not find first log file name in binary log index file");
  req.file = "binlog.000001";
  req.position = 3;
  EXPECT_EQ(Dump(req, sink).message(), "Client requested master to start replication from position < 4.");
  req.position = 1u << 30;
  EXPECT_EQ(Dump(req, sink).message(), "Client requested master to start replication from position > file size");
  req.position = 4;
  EXPECT_EQ(Dump(req, sink, 2, Checksum::kUndef).message(),
            "Slave can not handle replication events with the checksum that master is configured to log");
  DumpRequest g;
  g.gtid = true;
  g.gtids = *binlog::GtidSet::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-9");
  EXPECT_EQ(Dump(g, sink).mysql_errno(), 1236);  // more GTIDs than this server has
  ASSERT_TRUE(binlog_->Rotate().ok());
  Commit(2);
  ASSERT_TRUE(binlog_->PurgeTo("binlog.000002").ok());
  g.gtids.Clear();
  s = Dump(g, sink);
  EXPECT_EQ(s.mysql_errno(), 1236);
  EXPECT_NE(s.message().find("purged required binary logs"), std::string::npos) << s.message();
}

TEST_F(RplTest, FollowsRotationAndStopsOnRequest) {
  Commit(1);
  MemorySink sink;
  std::atomic<bool> stop{false};
  DumpRequest req;
  req.server_id = 2;
  SenderOptions o;
  o.reader_checksum = Checksum::kOff;
  o.poll = std::chrono::milliseconds(20);
  o.heartbeat_period = std::chrono::milliseconds(30);
  BinlogSender sender(*binlog_, registry_, req, o, TransmitParam{}, sink, stop);
  Status result;
  std::thread t([&] { result = sender.Run(); });
  Commit(2);
  ASSERT_TRUE(binlog_->Rotate().ok());
  Commit(3);
  for (int i = 0; i < 500 && sender.counters().heartbeats < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop.store(true);
  t.join();
  EXPECT_TRUE(result.ok());
  int rotates = 0, xids = 0;
  for (const auto& e : sink.Events()) {
    rotates += static_cast<uint8_t>(e[4]) == binlog::kRotateEvent;
    xids += static_cast<uint8_t>(e[4]) == binlog::kXidEvent;
  }
  EXPECT_EQ(xids, 3);
  EXPECT_EQ(rotates, 3);  // fake, real at the end of file 1, fake for file 2
  EXPECT_GE(sender.counters().heartbeats, 2u);
}

// A reader that stops reading (its socket write blocks) holds up nobody:
// commits go on and another reader gets every transaction.
TEST_F(RplTest, AStalledReaderSlowsNeitherCommitsNorOtherReaders) {
  class StalledSink : public PacketSink {
   public:
    Status Send(std::string_view) override {
      std::unique_lock l(mu);
      ++sent;
      cv.wait(l, [&] { return released; });
      return Status::IOError("reader gone");
    }
    Status Flush() override { return Status::OK(); }
    void Release() {
      std::lock_guard l(mu);
      released = true;
      cv.notify_all();
    }
    std::mutex mu;
    std::condition_variable cv;
    bool released = false;
    int sent = 0;
  } stalled;
  MemorySink healthy;
  std::atomic<bool> stop{false};
  SenderOptions o;
  o.reader_checksum = Checksum::kCrc32;
  o.poll = std::chrono::milliseconds(5);
  DumpRequest a, b;
  a.server_id = 10;
  b.server_id = 12;
  BinlogSender slow(*binlog_, registry_, a, o, TransmitParam{}, stalled, stop);
  BinlogSender fast(*binlog_, registry_, b, o, TransmitParam{}, healthy, stop);
  std::thread t1([&] { EXPECT_TRUE(slow.Run().ok()); });
  std::thread t2([&] { EXPECT_TRUE(fast.Run().ok()); });
  for (uint64_t i = 1; i <= 300; ++i) Commit(i);  // would hang if a commit waited for readers
  for (int round = 0; round < 3000 && fast.counters().events < 3 + 3 * 300; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(fast.counters().events, 3u + 3 * 300);
  EXPECT_EQ(slow.counters().events, 0u);  // still blocked in its first send
  stop.store(true);
  stalled.Release();
  t1.join();
  t2.join();
}

// 50 dump threads stream while transactions commit and observers come and
// go (run under ThreadSanitizer): every reader ends with every event.
TEST_F(RplTest, FiftyReadersWhileObserversComeAndGo) {
  constexpr int kReaders = 50, kTrx = 200;
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<MemorySink>> sinks;
  std::vector<std::unique_ptr<BinlogSender>> senders;
  std::vector<std::thread> threads;
  for (int i = 0; i < kReaders; ++i) {
    sinks.push_back(std::make_unique<MemorySink>());
    DumpRequest req;
    req.server_id = static_cast<uint32_t>(100 + i);
    SenderOptions o;
    o.reader_checksum = Checksum::kCrc32;
    o.poll = std::chrono::milliseconds(5);
    TransmitParam p;
    p.server_id = req.server_id;
    senders.push_back(std::make_unique<BinlogSender>(*binlog_, registry_, req, o, p, *sinks.back(), stop));
  }
  for (int i = 0; i < kReaders; ++i) threads.emplace_back([&, i] { EXPECT_TRUE(senders[i]->Run().ok()); });
  std::atomic<bool> churn_done{false};
  std::thread churn([&] {
    std::vector<std::shared_ptr<CountingObserver>> keep;
    for (int i = 0; !churn_done.load(); ++i) {
      auto o = std::make_shared<CountingObserver>();
      keep.push_back(o);
      ASSERT_TRUE(registry_.transmit().Add(o.get(), o).ok());
      std::this_thread::yield();
      registry_.transmit().Remove(o.get());
    }
  });
  for (int i = 1; i <= kTrx; ++i) Commit(static_cast<uint64_t>(i));
  const binlog::Binlog::End end = binlog_->end();
  // Wait until every reader has everything (bounded).
  for (int round = 0; round < 3000; ++round) {
    bool all = true;
    for (auto& s : senders) all = all && s->counters().events >= 3 + 3 * kTrx;
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop.store(true);
  for (auto& t : threads) t.join();
  churn_done.store(true);
  churn.join();
  for (int i = 0; i < kReaders; ++i) {
    auto events = sinks[i]->Events();
    size_t xids = 0;
    for (const auto& e : events) xids += static_cast<uint8_t>(e[4]) == binlog::kXidEvent;
    EXPECT_EQ(xids, static_cast<size_t>(kTrx)) << "reader " << i << " packets " << sinks[i]->packets.size()
                                                << " events " << senders[i]->counters().events;
    (void)end;
  }
}

}  // namespace
}  // namespace sluice::server::rpl

namespace sluice::server::rpl {
namespace {

// A run framed in one loop is byte for byte the packets framed one event at
// a time, across the sequence number's wrap and for an event of 16 MiB or
// more (two frames); the default SendEvents hands the same events to
// SendPieces.
TEST(AppendEventPacketsTest, FramesEachEventAsAppendPacketDoes) {
  auto event = [](size_t size, char fill) {
    std::string e(size, fill);
    for (int i = 0; i < 4; ++i) e[9 + i] = static_cast<char>((size >> (8 * i)) & 0xFF);
    return e;
  };
  std::string run, small_run;
  std::vector<std::string> events, small;
  for (size_t size : {size_t{19}, size_t{31}, size_t{200}, size_t{0xFFFFFE}, size_t{0x1000010},
                      size_t{50}}) {
    events.push_back(event(size, static_cast<char>('a' + events.size())));
    run += events.back();
  }
  for (int i = 0; i < 300; ++i) {
    events.push_back(event(19 + i % 40, 'z'));
    run += events.back();
    small.push_back(events.back());
    small_run += events.back();
  }
  uint8_t seq_a = 250, seq_b = 250;
  std::string framed, expected = "prefix";
  framed = expected;
  AppendEventPackets(&framed, &seq_a, run);
  for (const std::string& e : events) protocol::AppendPacket(&expected, &seq_b, std::string_view("\0", 1), e);
  EXPECT_EQ(seq_a, seq_b);
  ASSERT_EQ(framed.size(), expected.size());
  EXPECT_TRUE(framed == expected);

  MemorySink sink;
  ASSERT_TRUE(sink.SendEvents(small_run).ok());
  ASSERT_EQ(sink.packets.size(), small.size());
  for (size_t i = 0; i < small.size(); ++i) EXPECT_TRUE(sink.packets[i] == std::string(1, '\0') + small[i]) << i;
}

}  // namespace
}  // namespace sluice::server::rpl
