"""Binlog + engine crash consistency: SIGKILL during a commit-heavy load.

Each round starts a private sluiced on the same datadir, runs concurrent
committers (single-row autocommit INSERTs and two-row BEGIN ... COMMIT
transactions, every row with a unique id), SIGKILLs the server mid-load,
restarts it and checks:
  * the ids in the table (the engine) and the ids the binlog's
    Write_rows events carry (decoded by Debian's mariadb-binlog) are the
    same set: crash recovery committed exactly the prepared transactions
    whose Xid reached the binlog and truncated a half-written one;
  * every id whose COMMIT returned OK is in both;
  * a two-row transaction is in both with both rows or in neither;
  * @@gtid_executed names exactly as many transactions as the binlog has.
Rounds: $SLUICE_CRASH_ROUNDS (default 30).
"""

import glob
import os
import random
import re
import shutil
import signal
import threading
import time

import harness
from harness import Server, connect, note, query, run_cmd, scalar, temp_dir

ROUNDS = int(os.environ.get("SLUICE_CRASH_ROUNDS", "30"))
THREADS = 8
MARIADB_BINLOG = shutil.which("mariadb-binlog") or shutil.which("mysqlbinlog")


def binlog_ids(datadir):
    """The ids of every row the binlog files insert, and the GTID count."""
    files = []
    index = os.path.join(datadir, "binlog.index")
    with open(index) as f:
        for line in f:
            line = line.strip()
            if line:
                files.append(os.path.join(datadir, os.path.basename(line)))
    rc, out, err = run_cmd([MARIADB_BINLOG, "--no-defaults", "-v", "--base64-output=decode-rows"] + files,
                           timeout=300)
    assert rc == 0, f"mariadb-binlog failed ({rc}): {err[-2000:]}"
    ids = []
    in_insert = False
    for line in out.splitlines():
        if line.startswith("### INSERT INTO `crash`.`t`"):
            in_insert = True
            continue
        if in_insert:
            m = re.match(r"^###   @1=(-?\d+)", line)
            if m:
                ids.append(int(m.group(1)))
                in_insert = False
    return ids, out


class Load:
    """Concurrent committers that remember what was acknowledged."""

    def __init__(self, port, base):
        self.port = port
        self.next_id = base
        self.lock = threading.Lock()
        self.acked = set()
        self.pairs = []  # (id1, id2) of two-row transactions
        self.stop = False

    def take(self, n):
        with self.lock:
            first = self.next_id
            self.next_id += n
            return first

    def worker(self, seed):
        rnd = random.Random(seed)
        try:
            conn = connect(port=self.port, autocommit=True)
        except Exception:  # noqa: BLE001 - the server may already be gone
            return
        try:
            cur = conn.cursor()
            while not self.stop:
                if rnd.random() < 0.3:
                    a = self.take(2)
                    with self.lock:
                        self.pairs.append((a, a + 1))
                    cur.execute("BEGIN")
                    cur.execute("INSERT INTO crash.t VALUES (%s, %s)", (a, "pair-a"))
                    cur.execute("INSERT INTO crash.t VALUES (%s, %s)", (a + 1, "pair-b"))
                    cur.execute("COMMIT")
                    with self.lock:
                        self.acked.update((a, a + 1))
                else:
                    a = self.take(1)
                    cur.execute("INSERT INTO crash.t VALUES (%s, %s)", (a, "single"))
                    with self.lock:
                        self.acked.add(a)
        except Exception:  # noqa: BLE001 - the kill ends every connection
            pass
        finally:
            harness.close_quietly(conn)


def test_sigkill_during_commits_keeps_engine_and_binlog_equal():
    assert MARIADB_BINLOG, "mariadb-binlog is not installed"
    datadir = temp_dir("binlog-crash")
    server = Server(datadir, extra=["--innodb-buffer-pool-size=32M"])
    server.start()
    try:
        conn = connect(port=server.port)
        query(conn, "CREATE DATABASE crash")
        query(conn, "CREATE TABLE crash.t (id BIGINT PRIMARY KEY, v VARCHAR(20))")
        conn.close()
        acked_all = set()
        pairs_all = []
        base = 1
        rnd = random.Random(7)
        for rnd_no in range(ROUNDS):
            load = Load(server.port, base)
            threads = [threading.Thread(target=load.worker, args=(rnd_no * 100 + i,)) for i in range(THREADS)]
            for t in threads:
                t.start()
            time.sleep(0.4 + rnd.random() * 0.8)
            os.kill(server.proc.pid, signal.SIGKILL)
            server.proc.wait(timeout=10)
            load.stop = True
            for t in threads:
                t.join(timeout=30)
                assert not t.is_alive(), "a load thread hung after the kill"
            acked_all |= load.acked
            pairs_all += load.pairs
            base = load.next_id + 10
            server.start()
            conn = connect(port=server.port)
            engine_ids = [r[0] for r in query(conn, "SELECT id FROM crash.t")]
            gtid_executed = scalar(conn, "SELECT @@global.gtid_executed")
            conn.close()
            ids, text = binlog_ids(datadir)
            engine_set, binlog_set = set(engine_ids), set(ids)
            assert len(ids) == len(binlog_set), "a row is in the binlog twice"
            assert engine_set == binlog_set, (
                f"round {rnd_no}: engine and binlog differ: only engine {sorted(engine_set - binlog_set)[:10]}, "
                f"only binlog {sorted(binlog_set - engine_set)[:10]}")
            lost = acked_all - engine_set
            assert not lost, f"round {rnd_no}: acknowledged commits lost: {sorted(lost)[:10]}"
            for a, b in pairs_all:
                assert (a in engine_set) == (b in engine_set), f"half a transaction survived: {a}, {b}"
            # One GTID per transaction: CREATE DATABASE, CREATE TABLE, then the rows.
            singles = len(engine_set) - 2 * sum(1 for a, _ in pairs_all if a in engine_set)
            expect = 2 + singles + sum(1 for a, _ in pairs_all if a in engine_set)
            m = re.search(r":1-(\d+)$", gtid_executed or "")
            assert m and int(m.group(1)) == expect, f"gtid_executed {gtid_executed!r}, expected 1-{expect}"
        note(f"{ROUNDS} rounds: {len(acked_all)} acknowledged rows, {len(engine_set)} rows in engine and binlog")
    finally:
        server.kill()


if __name__ == "__main__":
    harness.main(globals())
