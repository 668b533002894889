#!/usr/bin/env python3
"""bench/semisync.py: what semisync and plain binlog readers cost the writers,
sluiced beside Debian's MariaDB 10.11 (semisync built in), in one run.

Both servers run on 127.0.0.1 with innodb_flush_log_at_trx_commit=2 and
sync_binlog=0, each with a temporary datadir. For each server, in order:

  plain40        40 plain readers attached (raw COM_BINLOG_DUMP readers,
                 tests/clients/binlog_readers.py), no semisync plugin
  installed-off  the same, the source plugin installed and OFF (MariaDB has
                 it built in: the same as plain40 there)
  on+1semi       the same 40 plain readers, semisync ON (AFTER_SYNC) and one
                 semisync reader acking (go-mysql's BinlogSyncer with
                 SemiSyncEnabled: tests/clients/go/bin/binlogreader)
  1semi          semisync ON with that one semisync reader and no plain reader

and prints, per row, inserts/s of a mariadb-slap write load (--concurrency,
--number-of-queries autocommit INSERTs into one table), the semisync
yes_tx / no_tx counted during the row (no_tx > 0: some commits fell back to
async, the figure is not a semisync figure), and the ratio to plain40 of the
same server. Everything competes for this machine's cores (the readers too):
a benchmark, it asserts nothing about time.

    .venv/bin/python bench/semisync.py [--concurrency 16] [--queries 20000]
        [--readers 40] [--skip-mariadb]
"""

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUICED = os.environ.get("SLUICED", os.path.join(ROOT, "build", "bin", "sluiced"))
PYTHON = sys.executable
READERS_TOOL = os.path.join(ROOT, "tests", "clients", "binlog_readers.py")
SEMI_READER = os.path.join(ROOT, "tests", "clients", "go", "bin", "binlogreader")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def tool(*names):
    for n in names:
        p = shutil.which(n) or (os.path.exists("/usr/sbin/" + n) and "/usr/sbin/" + n)
        if p:
            return p
    return None


def sql(port, statement):
    out = subprocess.run(["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{port}", "-uroot", "--skip-ssl", "-N", "-B",
                          "-e", statement], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"{statement!r} on port {port}: {out.stderr.strip()}")
    return [line.split("\t") for line in out.stdout.splitlines()]


def wait_up(port, proc, what):
    for _ in range(300):
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} during start")
        try:
            sql(port, "SELECT 1")
            return
        except RuntimeError:
            time.sleep(0.2)
    raise RuntimeError(f"{what} on port {port} did not start")


class Server:
    def __init__(self, kind, work):
        self.kind = kind
        self.base = os.path.join(work, kind)
        os.makedirs(self.base)
        self.port = free_port()
        self.proc = None

    def start(self):
        common = ["--innodb-flush-log-at-trx-commit=2", "--sync-binlog=0", "--server-id=1", "--max-connections=200"]
        if self.kind == "sluiced":
            argv = [SLUICED, f"--datadir={self.base}/data", f"--port={self.port}", "--bind-address=127.0.0.1",
                    f"--log-error={self.base}/err.log"] + common
        else:
            import pwd
            user = pwd.getpwuid(os.getuid()).pw_name
            rc = subprocess.run([tool("mariadb-install-db", "mysql_install_db"), "--no-defaults",
                                 f"--datadir={self.base}/data", f"--user={user}",
                                 "--auth-root-authentication-method=normal", "--skip-test-db"],
                                capture_output=True, timeout=300).returncode
            if rc != 0:
                raise RuntimeError("mariadb-install-db failed")
            argv = [tool("mariadbd", "mysqld"), "--no-defaults", f"--datadir={self.base}/data", f"--port={self.port}",
                    "--bind-address=127.0.0.1", f"--socket={self.base}/sock", f"--user={user}",
                    f"--pid-file={self.base}/pid", f"--log-error={self.base}/err.log", f"--tmpdir={self.base}",
                    f"--log-bin={self.base}/binlog", "--binlog-format=ROW", "--innodb-buffer-pool-size=256M",
                    "--skip-name-resolve"] + common
        self.out = open(os.path.join(self.base, "out.log"), "ab")
        self.proc = subprocess.Popen(argv, stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_up(self.port, self.proc, self.kind)
        return self

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    # The two name sets: sluiced's plugin answers both, MariaDB the old one.
    def semi(self, suffix):
        return f"rpl_semi_sync_master_{suffix}"

    def status(self, name):
        rows = sql(self.port, f"SHOW GLOBAL STATUS LIKE '{name}'")
        return int(rows[0][1]) if rows and rows[0][1].isdigit() else 0


def start_plain_readers(srv, n, work, tag):
    first = sql(srv.port, "SHOW MASTER STATUS")[0][0]
    procs = []
    per = (n + 1) // 2
    for k in range(2):
        count = min(per, n - k * per)
        if count <= 0:
            continue
        procs.append(subprocess.Popen(
            [PYTHON, READERS_TOOL, f"--port={srv.port}", "--user=root", "--password=", f"--count={count}",
             f"--index-base={k * per}", f"--server-id-base={1000 + k * per}", f"--file={first}", "--pos=4",
             f"--dir={work}/readers-{tag}", f"--status={work}/readers-{tag}-{k}.json"],
            stdout=subprocess.DEVNULL, stderr=open(f"{work}/readers-{tag}-{k}.err", "wb")))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        rows = sql(srv.port, "SHOW PROCESSLIST")
        if sum(1 for r in rows if r[4].startswith("Binlog Dump")) >= n:
            return procs
        time.sleep(0.2)
    raise RuntimeError(f"{srv.kind}: {n} plain readers did not all attach")


def start_semi_reader(srv):
    first = sql(srv.port, "SHOW MASTER STATUS")
    p = subprocess.Popen([SEMI_READER, "-port", str(srv.port), "-server-id", "77", "-semisync", "-rows", "1000000000",
                          "-timeout", "3600s", "-file", first[0][0], "-pos", first[0][1]],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if srv.status("Rpl_semi_sync_master_clients") >= 1:
            return p
        time.sleep(0.1)
    raise RuntimeError(f"{srv.kind}: the semisync reader did not register")


def slap(srv, args):
    out = subprocess.run(["mariadb-slap", "--no-defaults", "-h127.0.0.1", f"-P{srv.port}", "-uroot", "--skip-ssl",
                          f"--concurrency={args.concurrency}", "--iterations=1",
                          f"--number-of-queries={args.queries}", "--create-schema=slap", "--no-drop",
                          "--query=INSERT INTO slap.t (v) VALUES (1)"],
                         capture_output=True, text=True, timeout=1200)
    m = re.search(r"Average number of seconds to run all queries: ([0-9.]+)", out.stdout)
    if out.returncode != 0 or not m:
        raise RuntimeError(f"mariadb-slap on {srv.kind}: {out.stdout[-500:]} {out.stderr[-500:]}")
    return args.queries / float(m.group(1))


def row(srv, name, args, base=None):
    y0, n0 = srv.status("Rpl_semi_sync_master_yes_tx"), srv.status("Rpl_semi_sync_master_no_tx")
    ips = slap(srv, args)
    y1, n1 = srv.status("Rpl_semi_sync_master_yes_tx"), srv.status("Rpl_semi_sync_master_no_tx")
    ratio = f"{ips / base:.2f}" if base else "1.00"
    label = name.replace("40", str(args.readers))
    print(f"{srv.kind:8} {label:14} {ips:10.0f} {y1 - y0:8} {n1 - n0:6} {ratio:>6}", flush=True)
    return ips


def bench(kind, args, work):
    srv = Server(kind, work).start()
    readers, semi = [], None
    try:
        sql(srv.port, "CREATE DATABASE slap")
        sql(srv.port, "CREATE TABLE slap.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        if kind == "mariadb":
            sql(srv.port, "SET GLOBAL rpl_semi_sync_master_wait_point = AFTER_SYNC")
        readers = start_plain_readers(srv, args.readers, work, kind)
        base = row(srv, "plain40", args)
        if kind == "sluiced":
            sql(srv.port, "INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'")
        row(srv, "installed-off", args, base)
        # go-mysql asks for semisync only when the variable is already ON.
        sql(srv.port, "SET GLOBAL rpl_semi_sync_master_enabled = ON")
        semi = start_semi_reader(srv)
        row(srv, "on+1semi", args, base)
        for p in readers:
            p.kill()
        readers = []
        time.sleep(1)
        row(srv, "1semi", args, base)
    finally:
        for p in readers + ([semi] if semi else []):
            p.kill()
        srv.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--queries", type=int, default=20000)
    ap.add_argument("--readers", type=int, default=40)
    ap.add_argument("--skip-mariadb", action="store_true")
    args = ap.parse_args()
    for t in ("mariadb", "mariadb-slap"):
        if not shutil.which(t):
            sys.exit(f"bench/semisync.py: {t} is missing (scripts/deps.sh)")
    if not os.access(SEMI_READER, os.X_OK):
        sys.exit(f"bench/semisync.py: {SEMI_READER} is missing (scripts/deps.sh builds it)")
    work = tempfile.mkdtemp(prefix="sluice-semisync-bench.")
    try:
        print(f"# semisync: mariadb-slap concurrency={args.concurrency} queries={args.queries} autocommit INSERTs, "
              f"innodb_flush_log_at_trx_commit=2 sync_binlog=0, {args.readers} plain readers, AFTER_SYNC, "
              f"{os.cpu_count()} cores")
        print(f"{'server':8} {'row':14} {'inserts/s':>10} {'yes_tx':>8} {'no_tx':>6} {'ratio':>6}")
        bench("sluiced", args, work)
        if not args.skip_mariadb:
            bench("mariadb", args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
