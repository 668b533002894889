"""Semisync (issue 15): plugins/semisync's semisync_source.so and friends in
a private sluiced, acknowledged by real clients.

- Before INSTALL, @@global.rpl_semi_sync_source_enabled / _master_enabled
  answer 1193 exactly (what MySQL replicas test for); after it both name
  sets of variables and status answer; the replica plugins install with
  their status OFF; the old and new source plugins cannot both be loaded.
- go-mysql's BinlogSyncer with SemiSyncEnabled (tests/clients/go's
  binlogreader -semisync) acks: yes_tx rises by exactly the number of
  transactions committed, no_tx does not, under AFTER_SYNC and
  AFTER_COMMIT; a plain reader beside it is not observed (clients stays 1,
  its stream has no semisync header) and decodes everything.
- The only semisync reader stopped (SIGSTOP): the next commit waits about
  the timeout, status turns OFF, no_tx and no_times rise; continued
  (SIGCONT), it acks the newest position and status is ON again.
- wait_for_replica_count=2 with two readers acks; one stopped, commits
  wait and then fall back.
- A TLS semisync replica that stops reading (behind a proxy) while its
  ack arrives holds neither the other replica's acks nor the commits
  waiting for them; once it reads again it catches up and acks.
- UNINSTALL while a semisync reader streams and semisync is enabled: 1883
  with MySQL's text; once disabled, UNINSTALL ends that reader's
  connection (it reconnects to a server without the plugin) and the
  server goes on.
- A MariaDB 10.11 replica with rpl_semi_sync_slave_enabled=ON acks: the
  same yes_tx / no_tx accounting, also for JSON rows that reach it as
  MariaDB's compressed rows events.
- AFTER_SYNC is lossless under SIGKILL: every transaction whose COMMIT
  returned OK is in the semisync reader's received stream.
"""

import os
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
import types

import contextlib

import pymysql

import harness as h

READER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "go", "bin", "binlogreader")
SOURCE_LIB = "semisync_source.so"
_servers = h.PrivateServers(extra=["--server-id=1"])


def teardown_module():
    _servers.kill_all()


def need_reader():
    """True when go-mysql's binlogreader is built (test_dump_readers.py
    says why when it cannot be)."""
    if os.access(READER, os.X_OK):
        return True
    h.note(f"SKIPPED: {READER} was not built (scripts/deps.sh builds it with Go >= 1.25)")
    return False


def status(c, name):
    rows = h.query(c, f"SHOW GLOBAL STATUS LIKE '{name}'")
    return rows[0][1] if rows else None


def counters(c):
    return {r[0]: r[1] for r in h.query(c, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_source%'")}


def num(c, name):
    return int(status(c, "Rpl_semi_sync_source_" + name))


class Reader:
    """binlogreader streaming from the start of the binlog, acking when
    semisync; its JSON lines go to a file."""

    def __init__(self, srv, server_id, semisync=True, tls=False):
        self.out_path = os.path.join(h.TMPDIR, f"semisync-reader-{server_id}-{os.getpid()}.jsonl")
        self.err_path = self.out_path + ".err"
        argv = [READER, "-port", str(srv.port), "-server-id", str(server_id), "-rows", "100000000",
                "-timeout", "600s", "-xids", "-file", "", "-pos", "4"]
        if semisync:
            argv.append("-semisync")
        if tls:
            argv.append("-tls")
        self.out = open(self.out_path, "wb")
        self.err = open(self.err_path, "wb")
        self.proc = subprocess.Popen(argv, stdout=self.out, stderr=self.err, stdin=subprocess.DEVNULL)

    def lines(self):
        import json
        with open(self.out_path, "rb") as f:
            out = []
            for line in f.read().splitlines():
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
            return out

    def gtids(self):
        return {x["gtid"] for x in self.lines() if "gtid" in x}

    def stderr(self):
        with open(self.err_path, errors="replace") as f:
            return f.read()[-2000:]

    def pause(self):
        """SIGSTOP, and wait until every thread of the reader is stopped.
        kill() returns before the stop: the kernel wakes one thread to
        begin the group stop, and until it has run, another thread (Go's
        network poller) can still read an event and send its ack."""
        self.proc.send_signal(signal.SIGSTOP)
        h.bounded_poll(lambda: all(fields[0] == "T" for _, fields in h.thread_stats(self.proc.pid)),
                       rounds=500, interval=0.01, what="the reader's threads stopped")

    def resume(self):
        self.proc.send_signal(signal.SIGCONT)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.out.close()
        self.err.close()


def wait_clients(c, n, what):
    h.bounded_poll(lambda: num(c, "clients") == n, rounds=150, interval=0.1,
                   what=f"{what}: Rpl_semi_sync_source_clients = {n}")


@contextlib.contextmanager
def primary():
    """A fresh sluiced with the source plugin installed and ON."""
    srv = _servers.start("semisync")
    c = h.root(port=srv.port)
    h.query(c, f"INSTALL PLUGIN rpl_semi_sync_source SONAME '{SOURCE_LIB}'")
    h.query(c, "CREATE DATABASE ss")
    h.query(c, "CREATE TABLE ss.t (id INT PRIMARY KEY, v INT)")
    # ON with no replica yet (wait_no_replica=ON): a commit now would wait
    # the whole timeout, as in MySQL; the tests attach readers first.
    h.query(c, "SET GLOBAL rpl_semi_sync_source_timeout = 10000")
    h.query(c, "SET GLOBAL rpl_semi_sync_source_enabled = ON")
    readers = []
    try:
        yield srv, c, readers
    finally:
        for r in readers:
            r.stop()
        h.close_quietly(c)
        srv.kill()


def insert(c, first, n):
    for i in range(first, first + n):
        h.query(c, f"INSERT INTO ss.t VALUES ({i}, {i})")


# ---------------------------------------------------------------- names

def test_names_before_and_after_install():
    srv = _servers.start("semisync-names")
    c = h.root(port=srv.port)
    try:
        for v in ("rpl_semi_sync_source_enabled", "rpl_semi_sync_master_enabled"):
            e = h.expect_sql_error(c, f"SELECT @@global.{v}", 1193)
            assert e.args[1] == f"Unknown system variable '{v}'", e.args
        h.query(c, f"INSTALL PLUGIN rpl_semi_sync_source SONAME '{SOURCE_LIB}'")
        rows = h.query(c, "SHOW VARIABLES WHERE Variable_name IN "
                          "('rpl_semi_sync_master_enabled', 'rpl_semi_sync_source_enabled')")
        assert sorted(rows) == [("rpl_semi_sync_master_enabled", "OFF"), ("rpl_semi_sync_source_enabled", "OFF")]
        assert h.scalar(c, "SELECT @@global.rpl_semi_sync_source_timeout") == 10000
        assert h.scalar(c, "SELECT @@global.rpl_semi_sync_master_wait_point") == "AFTER_SYNC"
        assert h.scalar(c, "SELECT @@global.rpl_semi_sync_master_wait_for_slave_count") == 1
        assert h.scalar(c, "SELECT @@global.rpl_semi_sync_source_wait_no_replica") == 1
        h.query(c, "SET GLOBAL rpl_semi_sync_master_enabled = ON")  # the old name sets the same variable
        rows = h.query(c, "SHOW VARIABLES WHERE Variable_name IN "
                          "('rpl_semi_sync_master_enabled', 'rpl_semi_sync_source_enabled')")
        assert [r[1] for r in rows] == ["ON", "ON"], rows
        st = {r[0]: r[1] for r in h.query(c, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync%'")}
        for suffix in ("clients", "status", "yes_tx", "no_tx", "no_times", "wait_sessions", "tx_avg_wait_time",
                       "tx_wait_time", "tx_waits", "net_avg_wait_time", "wait_pos_backtraverse",
                       "timefunc_failures"):
            for prefix in ("Rpl_semi_sync_source_", "Rpl_semi_sync_master_"):
                assert prefix + suffix in st, (prefix + suffix, sorted(st))
        assert st["Rpl_semi_sync_source_status"] == "ON"  # wait_no_replica=ON: ON without replicas
        h.expect_sql_error(c, "SET GLOBAL rpl_semi_sync_source_wait_point = 'NOWHERE'", 1231)
        # The old plugin cannot be loaded beside the new one.
        try:
            h.query(c, "INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'")
            raise AssertionError("semisync_master.so installed beside semisync_source.so")
        except pymysql.err.MySQLError as e:
            h.note(f"old beside new: {e.args}")
        # The replica plugins: variables, status OFF (no replication threads).
        h.query(c, "INSTALL PLUGIN rpl_semi_sync_replica SONAME 'semisync_replica.so'")
        assert h.scalar(c, "SELECT @@global.rpl_semi_sync_slave_enabled") == 0
        assert status(c, "Rpl_semi_sync_replica_status") == "OFF"
        assert status(c, "Rpl_semi_sync_slave_status") == "OFF"
        h.query(c, "UNINSTALL PLUGIN rpl_semi_sync_replica")
        h.query(c, "SET GLOBAL rpl_semi_sync_source_enabled = OFF")
        h.query(c, "UNINSTALL PLUGIN rpl_semi_sync_source")
        h.query(c, "INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'")
        assert h.scalar(c, "SELECT @@global.rpl_semi_sync_source_timeout") == 10000
        assert status(c, "Rpl_semi_sync_master_status") == "OFF"
        h.query(c, "UNINSTALL PLUGIN rpl_semi_sync_master")
        h.expect_sql_error(c, "SELECT @@global.rpl_semi_sync_master_enabled", 1193)
    finally:
        h.close_quietly(c)
        srv.kill()


def test_start_up_options_reach_the_plugin():
    """my.cnf-style options, as MySQL documents them, beside
    --plugin-load-add: the plain name (a MySQL option), the old name and
    loose- all set the plugin's variables at start."""
    srv = _servers.start("semisync-options", extra=[
        "--plugin-load-add=semisync_source.so", "--rpl-semi-sync-source-enabled=ON",
        "--rpl_semi_sync_master_timeout=500", "--loose-rpl-semi-sync-source-wait-point=AFTER_COMMIT"])
    c = h.root(port=srv.port)
    try:
        row = h.query(c, "SELECT @@global.rpl_semi_sync_source_enabled, @@global.rpl_semi_sync_source_timeout, "
                         "@@global.rpl_semi_sync_source_wait_point")[0]
        assert row == (1, 500, "AFTER_COMMIT"), row
        assert status(c, "Rpl_semi_sync_source_status") == "ON"
    finally:
        h.close_quietly(c)
        srv.kill()


# ---------------------------------------------------------------- go-mysql

def test_go_mysql_acks_every_transaction_after_sync():
    go_mysql_acks("AFTER_SYNC")


def test_go_mysql_acks_every_transaction_after_commit():
    go_mysql_acks("AFTER_COMMIT")


def test_go_mysql_acks_over_tls():
    go_mysql_acks("AFTER_SYNC", tls=True)


def go_mysql_acks(wait_point, tls=False):
    if not need_reader():
        return
    with primary() as (srv, c, readers):
        go_mysql_acks_on(srv, c, readers, wait_point, tls)


def go_mysql_acks_on(srv, c, readers, wait_point, tls):
    h.query(c, f"SET GLOBAL rpl_semi_sync_source_wait_point = {wait_point}")
    tls_before = int(status(c, "Ssl_finished_accepts"))
    readers.append(Reader(srv, 101, tls=tls))
    readers.append(Reader(srv, 102, semisync=False))  # a plain reader beside it
    wait_clients(c, 1, "semisync reader connected")
    before = counters(c)
    insert(c, 1, 20)
    h.query(c, "BEGIN")
    insert(c, 100, 3)
    h.query(c, "COMMIT")
    after = counters(c)
    assert int(after["Rpl_semi_sync_source_yes_tx"]) - int(before["Rpl_semi_sync_source_yes_tx"]) == 21, after
    assert after["Rpl_semi_sync_source_no_tx"] == before["Rpl_semi_sync_source_no_tx"], after
    assert after["Rpl_semi_sync_source_status"] == "ON"
    assert after["Rpl_semi_sync_source_clients"] == "1", "the plain reader is not a semisync client"
    if tls:
        assert int(status(c, "Ssl_finished_accepts")) > tls_before, "the semisync reader did not use TLS"
    assert int(after["Rpl_semi_sync_source_tx_waits"]) > 0
    # Both readers decoded every transaction (the plain one without a header).
    want = 21 + 2  # + CREATE DATABASE, CREATE TABLE
    for r in readers:
        h.bounded_poll(lambda: len(r.gtids()) >= want, rounds=100, interval=0.1,
                       what=f"reader {r.proc.args[4]} saw {want} transactions; stderr: {r.stderr()}")
        assert r.proc.poll() is None, r.stderr()


def test_concurrent_commits_each_acked():
    """Many sessions committing at once: one waiting commit reads the acks
    for all of them and hands that on as it is released (docs/semisync.md,
    Acks). A commit left with no one reading would wait out the timeout and
    switch semisync OFF (no_tx)."""
    if not need_reader():
        return
    for wait_point in ("AFTER_SYNC", "AFTER_COMMIT"):
        with primary() as (srv, c, readers):
            concurrent_commits_each_acked(srv, c, readers, wait_point)


def concurrent_commits_each_acked(srv, c, readers, wait_point):
    h.query(c, f"SET GLOBAL rpl_semi_sync_source_wait_point = {wait_point}")
    readers.append(Reader(srv, 101))
    wait_clients(c, 1, "semisync reader connected")
    before = counters(c)

    def commit_rows(k):
        conn = h.root(port=srv.port)
        try:
            insert(conn, 1000 * (k + 1), 40)
        finally:
            h.close_quietly(conn)

    errors = h.run_workers(8, commit_rows)
    assert not errors, errors
    after = counters(c)
    assert int(after["Rpl_semi_sync_source_yes_tx"]) - int(before["Rpl_semi_sync_source_yes_tx"]) == 320, \
        (wait_point, after)
    assert after["Rpl_semi_sync_source_no_tx"] == before["Rpl_semi_sync_source_no_tx"], (wait_point, after)
    assert after["Rpl_semi_sync_source_status"] == "ON", (wait_point, after)
    assert after["Rpl_semi_sync_source_wait_sessions"] == "0", (wait_point, after)


def test_spin_wait_acks_and_times_out():
    """sluice_semi_sync_spin_wait: the waiting commits poll for their acks
    before they sleep (the receiver its socket, the others the wake-up
    they would sleep for). The same accounting holds as when they sleep at
    once: every concurrent commit acked, none falling back; and a commit
    whose replica stopped still waits out the timeout (the spin ends, it
    sleeps) and switches semisync OFF, and back ON when the replica acks."""
    if not need_reader():
        return
    with primary() as (srv, c, readers):
        assert h.query(c, "SELECT @@global.sluice_semi_sync_spin_wait")[0][0] == 0
        h.query(c, "SET GLOBAL sluice_semi_sync_spin_wait = 5000")
        concurrent_commits_each_acked(srv, c, readers, "AFTER_SYNC")
    with primary() as (srv, c, readers):
        h.query(c, "SET GLOBAL sluice_semi_sync_spin_wait = 5000")
        _timeout_switches_off_and_back_on(srv, c, readers)


def test_timeout_switches_off_and_back_on():
    if not need_reader():
        return
    with primary() as (srv, c, readers):
        _timeout_switches_off_and_back_on(srv, c, readers)


def _timeout_switches_off_and_back_on(srv, c, readers):
    h.query(c, "SET GLOBAL rpl_semi_sync_source_timeout = 1500")
    r = Reader(srv, 101)
    readers.append(r)
    wait_clients(c, 1, "semisync reader connected")
    insert(c, 1, 3)
    assert num(c, "yes_tx") == 3
    r.pause()  # the only semisync replica stops acking
    t0 = time.monotonic()
    insert(c, 10, 1)
    waited = time.monotonic() - t0
    assert 1.2 <= waited < 10, f"the commit waited {waited:.2f} s for a 1.5 s timeout"
    st = counters(c)
    assert st["Rpl_semi_sync_source_status"] == "OFF", st
    assert st["Rpl_semi_sync_source_no_tx"] == "1" and st["Rpl_semi_sync_source_no_times"] == "1", st
    t0 = time.monotonic()
    insert(c, 11, 2)  # OFF: no waiting
    assert time.monotonic() - t0 < 1.0
    assert num(c, "no_tx") == 3
    r.resume()  # it catches up and acks the newest position
    h.bounded_poll(lambda: status(c, "Rpl_semi_sync_source_status") == "ON", rounds=100, interval=0.1,
                   what="semisync back ON after the replica caught up")
    yes = num(c, "yes_tx")
    insert(c, 20, 2)
    assert num(c, "yes_tx") == yes + 2
    assert num(c, "no_tx") == 3
    with open(srv.log_error, errors="replace") as f:
        log = f.read()
    assert "Timeout waiting for reply of binlog" in log
    assert "Semi-sync replication switched OFF" in log
    assert "Semi-sync replication switched ON with replica (server_id: 101)" in log


def test_wait_for_two_replicas():
    if not need_reader():
        return
    with primary() as (srv, c, readers):
        _wait_for_two_replicas(srv, c, readers)


def _wait_for_two_replicas(srv, c, readers):
    h.query(c, "SET GLOBAL rpl_semi_sync_source_timeout = 1500")
    h.query(c, "SET GLOBAL rpl_semi_sync_source_wait_for_replica_count = 2")
    a, b = Reader(srv, 101), Reader(srv, 102)
    readers += [a, b]
    wait_clients(c, 2, "two semisync readers connected")
    insert(c, 1, 5)
    st = counters(c)
    assert st["Rpl_semi_sync_source_yes_tx"] == "5" and st["Rpl_semi_sync_source_no_tx"] == "0", st
    b.pause()
    t0 = time.monotonic()
    insert(c, 10, 1)
    waited = time.monotonic() - t0
    assert waited >= 1.2, f"one ack of two needed: the commit should wait, waited {waited:.2f} s"
    st = counters(c)
    assert st["Rpl_semi_sync_source_status"] == "OFF" and st["Rpl_semi_sync_source_no_tx"] == "1", st
    b.resume()
    h.bounded_poll(lambda: status(c, "Rpl_semi_sync_source_status") == "ON", rounds=100, interval=0.1,
                   what="back ON once both acked")
    # A commit waiting for two acks is released when one is enough.
    h.query(c, "SET GLOBAL rpl_semi_sync_source_timeout = 20000")
    b.pause()
    yes = num(c, "yes_tx")
    t = threading.Thread(target=lambda: insert(h.root(port=srv.port), 30, 1))
    t0 = time.monotonic()
    t.start()
    h.bounded_poll(lambda: num(c, "wait_sessions") == 1, rounds=100, interval=0.05, what="the commit waits")
    h.query(c, "SET GLOBAL rpl_semi_sync_source_wait_for_replica_count = 1")
    t.join(timeout=30)
    assert time.monotonic() - t0 < 10, "the waiting commit was not released by wait_for_replica_count = 1"
    assert num(c, "yes_tx") == yes + 1 and status(c, "Rpl_semi_sync_source_status") == "ON"
    b.resume()


class StallingProxy:
    """A TCP proxy for one connection to the server that can hold what the
    client sends (hold_up) and stop reading what the server sends
    (stall_down), as a replica that stops reading would."""

    def __init__(self, server_port):
        self.server_port = server_port
        self.listener = h.local_listener(1)
        self.port = self.listener.getsockname()[1]
        self.hold_up = False
        self.stall_down = False
        self.held = bytearray()
        self.done = False
        self.lock = threading.Lock()
        self.client = self.upstream = None
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        self.client, _ = self.listener.accept()
        up = socket.socket()
        # A small receive buffer: the server's writes stall after a few MB.
        up.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 10)
        up.connect((h.HOST, self.server_port))
        self.upstream = up
        threading.Thread(target=self._pump_up, daemon=True).start()
        threading.Thread(target=self._pump_down, daemon=True).start()

    def _pump_up(self):
        while not self.done:
            try:
                data = self.client.recv(65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                if self.hold_up:
                    self.held += data
                    continue
            self.upstream.sendall(data)

    def _pump_down(self):
        while not self.done:
            if self.stall_down:
                time.sleep(0.01)
                continue
            try:
                data = self.upstream.recv(65536)
            except OSError:
                return
            if not data:
                return
            self.client.sendall(data)

    def server_send_queue(self):
        """Bytes the server has queued on this connection (h.server_send_queue)."""
        return h.server_send_queue(self.server_port, self.upstream.getsockname()[1])

    def release_up(self, pause=0.0):
        """Sends what was held, a byte at a time `pause` s apart when
        pause > 0, and forwards from then on."""
        with self.lock:
            self.hold_up = False
            held, self.held = bytes(self.held), bytearray()
            if pause <= 0:
                self.upstream.sendall(held)
                return
            self.upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for i in range(len(held)):
                self.upstream.sendall(held[i:i + 1])
                time.sleep(pause)

    def close(self):
        self.done = True
        for sock in (self.client, self.upstream, self.listener):
            if sock is not None:
                try:
                    sock.close()
                except OSError:
                    pass


def test_stalled_tls_replica_holds_no_other_acks():
    """On TLS a read of the connection takes its turn behind the dump
    thread's write, and a replica that stops reading holds that write: its
    ack, arriving meanwhile, must not hold the thread that reads every
    replica's acks (docs/semisync.md, Limits). Before (18fdb69), the other
    replica's acks went unread and each commit waited out the timeout."""
    if not need_reader():
        return
    with primary() as (srv, c, readers):
        proxy = StallingProxy(srv.port)
        try:
            _stalled_tls_replica_holds_no_other_acks(srv, c, readers, proxy)
        finally:
            proxy.close()


def _stalled_tls_replica_holds_no_other_acks(srv, c, readers, proxy):
    h.query(c, "SET GLOBAL rpl_semi_sync_source_timeout = 5000")
    readers.append(Reader(srv, 101))  # plain TCP, healthy
    stalled = Reader(types.SimpleNamespace(port=proxy.port), 102, tls=True)
    readers.append(stalled)
    wait_clients(c, 2, "two semisync readers connected")
    h.query(c, "CREATE TABLE ss.big (id INT PRIMARY KEY, b LONGTEXT)")
    insert(c, 1, 3)
    assert num(c, "yes_tx") == 4 and num(c, "no_tx") == 0, counters(c)
    # The TLS replica's acks are kept back from here, and then it stops
    # reading while the binlog grows by far more than the sockets buffer:
    # its dump thread is left in a write.
    # A dump asks for an ack only for an event not acknowledged when it is
    # sent, and the healthy replica may ack first: commit one row at a time
    # until the TLS replica has acked one.
    proxy.hold_up = True
    acked_rows = 0
    while not proxy.held and acked_rows < 100:
        insert(c, 10 + acked_rows, 1)
        acked_rows += 1
        time.sleep(0.05)
    assert proxy.held, f"the TLS replica acked none of {acked_rows} commits"
    proxy.stall_down = True
    # 4 MB more than the largest send buffer the kernel grows a socket to.
    with open("/proc/sys/net/ipv4/tcp_wmem") as f:
        wmem_max = int(f.read().split()[2])
    big = (wmem_max + (4 << 20)) // (1 << 20)
    for i in range(big):
        h.query(c, f"INSERT INTO ss.big VALUES ({i}, REPEAT('x', 1048576))")

    # The dump thread is held in a write for good once the server's send
    # buffer for the connection has grown to its largest and stopped
    # moving (until then each of the kernel's zero-window probes can grow
    # it and let the write go on for a while).
    def write_stuck():
        before = proxy.server_send_queue()
        time.sleep(1)
        return proxy.server_send_queue() == before >= wmem_max * 3 // 4
    h.bounded_poll(write_stuck, rounds=30, interval=0.1, what="the TLS replica's dump stuck in a write")
    # Its acks arrive while the write holds the stream, a byte at a time:
    # each segment that arrives can still let the server send a little
    # more, until the buffers can take no more (a write of a 1 MB event
    # does not end that way; one of 256 KB sometimes did).
    proxy.release_up(pause=0.02)
    time.sleep(0.5)
    before = counters(c)
    t0 = time.monotonic()
    insert(c, 100, 5)
    waited = time.monotonic() - t0
    after = counters(c)
    assert after["Rpl_semi_sync_source_no_tx"] == before["Rpl_semi_sync_source_no_tx"], \
        f"commits waited for the timeout ({waited:.1f} s for 5): {after}"
    assert int(after["Rpl_semi_sync_source_yes_tx"]) - int(before["Rpl_semi_sync_source_yes_tx"]) == 5, after
    assert after["Rpl_semi_sync_source_status"] == "ON", after
    # Reading again, the TLS replica catches up and acks: with both needed,
    # a commit is acknowledged.
    proxy.stall_down = False
    want = 3 + acked_rows + big + 5 + 3  # + CREATE DATABASE, CREATE TABLE x2
    h.bounded_poll(lambda: len(stalled.gtids()) >= want, rounds=300, interval=0.1,
                   what=f"the TLS replica caught up; stderr: {stalled.stderr()}")
    h.query(c, "SET GLOBAL rpl_semi_sync_source_wait_for_replica_count = 2")
    yes = num(c, "yes_tx")
    insert(c, 200, 2)
    assert num(c, "yes_tx") == yes + 2 and status(c, "Rpl_semi_sync_source_status") == "ON", counters(c)
    assert stalled.proc.poll() is None, stalled.stderr()


def test_uninstall_refused_while_streaming():
    if not need_reader():
        return
    with primary() as (srv, c, readers):
        _uninstall_refused_while_streaming(srv, c, readers)


def _uninstall_refused_while_streaming(srv, c, readers):
    r = Reader(srv, 101)
    readers.append(r)
    wait_clients(c, 1, "semisync reader connected")
    e = h.expect_sql_error(c, "UNINSTALL PLUGIN rpl_semi_sync_source", 1883)
    assert e.args[1] == "Stop any active semisynchronous replicas of this source first.", e.args
    insert(c, 1, 2)
    h.query(c, "SET GLOBAL rpl_semi_sync_source_enabled = OFF")
    h.query(c, "UNINSTALL PLUGIN rpl_semi_sync_source")
    # The reader's semisync stream cannot go on without the plugin: it ends.
    insert(c, 5, 1)
    r.proc.wait(timeout=30)
    h.expect_sql_error(c, "SELECT @@global.rpl_semi_sync_source_enabled", 1193)
    insert(c, 6, 1)
    h.assert_server_ok(port=srv.port)


def test_hold_plain_readers_at_the_acknowledged_position():
    """sluice_semi_sync_hold_plain_readers=ON: a plain reader gets a
    transaction only once the semisync replica acknowledged it; when
    semisync falls back (timeout), the plain reader is released."""
    if not need_reader():
        return
    with primary() as (srv, c, readers):
        h.query(c, "SET GLOBAL rpl_semi_sync_source_timeout = 3000")
        h.query(c, "SET GLOBAL sluice_semi_sync_hold_plain_readers = ON")
        semi, plain = Reader(srv, 101), Reader(srv, 102, semisync=False)
        readers += [semi, plain]
        wait_clients(c, 1, "semisync reader connected")
        insert(c, 1, 5)  # acknowledged: the plain reader gets them
        h.bounded_poll(lambda: len(plain.gtids()) >= 7, rounds=100, interval=0.1,
                       what=f"plain reader got the acknowledged transactions ({plain.stderr()})")
        semi.pause()
        have = len(plain.gtids())
        done = threading.Event()
        t = threading.Thread(target=lambda: (insert(h.root(port=srv.port), 10, 1), done.set()))
        t0 = time.monotonic()
        t.start()
        time.sleep(1.5)  # the commit waits for an ack that does not come
        assert not done.is_set()
        assert len(plain.gtids()) == have, "the plain reader got a transaction no replica acknowledged"
        t.join(timeout=30)
        assert done.is_set() and time.monotonic() - t0 >= 2.5
        assert status(c, "Rpl_semi_sync_source_status") == "OFF"
        h.bounded_poll(lambda: len(plain.gtids()) == have + 1, rounds=100, interval=0.1,
                       what="semisync OFF: the plain reader is released")
        semi.resume()
        h.bounded_poll(lambda: status(c, "Rpl_semi_sync_source_status") == "ON", rounds=100, interval=0.1,
                       what="back ON")
        insert(c, 20, 2)
        h.bounded_poll(lambda: len(plain.gtids()) == have + 3, rounds=100, interval=0.1,
                       what="held and released again as acks come")
        h.query(c, "SET GLOBAL sluice_semi_sync_hold_plain_readers = OFF")


# ---------------------------------------------------------------- cycles

def proc_figures(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    with open(f"/proc/{pid}/maps") as f:
        maps = sum(1 for l in f if SOURCE_LIB in l)
    return rss, fds, maps


def test_install_uninstall_cycles_with_plain_readers():
    """1000 INSTALL / SET ON / SET OFF / UNINSTALL cycles with 40 plain
    readers attached (COM_BINLOG_DUMP, blocking) and commits between them:
    file descriptors and mapped copies of the library flat, RSS bounded."""
    srv = _servers.start("semisync-cycles")
    c = h.root(port=srv.port)
    readers = []
    try:
        h.query(c, "CREATE DATABASE ss")
        h.query(c, "CREATE TABLE ss.t (id INT PRIMARY KEY, v INT)")
        first = h.query(c, "SHOW BINARY LOGS")[0][0]
        for k in range(40):
            r = h.RawConn(port=srv.port)
            r.login("root")
            r.query("SET @master_binlog_checksum = 'CRC32'")
            body = struct.pack("<IHI", 4, 0, 200 + k) + first.encode()
            r.send_packet(bytes([h.COM_BINLOG_DUMP]) + body, seq=0)
            readers.append(r)
        h.bounded_poll(lambda: sum(1 for row in h.query(c, "SHOW PROCESSLIST") if row[4] == "Binlog Dump") == 40,
                       rounds=100, interval=0.1, what="40 plain readers streaming")

        def cycle(i):
            h.query(c, f"INSTALL PLUGIN rpl_semi_sync_source SONAME '{SOURCE_LIB}'")
            h.query(c, "SET GLOBAL rpl_semi_sync_source_enabled = ON")
            if i % 10 == 0:
                # No semisync replica and wait_no_replica=OFF: commits do not wait.
                h.query(c, "SET GLOBAL rpl_semi_sync_source_wait_no_replica = OFF")
                h.query(c, f"INSERT INTO ss.t VALUES ({i}, {i})")
            h.query(c, "SET GLOBAL rpl_semi_sync_source_enabled = OFF")
            h.query(c, "UNINSTALL PLUGIN rpl_semi_sync_source")

        for i in range(50):  # warm-up: allocator pools, thread stacks
            cycle(i)
        rss0, fds0, maps0 = proc_figures(srv.proc.pid)
        t0 = time.monotonic()
        for i in range(50, 1050):
            cycle(i)
        took = time.monotonic() - t0
        rss1, fds1, maps1 = proc_figures(srv.proc.pid)
        h.note(f"1000 cycles with 40 plain readers in {took:.1f} s: RSS {rss0} -> {rss1} KiB, "
               f"fds {fds0} -> {fds1}, mapped {SOURCE_LIB} {maps0} -> {maps1}")
        assert fds1 == fds0, (fds0, fds1)
        assert maps0 == 0 and maps1 == 0, (maps0, maps1)
        # Sanitizers keep per-thread state of every thread ever started (one
        # ack receiver per INSTALL): RSS says nothing there.
        if not any(os.environ.get(v) for v in ("ASAN_OPTIONS", "TSAN_OPTIONS")):
            assert rss1 - rss0 < 8 * 1024, f"RSS grew {rss1 - rss0} KiB over 1000 cycles"
        assert sum(1 for row in h.query(c, "SHOW PROCESSLIST") if row[4] == "Binlog Dump") == 40
        assert h.scalar(c, "SELECT COUNT(*) FROM ss.t") == 105
    finally:
        for r in readers:
            r.close()
        h.close_quietly(c)
        srv.kill()


# ---------------------------------------------------------------- MariaDB

def test_mariadb_replica_acks():
    """A MariaDB 10.11 replica with rpl_semi_sync_slave_enabled=ON asks for
    semisync (SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled', SET
    @rpl_semi_sync_slave=1) and acks every transaction; with its IO thread
    stopped the next commit waits the timeout and semisync falls back; JSON
    rows (rewritten for it) are acked as promptly."""
    import test_mariadb_replica as mr
    if not (mr.MARIADBD and mr.INSTALL_DB):
        raise AssertionError("mariadb-server is not installed (scripts/deps.sh installs it)")
    base = h.temp_dir("semisync-mariadb")
    os.makedirs(base, exist_ok=True)
    srv = _servers.start("semisync-mariadb-primary")
    replica = None
    c = h.root(port=srv.port)
    try:
        h.query(c, f"SET GLOBAL collation_server = '{mr.COLLATION}'")
        h.query(c, f"SET GLOBAL collation_connection = '{mr.COLLATION}'")
        h.close_quietly(c)
        c = h.root(port=srv.port)  # a session with the new collation_server
        h.query(c, f"SET NAMES utf8mb4 COLLATE {mr.COLLATION}")
        h.query(c, "CREATE USER 'repl'@'%' IDENTIFIED WITH mysql_native_password BY 'pw'")
        h.query(c, "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%'")
        h.query(c, "CREATE DATABASE ss")
        h.query(c, "CREATE TABLE ss.t (id INT PRIMARY KEY, v INT)")
        h.query(c, f"INSTALL PLUGIN rpl_semi_sync_source SONAME '{SOURCE_LIB}'")
        h.query(c, "SET GLOBAL rpl_semi_sync_source_timeout = 2000")
        first = h.query(c, "SHOW BINARY LOGS")[0][0]
        replica = mr.MariaDB(os.path.join(base, "mariadb")).start()
        m = replica.connect()
        try:
            h.query(m, "SET GLOBAL rpl_semi_sync_slave_enabled = ON")
            h.query(m, f"CHANGE MASTER TO MASTER_HOST='{h.HOST}', MASTER_PORT={srv.port}, MASTER_USER='repl', "
                       f"MASTER_PASSWORD='pw', MASTER_LOG_FILE='{first}', MASTER_LOG_POS=4, MASTER_USE_GTID=no, "
                       "MASTER_CONNECT_RETRY=1")
            h.query(m, "START SLAVE")
            wait_clients(c, 1, "the MariaDB replica registered as semisync")
            h.query(c, "SET GLOBAL rpl_semi_sync_source_enabled = ON")
            before = counters(c)
            insert(c, 1, 15)
            h.query(c, "BEGIN")
            insert(c, 100, 5)
            h.query(c, "COMMIT")
            after = counters(c)
            assert int(after["Rpl_semi_sync_source_yes_tx"]) - int(before["Rpl_semi_sync_source_yes_tx"]) == 16, \
                (after, replica.log_tail(10))
            assert after["Rpl_semi_sync_source_no_tx"] == before["Rpl_semi_sync_source_no_tx"], after
            assert after["Rpl_semi_sync_source_status"] == "ON"
            st = {r[0]: r[1] for r in h.query(m, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_slave_status'")}
            assert st.get("Rpl_semi_sync_slave_status") == "ON", st
            def wait_applied(table, rows):
                def applied():
                    try:
                        return h.scalar(m, f"SELECT COUNT(*) FROM {table}") == rows
                    except pymysql.err.MySQLError:
                        return False  # not created there yet

                h.bounded_poll(applied, rounds=150, interval=0.1,
                               what=f"the replica applied the {rows} rows of {table} "
                                    f"({mr.describe(mr.slave_status(m))})")

            wait_applied("ss.t", 20)
            # The replica's IO thread stops: the next commit waits the timeout, then falls back.
            h.query(m, "STOP SLAVE IO_THREAD")
            wait_clients(c, 0, "the replica's dump ended")
            t0 = time.monotonic()
            insert(c, 200, 1)
            waited = time.monotonic() - t0
            st = counters(c)
            assert waited >= 1.6, f"waited {waited:.2f} s for a 2 s timeout"
            assert st["Rpl_semi_sync_source_status"] == "OFF" and st["Rpl_semi_sync_source_no_tx"] == "1", st
            h.query(m, "START SLAVE IO_THREAD")
            h.bounded_poll(lambda: status(c, "Rpl_semi_sync_source_status") == "ON", rounds=150, interval=0.1,
                           what="semisync ON again once the replica caught up")
            yes = num(c, "yes_tx")
            insert(c, 300, 2)
            assert num(c, "yes_tx") == yes + 2
            # JSON rows reach a MariaDB replica rewritten (its JSON is text):
            # these go as MariaDB's compressed rows events (type 169). Each
            # transaction is still asked for its ack at its end, none waits
            # the timeout.
            h.query(c, "CREATE TABLE ss.j (id INT PRIMARY KEY, doc JSON)")
            yes, no = num(c, "yes_tx"), num(c, "no_tx")
            # (seventeen-digit doubles: their text is far longer than their binary form)
            doc = "[" + ", ".join(["0.30000000000000004"] * 12) + ', {"k": [true, null]}]'
            for i in range(4):
                h.query(c, f"INSERT INTO ss.j VALUES ({i}, '{doc}')")
            assert num(c, "yes_tx") == yes + 4 and num(c, "no_tx") == no, counters(c)
            assert status(c, "Rpl_semi_sync_source_status") == "ON"
            wait_applied("ss.j", 4)
        finally:
            h.close_quietly(m)
    finally:
        h.close_quietly(c)
        if replica is not None:
            replica.stop()
        srv.kill()
        shutil.rmtree(base, ignore_errors=True)


# ---------------------------------------------------------------- lossless

def test_after_sync_lossless_under_sigkill():
    """Writers commit under load; the primary is SIGKILLed; every GTID whose
    COMMIT returned OK is in the semisync reader's stream."""
    if not need_reader():
        return
    with primary() as (srv, c, readers):
        _after_sync_lossless_under_sigkill(srv, c, readers)


def _after_sync_lossless_under_sigkill(srv, c, readers):
    r = Reader(srv, 101)
    readers.append(r)
    wait_clients(c, 1, "semisync reader connected")
    acknowledged = []  # rows whose COMMIT returned OK
    visible = set()    # rows another session saw
    lock = threading.Lock()
    stop = threading.Event()

    def writer(k):
        w = h.root(port=srv.port)
        try:
            i = 0
            while not stop.is_set():
                i += 1
                try:
                    h.query(w, f"INSERT INTO ss.t VALUES ({k * 1000000 + i}, {i})")
                except pymysql.err.MySQLError:
                    return
                with lock:
                    acknowledged.append(k * 1000000 + i)
        finally:
            h.close_quietly(w)

    def watcher():
        w = h.root(port=srv.port)
        try:
            while not stop.is_set():
                try:
                    rows = h.query(w, "SELECT id FROM ss.t")
                except pymysql.err.MySQLError:
                    return
                with lock:
                    visible.update(x[0] for x in rows)
        finally:
            h.close_quietly(w)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(1, 5)]
    threads.append(threading.Thread(target=watcher))
    for t in threads:
        t.start()
    time.sleep(3)
    srv.proc.kill()
    stop.set()
    for t in threads:
        t.join(timeout=30)
    time.sleep(0.5)
    r.proc.kill()
    r.proc.wait(timeout=10)
    seen_rows = set()
    for x in r.lines():
        if x.get("rows") == "write" and x.get("table") == "t":
            for v in x["values"]:
                seen_rows.add(v[0])
    with lock:
        ok = list(acknowledged)
        seen_elsewhere = set(visible)
    assert ok, "no commit returned before the kill"
    missing = [k for k in ok if k not in seen_rows]
    assert not missing, f"{len(missing)} of {len(ok)} acknowledged rows never reached the replica: {missing[:10]}"
    phantom = sorted(k for k in seen_elsewhere if k not in seen_rows)
    assert not phantom, f"{len(phantom)} rows were visible to another session but never reached the replica"
    h.note(f"lossless: {len(ok)} acknowledged, {len(seen_elsewhere)} seen by another session, all received")


if __name__ == "__main__":
    h.main(globals())
