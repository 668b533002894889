"""100 concurrent stop-never binlog readers while sysbench writes (issue 7).

A private sluiced; 100 readers (tests/clients/binlog_readers.py: two
processes of 50 raw-protocol readers, each its own connection as the repl
account, COM_BINLOG_DUMP from binlog.000001:4 in blocking mode, i.e.
mariadb-binlog --raw --stop-never, each with its own server_id and its own
directory; why not 100 mariadb-binlog processes: see that file) attach,
and all must be streaming (SHOW PROCESSLIST lists 100 'Binlog Dump'
connections). Then sysbench oltp_insert prepares and runs for
MANY_READERS_SYSBENCH_TIME seconds (default 15) at 8 threads, with FLUSH
BINARY LOGS before and after the run (every reader must follow the
rotations). Once the writes are done, every reader must get the whole
binlog: a bounded poll (failing when the copies stop growing) waits until
each copy has the size SHOW BINARY LOGS gives, then the readers are stopped
by pid (SIGTERM) and every copy is compared byte for byte with the server's
file — except that the file still open carries LOG_EVENT_BINLOG_IN_USE_F in
its Format_description event and a MySQL 8.0 dump clears that flag in what
it sends (its CRC32 is computed with the flag clear). No reader may have
seen an error, and the dump connections end once their readers are gone
(as in MySQL: with no heartbeat asked for, a waiting dump finds its reader
gone when a send fails, so the test commits a few times)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import harness as h

SYSBENCH_TIME = int(os.environ.get("MANY_READERS_SYSBENCH_TIME", "15"))
READERS = int(os.environ.get("MANY_READERS", "100"))
PROCS = 2
SYSBENCH = shutil.which("sysbench")
READER_TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "binlog_readers.py")
IN_USE_OFFSET = 4 + 17   # flags of the Format_description event after the magic
LOG_EVENT_BINLOG_IN_USE_F = 0x1

S = {"procs": []}


def setup_module():
    base = h.temp_dir("many-readers")
    os.makedirs(base, exist_ok=True)
    S["base"] = base
    srv = h.Server(os.path.join(base, "sluiced"), extra=["--max-connections=400"])
    S["srv"] = srv
    srv.start()
    c = h.root(port=srv.port)
    try:
        h.query(c, "CREATE USER 'repl'@'%' IDENTIFIED WITH mysql_native_password BY 'pw'")
        h.query(c, "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%'")
        h.query(c, "CREATE DATABASE sbtest")
    finally:
        h.close_quietly(c)


def stop_readers():
    rcs = []
    for p, _ in S["procs"]:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p, _ in S["procs"]:
        try:
            rcs.append(p.wait(timeout=60))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=10)
            rcs.append(None)
    return rcs


def teardown_module():
    stop_readers()
    if S.get("srv") is not None:
        S["srv"].terminate()
    if S.get("base") and os.environ.get("KEEP_TMP") != "1":
        shutil.rmtree(S["base"], ignore_errors=True)


def statuses():
    out = []
    for _, path in S["procs"]:
        try:
            with open(path) as f:
                out.append(json.load(f))
        except (OSError, ValueError):
            out.append(None)
    return out


def reader_errors():
    errs = []
    for p, path in S["procs"]:
        st = None
        try:
            with open(path) as f:
                st = json.load(f)
        except (OSError, ValueError):
            pass
        if st and st["errors"]:
            errs += st["errors"]
        if p.poll() is not None and not (st and st.get("final")):
            errs.append(f"reader process {p.pid} exited with {p.returncode}")
    return errs


def dump_threads(conn):
    return [r for r in h.query(conn, "SHOW PROCESSLIST") if str(r[4]).startswith("Binlog Dump")]


def reader_dirs():
    return [os.path.join(S["base"], "readers", "r%03d" % i) for i in range(READERS)]


def sysbench(command, *extra):
    cmd = [SYSBENCH, "oltp_insert", "--db-driver=mysql", f"--mysql-host={h.HOST}",
           f"--mysql-port={S['srv'].port}", "--mysql-user=root", "--mysql-password=", "--mysql-db=sbtest",
           "--tables=2", "--table-size=1000", "--threads=8"] + list(extra) + [command]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=SYSBENCH_TIME + 240)
    out = p.stdout + p.stderr
    assert p.returncode == 0 and "FATAL" not in out, f"sysbench {command} failed ({p.returncode}):\n{out[-3000:]}"
    return out


def copy_sizes(logs):
    """Per reader, how many bytes of all of logs it has (its files' sizes)."""
    total = []
    for d in reader_dirs():
        n = 0
        for name, _ in logs:
            try:
                n += os.path.getsize(os.path.join(d, name))
            except OSError:
                pass
        total.append(n)
    return total


def compare_copy(d, name, server_bytes, is_last):
    mine = os.path.join(d, name)
    assert os.path.exists(mine), f"{d}: no copy of {name} (has {sorted(os.listdir(d))})"
    with open(mine, "rb") as f:
        a = f.read()
    b = server_bytes
    if len(b) > IN_USE_OFFSET and b[IN_USE_OFFSET] & LOG_EVENT_BINLOG_IN_USE_F:
        assert is_last, f"{name} is closed but its IN_USE flag is set"
        b = b[:IN_USE_OFFSET] + bytes([b[IN_USE_OFFSET] & ~LOG_EVENT_BINLOG_IN_USE_F]) + b[IN_USE_OFFSET + 1:]
    if a != b:
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        raise AssertionError(f"{d}/{name} differs at byte {at} (copy {len(a)} bytes, server {len(b)}): "
                             f"copy {a[at:at + 24].hex()} server {b[at:at + 24].hex()}")


def test_many_stop_never_readers_get_the_whole_binlog():
    assert SYSBENCH, "sysbench is not installed (scripts/deps.sh installs it)"
    srv = S["srv"]
    rdir = os.path.join(S["base"], "readers")
    per = -(-READERS // PROCS)
    for k in range(PROCS):
        first, count = k * per, min(per, READERS - k * per)
        if count <= 0:
            continue
        status = os.path.join(S["base"], f"readers-{k}.json")
        log = open(os.path.join(S["base"], f"readers-{k}.log"), "ab")
        p = subprocess.Popen([sys.executable, READER_TOOL, f"--port={srv.port}", "--user=repl", "--password=pw",
                              f"--count={count}", f"--index-base={first}", "--server-id-base=1000",
                              "--file=binlog.000001", "--pos=4", f"--dir={rdir}", f"--status={status}"],
                             stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        S["procs"].append((p, status))

    def all_streaming():
        errs = reader_errors()
        assert not errs, f"readers failed while attaching: {errs[:5]}"
        sts = statuses()
        if all(sts) and sum(s["streaming"] for s in sts) == READERS:
            return sts
        return None
    h.bounded_poll(all_streaming, rounds=300, interval=0.2, what=f"{READERS} readers streaming")
    conn = h.root(port=srv.port)
    try:
        h.bounded_poll(lambda: len(dump_threads(conn)) == READERS, rounds=100, interval=0.1,
                       what=f"SHOW PROCESSLIST lists {READERS} Binlog Dump connections")
        sysbench("prepare")
        h.query(conn, "FLUSH BINARY LOGS")
        out = sysbench("run", f"--time={SYSBENCH_TIME}", "--report-interval=0")
        for line in out.splitlines():
            if "transactions:" in line:
                h.note("sysbench oltp_insert with %d readers: %s" % (READERS, line.strip()))
        h.query(conn, "FLUSH BINARY LOGS")
        h.query(conn, "INSERT INTO sbtest.sbtest1 (k, c, pad) VALUES (1, 'last', 'row')")
        logs = [(r[0], int(r[1])) for r in h.query(conn, "SHOW BINARY LOGS")]
        assert len(logs) >= 3, logs
        want = sum(size for _, size in logs)
        h.note(f"binlog: {len(logs)} files, {want} bytes; {READERS} copies to check")

        # Every reader gets everything: wait while the copies keep growing.
        last, still = None, 0
        for _ in range(3000):
            errs = reader_errors()
            assert not errs, f"readers failed: {errs[:5]}"
            sizes = copy_sizes(logs)
            if all(n == want for n in sizes):
                break
            assert all(n <= want for n in sizes), f"a copy is larger than the binlog: {max(sizes)} > {want}"
            if sizes == last:
                still += 1
                assert still < 200, (f"the copies stopped growing: {sum(n == want for n in sizes)} of {READERS} "
                                     f"complete; least {min(sizes)} of {want} bytes")
            else:
                last, still = sizes, 0
            time.sleep(0.1)
        else:
            raise AssertionError(f"copies not complete after the bounded wait: {sum(n == want for n in sizes)}")

        assert len(dump_threads(conn)) == READERS, "a dump connection ended while its reader was running"
        rcs = stop_readers()
        errs = reader_errors()
        assert not errs, f"readers failed: {errs[:5]}"
        assert rcs == [0] * len(rcs), f"reader processes exited with {rcs}"
        for name, size in logs:
            with open(os.path.join(srv.datadir, name), "rb") as f:
                server_bytes = f.read()
            assert len(server_bytes) == size, f"{name}: SHOW BINARY LOGS says {size}, the file has {len(server_bytes)}"
            for d in reader_dirs():
                compare_copy(d, name, server_bytes, name == logs[-1][0])
        for d in reader_dirs():
            extra = set(os.listdir(d)) - {n for n, _ in logs}
            assert not extra, f"{d}: files the server does not list: {sorted(extra)}"
        # As in MySQL, a dump connection waiting for new events (no heartbeat
        # asked for) finds its reader gone only when a send fails: the first
        # write after the peer closed still lands in the socket buffer (the
        # peer answers RST), a later one fails. So commit a few times.
        time.sleep(0.5)
        left = [len(dump_threads(conn))]
        for i in range(10):
            if not left[-1]:
                break
            h.query(conn, "INSERT INTO sbtest.sbtest1 (k, c, pad) VALUES (%s, 'wake', 'up')", (i,))
            try:
                h.bounded_poll(lambda: not dump_threads(conn), rounds=10, interval=0.1, what="no dump")
                left.append(0)
            except AssertionError:
                left.append(len(dump_threads(conn)))
        assert not left[-1], f"dump connections still listed after their readers closed and commits: {left}"
        h.note(f"dump connections listed after the readers closed, then after each commit: {left}")
        h.assert_server_ok(port=srv.port)
    finally:
        h.close_quietly(conn)


if __name__ == "__main__":
    h.main(globals())
