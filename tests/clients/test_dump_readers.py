"""The binlog dump (COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID) read by real
readers other than python-mysql-replication (test_dump_pyrepl.py):

* Debian's mariadb-binlog (MariaDB 10.11) with --read-from-remote-server
  --raw, once with --stop-never while rows are written and the log rotates,
  once with --to-last-log alone (non-blocking: it must end by itself, exit
  0). Its copies must equal the server's files byte for byte.
* go-mysql v1.16.0's replication.BinlogSyncer (tests/clients/go/binlogreader,
  built by scripts/deps.sh), by position and by GTID set, while rows are
  written; every decoded row is compared with cdc_model.py. Its Close()
  KILLs the dump connection from a second connection, which must end it.

mariadb-binlog 10.11 refuses a server whose SELECT VERSION() does not start
with 3, 4, 5, 10 or 11 ("Could not find server version: Master reported
unrecognized MariaDB version '8.0.36'"), so it cannot read a MySQL 8.0
primary remotely; sluiced recognises it by its connect attributes and
answers its VERSION() with 5.7.99-8.0.36-sluice. The tests run it directly,
then through RecordingProxy below, a pass-through TCP proxy that changes
nothing and records the set-up statements it sends.

Each test runs its own sluiced (--binlog-row-metadata=FULL)."""

import json
import os
import shutil
import socket
import struct
import subprocess
import threading
import time

import cdc_model as m
import harness as h

MARIADB_BINLOG = shutil.which("mariadb-binlog") or shutil.which("mysqlbinlog")
BINLOGREADER = h.BINLOGREADER
GO_MIN = (1, 25)  # go-mysql v1.16.0's go.mod says go 1.25.0
_servers = h.PrivateServers(extra=["--binlog-row-metadata=FULL"])
start = _servers.start


def teardown_module():
    _servers.kill_all()


def dump_threads(conn):
    return [r for r in h.query(conn, "SHOW PROCESSLIST") if str(r[4]).startswith("Binlog Dump")]


def dump_thread_nices(pid):
    """The nice values of the server's dump threads (sl_dump), from /proc."""
    return [int(fields[16]) for name, fields in h.thread_stats(pid) if name == "sl_dump"]  # field 19: nice


def wait_no_dump(conn, what, nudge=True):
    """The dump connection ends once its reader has gone. A dump waiting at
    the end of the log notices a closed socket only when it next sends
    something (MySQL's do the same: 'zombie' dump threads), so when it is
    still listed after a while a commit is made to give it an event."""
    try:
        h.bounded_poll(lambda: not dump_threads(conn), rounds=30, interval=0.1, what="")
        return
    except AssertionError:
        if not nudge:
            raise AssertionError(f"{what}: the dump connection is still there: {dump_threads(conn)!r}")
        h.note(f"{what}: the dump connection outlived its reader until the next event: {dump_threads(conn)!r}")
    h.query(conn, "CREATE TABLE IF NOT EXISTS cdc.nudge (id INT)")
    h.query(conn, "INSERT INTO cdc.nudge VALUES (1)")
    h.bounded_poll(lambda: not dump_threads(conn), rounds=100, interval=0.1,
                   what=f"{what}: the dump connection ends after the reader closed and an event was written")


def test_setup_queries_answered():
    """What mariadb-binlog and go-mysql's BinlogSyncer run before a dump
    (clients.md), each answered as MySQL 8.0 answers it; checked directly so
    that a wrong answer is named here rather than as a client error."""
    srv = start("readers-setup")
    c = h.root(port=srv.port)
    other = h.root(port=srv.port)
    try:
        # mariadb-binlog
        assert h.scalar(c, "SELECT VERSION()").startswith("8.0.")
        h.query(c, "SET @master_binlog_checksum='NONE'")
        h.query(c, "SET @mariadb_slave_capability=4")
        # go-mysql
        assert h.query(c, "SHOW GLOBAL VARIABLES LIKE 'BINLOG_CHECKSUM'") == (("binlog_checksum", "CRC32"),)
        h.query(c, "SET @master_binlog_checksum='NONE', @source_binlog_checksum='NONE'")
        assert h.query(c, "SELECT @master_binlog_checksum, @source_binlog_checksum") == (("NONE", "NONE"),)
        u = "8a1c7d2e-5a1e-11ef-8000-000000000002"
        h.query(c, f"SET @slave_uuid = '{u}', @replica_uuid = '{u}'")
        h.query(c, "SET @master_heartbeat_period = 30000000000, @source_heartbeat_period = 30000000000")
        # No semisync plugin loaded: no row, so go-mysql runs without semisync.
        rows = h.query(c, "SHOW VARIABLES WHERE Variable_name IN "
                          "('rpl_semi_sync_master_enabled', 'rpl_semi_sync_source_enabled')")
        assert all(r[1] != "ON" for r in rows), rows
        h.query(c, "SET @rpl_semi_sync_slave = 1, @rpl_semi_sync_replica = 1;")
        # Close(): KILL <id> from a new connection (1094 once the id is gone).
        victim = h.root(port=srv.port)
        vid = h.scalar(victim, "SELECT CONNECTION_ID()")
        h.query(other, f"KILL {vid}")
        h.bounded_poll(lambda: all(r[0] != vid for r in h.query(other, "SHOW PROCESSLIST")), rounds=100,
                       what="the KILLed connection is gone")
        h.expect_sql_error(other, f"KILL {vid}", [1094])
        h.close_quietly(victim)
    finally:
        h.close_quietly(c)
        h.close_quietly(other)
        srv.terminate()


def test_replica_and_connector_setup_queries():
    """What a MySQL 8.0 replica's IO thread, a MariaDB 10.11 replica and
    mysql-binlog-connector-java (Debezium) run before a dump (clients.md,
    protocol.md 7.5), each answered as MySQL 8.0 answers it."""
    srv = start("replica-setup")
    c = h.root(port=srv.port)
    try:
        server_id = h.scalar(c, "SELECT @@server_id")
        uuid = h.scalar(c, "SELECT @@GLOBAL.SERVER_UUID")
        # MySQL 8.0 replica IO thread
        assert int(h.scalar(c, "SELECT UNIX_TIMESTAMP()")) > 1600000000
        assert h.scalar(c, "SELECT @@GLOBAL.SERVER_ID") == server_id
        assert h.query(c, "SHOW VARIABLES LIKE 'SERVER_ID'") == (("server_id", str(server_id)),)
        assert h.query(c, "SHOW VARIABLES LIKE 'SERVER_UUID'") == (("server_uuid", uuid),)
        h.query(c, "SET @master_heartbeat_period = 30000000000")
        h.query(c, "SET @source_heartbeat_period = 30000000000")
        h.query(c, "SET @source_binlog_checksum = @@global.binlog_checksum")
        h.query(c, "SET @master_binlog_checksum = @@global.binlog_checksum")
        assert h.scalar(c, "SELECT @source_binlog_checksum") == "CRC32"
        assert h.scalar(c, "SELECT @master_binlog_checksum") == "CRC32"
        assert h.scalar(c, "SELECT @@GLOBAL.GTID_MODE") == "ON"
        h.query(c, "SET @replica_uuid = '8a1c7d2e-5a1e-11ef-8000-000000000009'")
        # No semisync plugin: exactly 1193, which the IO thread takes as "async".
        h.expect_sql_error(c, "SELECT @@global.rpl_semi_sync_source_enabled", [1193])
        h.expect_sql_error(c, "SELECT @@global.rpl_semi_sync_master_enabled", [1193])
        # MariaDB 10.11 replica
        h.query(c, "SET @master_heartbeat_period= 30000001024")
        h.query(c, "SET @mariadb_slave_capability=4")
        h.expect_sql_error(c, "SELECT binlog_gtid_pos('binlog.000001', 4)", [1305])  # ignored by the replica
        assert h.query(c, "SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled'") == ()
        # mysql-binlog-connector-java
        assert h.query(c, "show global variables like 'binlog_checksum'") == (("binlog_checksum", "CRC32"),)
        h.query(c, "set @master_binlog_checksum= @@global.binlog_checksum")
        assert h.scalar(c, "select @@server_id") == server_id
        status = h.query(c, "show master status")
        assert status and status[0][0].startswith("binlog.") and status[0][4] == ""
        assert h.query(c, "show binary log status")[0][:2] == status[0][:2]
        assert h.query(c, "SHOW VARIABLES LIKE 'binlog_row_metadata'") == (("binlog_row_metadata", "FULL"),)
        assert h.query(c, "SHOW VARIABLES LIKE 'binlog_format'") == (("binlog_format", "ROW"),)
    finally:
        h.close_quietly(c)
        srv.terminate()


def test_a_dump_with_a_connected_readers_server_id_replaces_it():
    """A second reader with the server_id of a connected dump (and no
    @replica_uuid) replaces it, as MySQL's zombie-dump rule says; a reader
    with another server_id, and server_id 0, replace nothing."""
    srv = start("zombie")
    c = h.root(port=srv.port)
    readers = []

    def dump(server_id):
        r = h.RawConn(port=srv.port, timeout=30)
        r.login("root", "")
        r.query("SET @master_binlog_checksum='NONE'")
        r.send_packet(bytes([h.COM_BINLOG_DUMP]) + struct.pack("<IHI", 4, 0, server_id) + b"binlog.000001", seq=0)
        readers.append(r)
        return r

    def dump_ids():
        return sorted(int(t[0]) for t in dump_threads(c))

    try:
        first = dump(501)
        h.bounded_poll(lambda: len(dump_threads(c)) == 1, what="first dump")
        first_id = dump_ids()[0]
        dump(502)
        h.bounded_poll(lambda: len(dump_threads(c)) == 2, what="second dump (another server_id)")
        dump(501)
        h.bounded_poll(lambda: len(dump_threads(c)) == 2 and first_id not in dump_ids(),
                       what="the first dump replaced by the one with its server_id")
        # The replaced reader's connection is closed.
        first.sock.settimeout(10)
        data = b"x"
        try:
            while data:
                data = first.sock.recv(65536)
        except OSError:
            pass
    finally:
        for r in readers:
            r.close()
        h.close_quietly(c)
        srv.terminate()


def test_malformed_dump_commands_get_1835():
    """Truncated COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID bodies (a GTID set
    longer than the packet, a name past its end) get ERR 1835 and the
    server goes on."""
    srv = start("malformed-dump")
    try:
        bodies = [
            bytes([h.COM_BINLOG_DUMP]) + b"\x01\x02",
            bytes([h.COM_BINLOG_DUMP_GTID]) + b"\x00",
            bytes([h.COM_BINLOG_DUMP_GTID]) + struct.pack("<HII", 0, 5, 100) + b"ab",
            bytes([h.COM_BINLOG_DUMP_GTID]) + struct.pack("<HII", 0, 5, 0) + struct.pack("<QI", 4, 1000) + b"xx",
        ]
        for body in bodies:
            r = h.RawConn(port=srv.port)
            try:
                r.login("root", "")
                r.send_packet(body, seq=0)
                reply = r.read_packet(check_seq=False)
                assert reply[0] == 0xFF and struct.unpack("<H", reply[1:3])[0] == 1835, reply[:60]
            finally:
                r.close()
        h.assert_server_ok(port=srv.port)
    finally:
        srv.terminate()


def aborted_clients(conn):
    return int(h.query(conn, "SHOW GLOBAL STATUS LIKE 'Aborted_clients'")[0][1])


def test_a_reader_that_stops_reading_is_dropped_after_net_write_timeout():
    """A dump's write that makes no progress for net_write_timeout (the
    reader's session value) ends the connection, on a plain socket and on
    TLS, and counts an aborted client, as MySQL's dump threads do; a reader
    that reads slowly but steadily is kept. Before, the dump thread waited
    in that write for good, holding its binlog file (KILL ended it)."""
    srv = start("stalled-reader")
    c = h.root(port=srv.port)
    try:
        h.query(c, "CREATE DATABASE s")
        h.query(c, "CREATE TABLE s.big (id INT PRIMARY KEY, b LONGTEXT)")
        for i in range(32):  # 32 MB of binlog: far more than the sockets buffer
            h.query(c, f"INSERT INTO s.big VALUES ({i}, REPEAT('x', 1048576))")
        binlog = h.query(c, "SHOW BINARY LOGS")[0][0]
        for tls in (False, True):
            _reader_stops_reading(srv, c, binlog, tls)
        h.assert_server_ok(port=srv.port)
    finally:
        h.close_quietly(c)
        srv.terminate()


def _reader_stops_reading(srv, c, binlog, tls):
    what = "TLS" if tls else "plain"
    timeout = 2
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)
    sock.connect((h.HOST, srv.port))
    r = h.connect(port=srv.port, tls=tls, datadir=srv.datadir, defer_connect=True)
    try:
        r.connect(sock)
        h.query(r, f"SET net_write_timeout = {timeout}")
        h.query(r, "SET @master_binlog_checksum = 'NONE'")
        aborted = aborted_clients(c)
        r._execute_command(h.COM_BINLOG_DUMP, struct.pack("<IHI", 4, 0, 700) + binlog.encode())
        wire = r._sock
        wire.settimeout(10)
        # Slowly but steadily (about 5 MB/s, each pause far shorter than the
        # timeout): the server's writes keep waiting for room, and go on.
        t_end = time.monotonic() + 2 * timeout
        got = 0
        while time.monotonic() < t_end:
            chunk = 0
            while chunk < (256 << 10):
                data = wire.recv(256 << 10)
                assert data, f"{what}: the dump ended while its reader read ({got + chunk} bytes)"
                chunk += len(data)
            got += chunk
            time.sleep(0.05)
        assert len(dump_threads(c)) == 1, f"{what}: a steady reader was dropped after {got} bytes"
        assert aborted_clients(c) == aborted, what
        # Then not at all: the dump thread's write stops moving, and once
        # it has made no progress for the timeout the connection ends.
        stopped = time.monotonic()
        h.bounded_poll(lambda: not dump_threads(c), rounds=100, interval=0.1,
                       what=f"{what}: the dump of a reader that stopped reading ended")
        took = time.monotonic() - stopped
        assert took >= timeout - 0.5, f"{what}: dropped {took:.1f} s after the reader stopped"
        h.bounded_poll(lambda: aborted_clients(c) == aborted + 1, rounds=30, interval=0.1,
                       what=f"{what}: Aborted_clients counts the dropped reader")
    finally:
        try:
            sock.close()
        except OSError:
            pass
        h.close_quietly(r)


# --------------------------------------------------------------------------
# mariadb-binlog

class RecordingProxy:
    """127.0.0.1:<port> -> sluiced. Packets are forwarded unchanged; every
    client command is recorded in .commands (payloads)."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = h.local_listener()
        self.listener.settimeout(0.5)
        self.port = self.listener.getsockname()[1]
        self.commands = []
        self.closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            server = socket.create_connection((h.HOST, self.target_port), timeout=10)
            server.settimeout(None)
            client.settimeout(None)
            threading.Thread(target=self._client_to_server, args=(client, server), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client), daemon=True).start()

    @staticmethod
    def _recv_exact(sock, n):
        buf = b""
        while len(buf) < n:
            chunk = sock.recv(n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return buf

    def _client_to_server(self, client, server):
        try:
            while True:
                hdr = self._recv_exact(client, 4)
                if hdr is None:
                    break
                n = hdr[0] | hdr[1] << 8 | hdr[2] << 16
                payload = self._recv_exact(client, n)
                if payload is None:
                    break
                if hdr[3] == 0:
                    self.commands.append(payload)
                    hdr = struct.pack("<I", len(payload))[:3] + hdr[3:4]
                server.sendall(hdr + payload)
        except OSError:
            pass
        finally:
            for s in (client, server):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    @staticmethod
    def _pipe(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.closed.set()
        self.listener.close()

    def queries(self):
        return [c[1:].decode(errors="replace") for c in self.commands if c[:1] == b"\x03"]

    def dumps(self):
        """(pos, flags, server_id, file) of every COM_BINLOG_DUMP sent."""
        out = []
        for c in self.commands:
            if c[:1] == bytes([h.COM_BINLOG_DUMP]):
                pos, flags, sid = struct.unpack("<IHI", c[1:11])
                out.append((pos, flags, sid, c[11:].decode(errors="replace")))
        return out


def mariadb_binlog_argv(port, outdir, *extra):
    return [MARIADB_BINLOG, "--no-defaults", "--read-from-remote-server", "--raw", "--skip-ssl",
            f"--host={h.HOST}", f"--port={port}", "--user=root", f"--result-file={outdir}/",
            *extra, "binlog.000001"]


def server_logs(conn):
    return [(r[0], int(r[1])) for r in h.query(conn, "SHOW BINARY LOGS")]


IN_USE_OFFSET = 4 + 17  # flags of the Format_description event that follows the magic
LOG_EVENT_BINLOG_IN_USE_F = 0x1


def compare_copies(srv, conn, outdir, what):
    """Each copy equals the server's file, except that the file still open
    carries LOG_EVENT_BINLOG_IN_USE_F in its Format_description event and a
    MySQL 8.0 dump clears that flag in the copy it sends (the event's CRC32
    is computed with the flag clear, so it still matches)."""
    logs = server_logs(conn)
    for name, size in logs:
        mine = os.path.join(outdir, name)
        theirs = os.path.join(srv.datadir, name)
        assert os.path.exists(mine), f"{what}: no copy of {name} (have {sorted(os.listdir(outdir))})"
        with open(mine, "rb") as f:
            a = f.read()
        with open(theirs, "rb") as f:
            b = f.read()
        assert len(b) == size, f"{name}: SHOW BINARY LOGS says {size}, the file has {len(b)} bytes"
        if len(b) > IN_USE_OFFSET and b[IN_USE_OFFSET] & LOG_EVENT_BINLOG_IN_USE_F:
            assert name == logs[-1][0], f"{name} is closed but its IN_USE flag is set"
            b = b[:IN_USE_OFFSET] + bytes([b[IN_USE_OFFSET] & ~LOG_EVENT_BINLOG_IN_USE_F]) + b[IN_USE_OFFSET + 1:]
        if a != b:
            at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            raise AssertionError(f"{what}: {name} differs at byte {at} (copy {len(a)} bytes, server {len(b)}): "
                                 f"copy {a[at:at + 24].hex()} server {b[at:at + 24].hex()}")
    extra = set(os.listdir(outdir)) - {n for n, _ in logs}
    assert not extra, f"{what}: files the server does not list: {sorted(extra)}"
    # The copies decode, every event's CRC32 checked.
    p = subprocess.run([MARIADB_BINLOG, "--no-defaults", "--verify-binlog-checksum", "-v",
                        *[os.path.join(outdir, n) for n, _ in logs]], capture_output=True, timeout=120)
    err = p.stderr.decode(errors="replace")
    assert p.returncode == 0 and "ERROR" not in err, f"{what}: decoding the copies: exit {p.returncode}: {err[-2000:]}"
    assert b"### INSERT INTO `cdc`.`types`" in p.stdout, f"{what}: no rows decoded from the copies"
    return logs


def simple_load(conn, first, count):
    """count autocommit INSERT/UPDATE/DELETE statements on cdc.k."""
    with conn.cursor() as cur:
        for i in range(first, first + count):
            k = i // 3
            if i % 3 == 0:
                cur.execute("INSERT INTO cdc.k VALUES (%s, %s)", (k, "v%d" % i * (i % 9 + 1)))
            elif i % 3 == 1:
                cur.execute("UPDATE cdc.k SET v = %s WHERE id = %s", ("u%d" % i, k))
            elif i % 6 == 5:
                cur.execute("DELETE FROM cdc.k WHERE id = %s", (k,))


def check_mariadb_binlog_setup(proxy, what, flags):
    """The statements clients.md lists were sent (each must have succeeded,
    since the client went on to the dump) and the dump asked for."""
    qs = proxy.queries()
    for q in ("SELECT VERSION()", "SET @master_binlog_checksum='NONE'", "SET @mariadb_slave_capability=4"):
        assert q in qs, f"{what}: mariadb-binlog did not send {q!r} (sent {qs!r})"
    dumps = proxy.dumps()
    assert dumps and dumps[0][0] == 4 and dumps[0][3] == "binlog.000001", f"{what}: dumps {dumps!r}"
    assert all((d[1] & 1) == flags for d in dumps), f"{what}: NON_BLOCK flag expected {flags}, dumps {dumps!r}"
    h.note(f"{what}: queries {qs!r}; COM_BINLOG_DUMP (pos, flags, server_id, file) {dumps!r}")


def test_mariadb_binlog_to_last_log():
    """--to-last-log without --stop-never: BINLOG_DUMP_NON_BLOCK, one
    connection that follows the Rotate events into later files and ends at
    the server's EOF packet with exit 0; the copies equal the files."""
    assert MARIADB_BINLOG, "mariadb-binlog is not installed"
    srv = start("mbl-last")
    conn = h.root(port=srv.port)
    proxy = RecordingProxy(srv.port)
    try:
        w = m.Workload(conn)
        w.create()
        h.query(conn, "CREATE TABLE cdc.k (id INT PRIMARY KEY, v VARCHAR(100))")
        w.phase(1, 20)
        simple_load(conn, 0, 90)
        w.flush()
        simple_load(conn, 90, 90)
        w.flush()
        w.phase(40, 10)

        # Straight to the server: mariadb-binlog's own version check.
        direct = h.temp_dir("mbl-direct")
        os.makedirs(direct)
        rc, out, err = h.run_cmd(mariadb_binlog_argv(srv.port, direct, "--to-last-log"), timeout=60)
        assert rc == 0, f"direct mariadb-binlog: rc {rc}: {err}"
        compare_copies(srv, conn, direct, "--to-last-log (direct)")

        outdir = h.temp_dir("mbl-last-out")
        os.makedirs(outdir)
        rc, out, err = h.run_cmd(mariadb_binlog_argv(proxy.port, outdir, "--to-last-log"), timeout=120)
        assert rc == 0, f"mariadb-binlog --to-last-log: exit {rc}; stderr:\n{err[-3000:]}"
        logs = compare_copies(srv, conn, outdir, "--to-last-log")
        assert len(logs) == 3, logs
        check_mariadb_binlog_setup(proxy, "--to-last-log", 1)
        assert len(proxy.dumps()) == 1, f"--to-last-log must use one dump connection: {proxy.dumps()!r}"
        wait_no_dump(conn, "--to-last-log")
    finally:
        proxy.close()
        h.close_quietly(conn)
        srv.terminate()


def test_mariadb_binlog_stop_never():
    """--stop-never (blocking dump, flags 0) started before the writes: it
    copies the files while they grow and follows FLUSH BINARY LOGS into the
    new files; once its copies reach the sizes SHOW BINARY LOGS gives, it is
    stopped and every copy equals the server's file."""
    assert MARIADB_BINLOG, "mariadb-binlog is not installed"
    srv = start("mbl-never")
    conn = h.root(port=srv.port)
    proxy = RecordingProxy(srv.port)
    outdir = h.temp_dir("mbl-never-out")
    os.makedirs(outdir)
    errfile = os.path.join(outdir + ".stderr")
    proc = None
    try:
        w = m.Workload(conn)
        w.create()
        h.query(conn, "CREATE TABLE cdc.k (id INT PRIMARY KEY, v VARCHAR(100))")
        with open(errfile, "wb") as ef:
            proc = subprocess.Popen(mariadb_binlog_argv(proxy.port, outdir, "--stop-never",
                                                        "--stop-never-slave-server-id=4242"),
                                    stdout=subprocess.DEVNULL, stderr=ef, stdin=subprocess.DEVNULL)

        def stderr_tail():
            with open(errfile, errors="replace") as f:
                return f.read()[-3000:]

        h.bounded_poll(lambda: dump_threads(conn) or proc.poll() is not None, rounds=100,
                       what="mariadb-binlog's dump is connected")
        assert proc.poll() is None, f"mariadb-binlog exited with {proc.returncode}: {stderr_tail()}"
        # A plain reader: its dump thread yields the CPU to the commits at
        # sluice_plain_reader_nice (19 unless set).
        h.bounded_poll(lambda: dump_thread_nices(srv.proc.pid) == [19], rounds=50, interval=0.1,
                       what="the dump thread at nice 19")
        w.phase(1, 20)
        simple_load(conn, 0, 150)
        w.flush()
        simple_load(conn, 150, 150)
        w.phase(40, 20)
        w.flush()
        simple_load(conn, 300, 60)

        def caught_up():
            if proc.poll() is not None:
                raise AssertionError(f"mariadb-binlog --stop-never exited with {proc.returncode}: {stderr_tail()}")
            for name, size in server_logs(conn):
                p = os.path.join(outdir, name)
                if not os.path.exists(p) or os.path.getsize(p) < size:
                    return False
            return True

        h.bounded_poll(caught_up, rounds=300, interval=0.1, what="mariadb-binlog's copies reach the file sizes")
        assert proc.poll() is None, "mariadb-binlog --stop-never ended by itself"
        proc.terminate()
        proc.wait(timeout=10)
        logs = compare_copies(srv, conn, outdir, "--stop-never")
        assert len(logs) == 3, logs
        check_mariadb_binlog_setup(proxy, "--stop-never", 0)
        assert proxy.dumps()[0][2] == 4242, proxy.dumps()
        wait_no_dump(conn, "--stop-never")
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        proxy.close()
        h.close_quietly(conn)
        srv.terminate()


# --------------------------------------------------------------------------
# go-mysql

def go_version():
    """(major, minor) of the go on PATH or /usr/local/go/bin, or None."""
    for go in (shutil.which("go"), "/usr/local/go/bin/go"):
        if go and os.path.exists(go):
            try:
                rc, out, _ = h.run_cmd([go, "env", "GOVERSION"], timeout=30)
            except Exception:  # noqa: BLE001
                continue
            v = out.strip()
            if rc == 0 and v.startswith("go"):
                parts = v[2:].split(".")
                try:
                    return int(parts[0]), int(parts[1].split("rc")[0].split("beta")[0])
                except (IndexError, ValueError):
                    return None
    return None


def need_binlogreader():
    """True when the binary is there; False (with a note) when this machine
    cannot build it (no Go >= 1.25); fails when it should have been built."""
    if os.access(BINLOGREADER, os.X_OK):
        return True
    v = go_version()
    if v is None or v < GO_MIN:
        h.note(f"SKIPPED: go-mysql v1.16.0 needs Go >= {GO_MIN[0]}.{GO_MIN[1]} and this machine has "
               f"{'no Go' if v is None else 'Go %d.%d' % v}; {BINLOGREADER} was not built")
        return False
    raise AssertionError(f"{BINLOGREADER} is missing although Go {v[0]}.{v[1]} is installed: run scripts/deps.sh")


def run_reader(*args):
    return subprocess.Popen([BINLOGREADER, "-v", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)


def finish_reader(proc, what, timeout=120):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate(timeout=10)
        raise AssertionError(f"{what}: binlogreader did not finish; stderr:\n{err[-3000:]}")
    assert proc.returncode == 0, f"{what}: binlogreader exit {proc.returncode}; stderr:\n{err[-3000:]}"
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert lines and lines[-1].get("done"), f"{what}: no done line; stdout tail {out[-2000:]}"
    return lines, err


def go_changes(lines, what):
    """binlogreader's rows lines as (kind, before, after) lists of values."""
    out = []
    for ln in lines:
        if "rows" not in ln or ln.get("done"):
            continue
        assert (ln["schema"], ln["table"]) == (m.SCHEMA, m.TABLE), ln
        assert tuple(ln["columns"]) == m.COLUMNS, f"{what}: column names {ln['columns']!r}"
        vals = [m.go_normalise(v) for v in ln["values"]]
        if ln["rows"] == "write":
            out += [("write", None, v) for v in vals]
        elif ln["rows"] == "delete":
            out += [("delete", v, None) for v in vals]
        else:
            assert len(vals) % 2 == 0, ln
            out += [("update", vals[i], vals[i + 1]) for i in range(0, len(vals), 2)]
    return out


def go_want(changes):
    out = []
    for kind, before, after in changes:
        out.append((kind, None if before is None else m.go_expected(before),
                    None if after is None else m.go_expected(after)))
    return out



def test_go_mysql_position():
    """StartSync(binlog.000001:4): every row change of two files, the Rotate
    into the second; Close() KILLs the dump connection."""
    if not need_binlogreader():
        return
    srv = start("go-pos")
    conn = h.root(port=srv.port)
    try:
        w = m.Workload(conn)
        w.create()
        a = w.phase(1, 12)
        w.flush()
        b = w.phase(30, 12)
        want = a + b
        proc = run_reader(f"-port={srv.port}", "-server-id=1001", "-mode=pos", "-file=binlog.000001", "-pos=4",
                          f"-rows={len(want)}", "-timeout=60s")
        lines, err = finish_reader(proc, "by position")
        m.compare(go_changes(lines, "by position"), go_want(want), "go-mysql by position")
        rotates = [ln["rotate"] for ln in lines if "rotate" in ln]
        assert "binlog.000002" in rotates, rotates
        wait_no_dump(conn, "go-mysql by position (Close KILLs it)", nudge=False)
    finally:
        h.close_quietly(conn)
        srv.terminate()


def test_go_mysql_gtid_live():
    """StartSyncGTID(<executed set>) before the writes: registered (SHOW
    SLAVE HOSTS), a 'Binlog Dump GTID' connection, only the transactions
    after the set, then the rows committed while it waits, across a
    rotation; Close() KILLs the dump connection."""
    if not need_binlogreader():
        return
    srv = start("go-gtid")
    conn = h.root(port=srv.port)
    proc = None
    try:
        w = m.Workload(conn)
        w.create()
        w.phase(1, 10)
        ga = w.gtid_executed()
        uuid = h.scalar(conn, "SELECT @@server_uuid")
        last_a = int(ga.rsplit("-", 1)[1])
        b = w.phase(20, 6)
        n_c = len(m.phase_changes(40, 10)) + len(m.phase_changes(60, 4))
        proc = run_reader(f"-port={srv.port}", "-server-id=1002", "-mode=gtid", f"-gtid={ga}",
                          f"-rows={len(b) + n_c}", "-timeout=90s")
        hosts = h.bounded_poll(
            lambda: [r for r in h.query(conn, "SHOW SLAVE HOSTS") if int(r[0]) == 1002] or proc.poll() is not None,
            rounds=100, what="go-mysql registered (SHOW SLAVE HOSTS)")
        assert proc.poll() is None, f"binlogreader exited early: {proc.communicate()[1][-3000:]}"
        dumps = h.bounded_poll(lambda: dump_threads(conn), rounds=100, what="a Binlog Dump GTID connection")
        assert [r[4] for r in dumps] == ["Binlog Dump GTID"], dumps
        h.note(f"SHOW SLAVE HOSTS: {hosts!r}")
        c = w.phase(40, 10)
        w.flush()
        c += w.phase(60, 4)
        lines, err = finish_reader(proc, "by GTID")
        m.compare(go_changes(lines, "by GTID"), go_want(b + c), "go-mysql by GTID")
        gtids = [ln["gtid"] for ln in lines if "gtid" in ln]
        assert gtids, "no GTID events"
        for g in gtids:
            sid, gno = g.rsplit(":", 1)
            assert sid == uuid and int(gno) > last_a, f"{g} is in {ga}: it must be skipped (all {gtids})"
        wait_no_dump(conn, "go-mysql by GTID (Close KILLs it)", nudge=False)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
        h.close_quietly(conn)
        srv.terminate()


if __name__ == "__main__":
    h.main(globals())
