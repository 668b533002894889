// exec/session_binlog.h
//
// What one session contributes to the binary log: its open transaction's
// events (a binlog::TransactionCache) and the rows events of the statement
// being run. The commit that sends them to the binlog is the transaction
// coordinator's (exec/transaction.h).
//
//   row change      LogRow(): Query BEGIN before the transaction's first
//                   event, a Table_map before a table's first rows event in
//                   the statement, rows into the pending Write/Update/
//                   Delete_rows event (a new one when the table or kind
//                   changes, or at binlog_row_event_max_size).
//   statement end   EndStatement(): the pending event gets STMT_END_F.
//   failed stmt     RollbackTo(Mark()): its events go.
//   COMMIT          Seal(), AppendXid(), then cache() to Binlog::Commit.
//   DDL             DdlEvents(): GTID + Query as its own transaction.
//
// Thread-safety: used by the session's statement thread only.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "binlog/binlog.h"
#include "binlog/row_event.h"
#include "storage/catalog/row_codec.h"
#include "storage/catalog/table_def.h"

namespace sluice::storage {
class Engine;
class EngineTrx;
}  // namespace sluice::storage

namespace sluice::exec {

class ExecEnv;
struct SessionContext;

// Global counters (SHOW STATUS Binlog_cache_use / Binlog_cache_disk_use).
struct BinlogCacheCounters {
  std::atomic<uint64_t> cache_use{0};
  std::atomic<uint64_t> cache_disk_use{0};
};
BinlogCacheCounters& GlobalBinlogCacheCounters();

// The seconds since the epoch that a session's events and its commit carry
// (the event headers' timestamp).
uint32_t BinlogTimestamp();

class SessionBinlog {
 public:
  enum class RowKind : uint8_t { kWrite, kUpdate, kDelete };

  SessionBinlog() = default;
  SessionBinlog(const SessionBinlog&) = delete;
  SessionBinlog& operator=(const SessionBinlog&) = delete;

  // Records one row change of the current statement. `before` / `after`
  // hold the table's columns (extra trailing values, e.g. a hidden row id,
  // are ignored). 1197 when the transaction outgrows max_binlog_cache_size.
  Status LogRow(const ExecEnv& env, SessionContext& ctx, const storage::TableDef& table, RowKind kind,
                const storage::Row* before, const storage::Row* after);
  // The statement ended well: the pending rows event closes with STMT_END_F.
  Status EndStatement();
  // A mark to roll the transaction's events back to (statement start,
  // savepoint).
  uint64_t Mark();
  Status RollbackTo(uint64_t mark);
  // Forgets the transaction's events (ROLLBACK, session end).
  void Clear();
  // Whether the open transaction has anything for the binlog.
  bool has_events() const { return !cache_.empty() || building_; }

  // Commit (exec/transaction.cc): the pending rows event closes, then the
  // Xid event ends the transaction's events, which go to the binlog's
  // group commit as cache().
  Status Seal();
  Status AppendXid(const ExecEnv& env, uint64_t xid);
  binlog::TransactionCache& cache() { return cache_; }
  // Binlog_cache_use / Binlog_cache_disk_use, once the transaction is in.
  void CountCacheUse() const;

  // A DDL statement's events, a transaction of its own (GTID + Query);
  // null when sql_log_bin is OFF or there is no binlog.
  static Result<std::unique_ptr<binlog::TransactionCache>> DdlEvents(const ExecEnv& env, SessionContext& ctx,
                                                                     std::string_view query);

 private:
  Status FlushPending(bool stmt_end);
  // Moves the builder's finished events into the cache.
  Status AppendFinished();
  // Appends the event `encode` writes into event_ (a scratch buffer, empty
  // between calls) to the cache.
  template <typename Encode>
  Status AppendEvent(Encode&& encode);

  binlog::TransactionCache cache_;
  // The pending rows event. REQUIRES: its table's definition outlives the
  // statement (the executor holds it).
  // Kept from statement to statement (RowsEventBuilder::Reset) for its
  // memory; it holds rows only while `building_`.
  std::optional<binlog::RowsEventBuilder> builder_;
  bool building_ = false;
  // Tables with a Table_map in this statement: a few at most, searched in
  // order; cleared, not freed, per statement.
  std::vector<uint64_t> mapped_;
  bool limits_set_ = false;
  std::string event_;
};

}  // namespace sluice::exec
