#!/usr/bin/env python3
"""bench/replication.py: the MySQL Bug #70218 matrix, sluiced beside Debian's
MariaDB 10.11 (semisync built in), in one run: what plain binlog readers and
semisync cost the writers, then sysbench at full durability.

Both servers run on 127.0.0.1 with the same settings and a temporary datadir
each. Part 1 (innodb_flush_log_at_trx_commit and sync_binlog from --flush
and --sync-binlog, 2 and 0 by default as the bug report's), for each
mariadb-slap concurrency (--concurrency, 16 and 64), a fresh server of each
kind, both up together, measured row by row in turns (the server that goes
first alternating from row to row, each run waiting for the other server to
be quiet), so that the machine's drift over a run (another VM's load: the
steal column) falls on both servers' rows alike; rows in this order:

  none           no reader, no semisync plugin: the row the others divide by
  1async         one go-mysql reader (tests/clients/go/bin/binlogreader, as
                 the semisync rows use) without semisync: the asynchronous
                 replication that `1semi` is measured against
  plain40        40 plain readers attached (--readers; real `mariadb-binlog
                 --read-from-remote-server --raw --stop-never` processes, or
                 with --raw-readers the lighter raw COM_BINLOG_DUMP readers of
                 tests/clients/binlog_readers.py)
  installed-off  the same, the source plugin installed and OFF (MariaDB has
                 it built in: the same as plain40 there)
  on+1semi       the same plain readers, semisync ON (AFTER_SYNC) and one
                 semisync reader acking (go-mysql's BinlogSyncer with
                 SemiSyncEnabled: tests/clients/go/bin/binlogreader)
  on+3semi       the same with three semisync readers
  1semi          semisync ON with one semisync reader and no plain reader

and prints per row (each fresh server first warmed, unmeasured, with 4000
INSERTs): inserts/s of the slap write load (autocommit INSERTs
into one table; the median of --repeat runs of --queries each, 3 by
default: one run of 20000 moves 10-20 % from run to run on two cores;
each run starts once the readers have caught up with the last), the
ratio to the same server's `none` row, sluiced/MariaDB for the row, the
semisync yes_tx / no_tx counted during it (no_tx > 0: some commits fell
back to async), and the CPU seconds the server and the readers used for
one run of the row (the row's total over --repeat, up to the readers'
catching up with the last run; on stderr also per insert, with sluiced's
context switches per insert); after each concurrency's rows, the ratios
the issue sets targets for: plain40 / none, on+1semi / installed-off,
1semi / 1async (semisync against the same reader asynchronous) and
1semi / none. Part 2 runs bench/sysbench.sh (oltp_read_write,
oltp_point_select, oltp_insert, oltp_update_index, oltp_delete at 16
threads, innodb_flush_log_at_trx_commit=1, sync_binlog=1; three rounds
of 20 s, the servers taking turns first, each workload's median run) and
prints its table. Everything competes for this machine's cores (the readers too): a
benchmark, it asserts nothing about time. With --isolate-readers the
server and mariadb-slap run on the first half of the CPUs and the readers
on the rest (sched_setaffinity, for both servers), a model of readers on
machines of their own: the rows then say what the readers cost the server
itself, not what their processes take from it. With four CPUs or more the
go-mysql readers (1async, semisync) get the last quarter to themselves;
with fewer they share the readers' CPUs with the plain readers, which then
run as SCHED_IDLE, so that a semisync reader's ack does not queue behind
40 busy processes as it would not on a replica of its own (at nice 19
they still delayed each of its wake-ups by 1-2 ms: perf sched timehist).
--skip-sysbench is implied. Each run starts with the page
cache written back (os.sync once the readers are quiet; sysbench.sh's
`sync` before each run), and the plain readers' files are deleted when
they stop: before, the 1semi row ran while 450 MiB that the readers had
written was being written back.

    .venv/bin/python bench/replication.py [--concurrency 16 64] [--queries 20000] [--repeat 3]
        [--readers 40] [--raw-readers] [--flush 2] [--sync-binlog 0]
        [--skip-mariadb] [--skip-sysbench] [--sysbench-time 20] [--sysbench-rounds 3]
        [--rows none plain40 ...]   (a subset of the rows, for iterating)
        [--isolate-readers]
"""

import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUICED = os.environ.get("SLUICED", os.path.join(ROOT, "build", "bin", "sluiced"))
PYTHON = sys.executable
READERS_TOOL = os.path.join(ROOT, "tests", "clients", "binlog_readers.py")
SEMI_READER = os.path.join(ROOT, "tests", "clients", "go", "bin", "binlogreader")
SYSBENCH = os.path.join(ROOT, "bench", "sysbench.sh")
TICKS = os.sysconf("SC_CLK_TCK")
# --isolate-readers: the CPUs of the server and its load client, and of the
# readers (None: anywhere).
SERVER_CPUS = None
READER_CPUS = None  # the plain readers
SEMI_READER_CPUS = None  # the go-mysql readers
PLAIN_READERS_IDLE = False  # SCHED_IDLE


def on_cpus(cpus, idle=False):
    """A Popen preexec_fn that confines the child (and every thread it
    starts) to `cpus`, as SCHED_IDLE when `idle`; None when they are not
    confined."""
    if cpus is None:
        return None

    def confine():
        os.sched_setaffinity(0, cpus)
        if idle:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    return confine


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


def cpu_seconds(pids):
    """User + system CPU seconds the processes used so far (gone ones: 0)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return total / TICKS


def context_switches(pid):
    """{thread id: context switches (voluntary and not)} of the process's
    live threads. A thread that sleeps for a commit, an ack or the next
    command switches once each time; on a small VM each switch also costs
    the caches it leaves, so a row's switches per insert explain much of
    its CPU. Only sluiced's are printed: its workers outlive the clients'
    connections (a pool thread idles 60 s before it ends), while MariaDB
    ends a connection's thread beyond its thread cache, and the switches
    with it."""
    out = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                out[tid] = sum(int(line.split()[1]) for line in f
                               if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")))
        except (OSError, ValueError):
            pass
    return out


def context_switches_since(pid, before):
    """The switches of `pid`'s threads since `before` (context_switches()):
    by thread, so that threads that ended or began meanwhile do not count
    another's."""
    return sum(n - before.get(tid, 0) for tid, n in context_switches(pid).items())


class Server:
    def __init__(self, kind, work, args):
        self.kind = kind
        self.base = os.path.join(work, kind)
        os.makedirs(self.base)
        self.port = free_port()
        self.proc = None
        self.args = args

    def start(self):
        common = [f"--innodb-flush-log-at-trx-commit={self.args.flush}", f"--sync-binlog={self.args.sync_binlog}",
                  "--server-id=1", "--max-connections=400"]
        if self.kind == "sluiced":
            argv = [SLUICED, f"--datadir={self.base}/data", f"--port={self.port}", "--bind-address=127.0.0.1",
                    f"--log-error={self.base}/err.log", "--innodb-buffer-pool-size=256M"] + common + \
                list(getattr(self.args, "sluiced_args", []))  # bench/replication_ab.py's --args-a/-b
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
        self.proc = subprocess.Popen(argv, stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     preexec_fn=on_cpus(SERVER_CPUS))
        wait_up(self.port, self.proc, self.kind)
        return self

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def status(self, name):
        rows = sql(self.port, f"SHOW GLOBAL STATUS LIKE '{name}'")
        return int(rows[0][1]) if rows and rows[0][1].isdigit() else 0

    def dump_threads(self):
        return sum(1 for r in sql(self.port, "SHOW PROCESSLIST") if r[4].startswith("Binlog Dump"))


def wait_dumps(srv, n, what):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if srv.dump_threads() >= n:
            return
        time.sleep(0.2)
    raise RuntimeError(f"{srv.kind}: {what} did not all attach")


def start_plain_readers(srv, args, work, tag):
    """`args.readers` stop-never readers from the current end of the binlog."""
    first = sql(srv.port, "SHOW MASTER STATUS")[0][0]
    before = srv.dump_threads()
    procs = []
    os.makedirs(f"{work}/readers-{tag}", exist_ok=True)
    if args.raw_readers:
        per = (args.readers + 1) // 2
        for k in range(2):
            count = min(per, args.readers - k * per)
            if count <= 0:
                continue
            procs.append(subprocess.Popen(
                [PYTHON, READERS_TOOL, f"--port={srv.port}", "--user=root", "--password=", f"--count={count}",
                 f"--index-base={k * per}", f"--server-id-base={1000 + k * per}", f"--file={first}", "--pos=4",
                 f"--dir={work}/readers-{tag}", f"--status={work}/readers-{tag}-{k}.json"],
                stdout=subprocess.DEVNULL, stderr=open(f"{work}/readers-{tag}-{k}.err", "wb"),
                preexec_fn=on_cpus(READER_CPUS, PLAIN_READERS_IDLE)))
    else:
        for k in range(args.readers):
            d = f"{work}/readers-{tag}/{k}/"
            os.makedirs(d, exist_ok=True)
            procs.append(subprocess.Popen(
                ["mariadb-binlog", "--no-defaults", "--skip-ssl", "--read-from-remote-server", "--raw", "--stop-never",
                 f"--stop-never-slave-server-id={1000 + k}", "-h127.0.0.1", f"-P{srv.port}", "-uroot",
                 f"--result-file={d}", first],
                stdout=subprocess.DEVNULL, stderr=open(f"{work}/readers-{tag}-{k}.err", "wb"),
                preexec_fn=on_cpus(READER_CPUS, PLAIN_READERS_IDLE)))
    wait_dumps(srv, before + args.readers, f"{args.readers} plain readers")
    return procs


def start_semi_reader(srv, server_id, semisync=True):
    """The go-mysql reader from the current end of the binlog: a semisync
    replica, or with semisync=False the same reader asynchronous."""
    first = sql(srv.port, "SHOW MASTER STATUS")
    clients = srv.status("Rpl_semi_sync_master_clients")
    before = srv.dump_threads()
    p = subprocess.Popen([SEMI_READER, "-port", str(srv.port), "-server-id", str(server_id)] +
                         (["-semisync"] if semisync else []) +
                         ["-rows", "1000000000", "-timeout", "3600s", "-file", first[0][0], "-pos", first[0][1]],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=on_cpus(SEMI_READER_CPUS))
    if not semisync:
        wait_dumps(srv, before + 1, "the go-mysql reader")
        return p
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if srv.status("Rpl_semi_sync_master_clients") > clients:
            return p
        time.sleep(0.1)
    raise RuntimeError(f"{srv.kind}: semisync reader {server_id} did not register")


def slap(srv, concurrency, queries):
    out = subprocess.run(["mariadb-slap", "--no-defaults", "-h127.0.0.1", f"-P{srv.port}", "-uroot", "--skip-ssl",
                          f"--concurrency={concurrency}", "--iterations=1",
                          f"--number-of-queries={queries}", "--create-schema=slap", "--no-drop",
                          "--query=INSERT INTO slap.t (v) VALUES (1)"],
                         capture_output=True, text=True, timeout=1200, preexec_fn=on_cpus(SERVER_CPUS))
    m = re.search(r"Average number of seconds to run all queries: ([0-9.]+)", out.stdout)
    if out.returncode != 0 or not m:
        raise RuntimeError(f"mariadb-slap on {srv.kind}: {out.stdout[-500:]} {out.stderr[-500:]}")
    return queries / max(float(m.group(1)), 1e-3)


# INSERTs each fresh server runs, unmeasured, before its first row.
WARM_UP_QUERIES = 4000
ROWS = ["none", "1async", "plain40", "installed-off", "on+1semi", "on+3semi", "1semi"]
# The targets, each a row over the row it is measured against.
TARGETS = [("plain40", "none"), ("on+1semi", "installed-off"), ("1semi", "1async"), ("1semi", "none")]


def wait_caught_up(srv, readers, others=()):
    """Waits until the server and the readers are quiet: the readers have
    read what earlier runs wrote (plain readers lag under load on few
    cores), so each run starts from the same state and does not pay for
    the last one's backlog. `others`: more pids that must be quiet too
    (the other server, whose rows take turns with this one's)."""
    pids = [srv.proc.pid] + [p.pid for p in readers] + list(others)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        c0 = cpu_seconds(pids)
        time.sleep(0.5)
        if cpu_seconds(pids) - c0 < 0.05:
            # What the readers wrote (GBs of files over the plain rows)
            # goes to disk now, not by writeback in the middle of a run.
            os.sync()
            return
    print(f"# {srv.kind}: readers still busy after 120 s", flush=True)


def dirty_mib():
    """The kernel's dirty and under-writeback page cache, MiB: the plain
    readers' files reach GiBs, and their writeback can land in later rows."""
    out = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            if k in ("Dirty", "Writeback"):
                out[k] = int(v.split()[0]) // 1024
    return f"dirty {out.get('Dirty', 0)} MiB, writeback {out.get('Writeback', 0)} MiB"


def steal_seconds():
    """CPU time the hypervisor gave to others while this VM wanted it
    (/proc/stat's steal, all CPUs): latency-bound rows such as 1semi
    slow down most when it grows."""
    with open("/proc/stat") as f:
        fields = f.readline().split()
    return int(fields[8]) / TICKS if len(fields) > 8 else 0.0


# Read before and after each run: groups, semisync waits, their total wait (µs).
RUN_COUNTERS = ("Binlog_group_commits", "Rpl_semi_sync_master_tx_waits", "Rpl_semi_sync_master_tx_wait_time")


def measure(srv, concurrency, args, readers, row, others=lambda: ()):
    """One row: inserts/s (the median of --repeat slap runs), semisync
    yes/no tx, server and reader CPU s (per run: the total / --repeat).
    Each row's runs also go to stderr as they end, so that a run cut off
    (bench/device/run.sh) still shows the rows it measured."""
    wait_caught_up(srv, readers, others())
    y0, n0 = srv.status("Rpl_semi_sync_master_yes_tx"), srv.status("Rpl_semi_sync_master_no_tx")
    reader_pids = [p.pid for p in readers]
    s0, r0 = cpu_seconds([srv.proc.pid]), cpu_seconds(reader_pids)
    x0 = context_switches(srv.proc.pid)
    runs, detail = [], []
    for i in range(args.repeat):
        if i:
            wait_caught_up(srv, readers, others())
        g0, w0, t0 = (srv.status(n) for n in RUN_COUNTERS)
        mem, st0, t_0 = dirty_mib(), steal_seconds(), time.monotonic()
        # The other server is idle but up: what its background threads took
        # meanwhile (its page cleaner after its own row) is printed too.
        other_pids = others()
        oc0 = cpu_seconds(other_pids)
        runs.append(slap(srv, concurrency, args.queries))
        other_cpu = cpu_seconds(other_pids) - oc0
        steal = (steal_seconds() - st0) / max(time.monotonic() - t_0, 1e-3) / (os.cpu_count() or 1)
        g1, w1, t1 = (srv.status(n) for n in RUN_COUNTERS)
        detail.append(f"#   run {i}: {runs[-1]:.0f} ins/s, {g1 - g0} groups, {w1 - w0} semisync waits of "
                      f"{(t1 - t0) / max(w1 - w0, 1):.0f} us, steal {steal:.0%} of the CPUs, the other server "
                      f"{other_cpu:.2f} CPU s, {mem} at its start")
    wait_caught_up(srv, readers, others())  # the CPU columns include the readers' catching up
    s1, r1 = cpu_seconds([srv.proc.pid]), cpu_seconds(reader_pids)
    switches = context_switches_since(srv.proc.pid, x0)
    y1, n1 = srv.status("Rpl_semi_sync_master_yes_tx"), srv.status("Rpl_semi_sync_master_no_tx")
    print(f"# {srv.kind} c{concurrency} {row}: " + ", ".join(f"{r:.0f}" for r in runs) + " ins/s, "
          f"server {(s1 - s0) / args.repeat:.1f} s, readers {(r1 - r0) / args.repeat:.1f} s per run; per insert "
          f"{(s1 - s0) * 1e6 / (args.repeat * args.queries):.0f} us of server CPU" +
          (f", {switches / (args.repeat * args.queries):.2f} server context switches" if srv.kind == "sluiced" else ""),
          file=sys.stderr, flush=True)
    print("\n".join(detail), file=sys.stderr, flush=True)
    return {"ips": statistics.median(runs), "yes": y1 - y0, "no": n1 - n0,
            "server_cpu": (s1 - s0) / args.repeat, "reader_cpu": (r1 - r0) / args.repeat}


def matrix(kind, concurrency, args, work, out, live):
    """The rows of one server at one concurrency, on a fresh server, into
    `out`: a generator that yields after each row, so that main() can take
    the servers' rows in turns. `live` maps each server of the run to its
    Server once started; a run waits for the others to be quiet too."""
    srv = Server(kind, work + f"/c{concurrency}", args).start()
    live[kind] = srv
    plain, semis = [], []

    def others():
        return [s.proc.pid for k, s in live.items() if k != kind and s.proc is not None and s.proc.poll() is None]

    try:
        sql(srv.port, "CREATE DATABASE slap")
        sql(srv.port, "CREATE TABLE slap.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        if kind == "mariadb":
            sql(srv.port, "SET GLOBAL rpl_semi_sync_master_wait_point = AFTER_SYNC")
        # Warmed, as bench/replication_ab.py warms: the first run on an empty
        # table of a fresh server was its slowest (sluiced at c64: 32310 and
        # 29455, then 42373; 36-45k once warmed), and it falls in the
        # `none` row that every other row is divided by.
        slap(srv, concurrency, WARM_UP_QUERIES)
        want = set(args.rows)

        def row(name, readers):
            out[name] = measure(srv, concurrency, args, readers, name, others)

        row("none", [])
        yield
        if "1async" in want:
            reader = start_semi_reader(srv, 76, semisync=False)
            try:
                row("1async", [reader])
            finally:
                reader.kill()
                reader.wait()
            yield
        if want & {"plain40", "installed-off", "on+1semi", "on+3semi"}:
            plain = start_plain_readers(srv, args, work, f"{kind}-{concurrency}")
        if "plain40" in want:
            row("plain40", plain)
            yield
        if want & {"installed-off", "on+1semi", "on+3semi", "1semi"} and kind == "sluiced":
            sql(srv.port, "INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'")
        if "installed-off" in want:
            row("installed-off", plain)
            yield
        if want & {"on+1semi", "on+3semi", "1semi"}:
            # go-mysql asks for semisync only when the variable is already ON.
            sql(srv.port, "SET GLOBAL rpl_semi_sync_master_enabled = ON")
            semis.append(start_semi_reader(srv, 77))
        if "on+1semi" in want:
            row("on+1semi", plain + semis)
            yield
        if "on+3semi" in want:
            for sid in (78, 79):
                semis.append(start_semi_reader(srv, sid))
            row("on+3semi", plain + semis)
            yield
        if "1semi" in want:
            for p in plain + semis[1:]:
                p.kill()
                p.wait()
            plain, semis = [], semis[:1]
            # Their files go: their dirty pages with them, instead of being
            # written back while the next row runs.
            shutil.rmtree(f"{work}/readers-{kind}-{concurrency}", ignore_errors=True)
            time.sleep(1)
            row("1semi", semis)
    finally:
        for p in plain + semis:
            p.kill()
        srv.stop()
        live.pop(kind, None)
        shutil.rmtree(srv.base, ignore_errors=True)
        shutil.rmtree(f"{work}/readers-{kind}-{concurrency}", ignore_errors=True)


def run_matrices(kinds, concurrency, args, work):
    """Every server's rows at one concurrency, the servers taking turns row
    by row (the first of each turn alternating), so that a drift of the
    machine over the minutes of a run (another VM's load, the page cache's
    writeback) falls on both servers' same rows alike, not on one server's
    half of the run. Both servers stay up meanwhile; each run waits for
    the other server to be quiet. {kind: {row: measure()}}."""
    results, live = {k: {} for k in kinds}, {}
    gens = {k: matrix(k, concurrency, args, work, results[k], live) for k in kinds}
    active, turn = list(kinds), 0
    try:
        while active:
            for k in (active if turn % 2 == 0 else active[::-1]):
                try:
                    next(gens[k])
                except StopIteration:
                    active.remove(k)
            turn += 1
    finally:
        for g in gens.values():
            g.close()
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--concurrency", type=int, nargs="+", default=[16, 64])
    ap.add_argument("--queries", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--readers", type=int, default=40)
    ap.add_argument("--raw-readers", action="store_true")
    ap.add_argument("--flush", type=int, default=2)
    ap.add_argument("--sync-binlog", type=int, default=0)
    ap.add_argument("--skip-mariadb", action="store_true")
    ap.add_argument("--skip-sysbench", action="store_true")
    ap.add_argument("--sysbench-time", type=int, default=20)
    ap.add_argument("--sysbench-rounds", type=int, default=3)
    ap.add_argument("--rows", nargs="+", choices=ROWS, default=ROWS)
    ap.add_argument("--isolate-readers", action="store_true")
    args = ap.parse_args()
    global SERVER_CPUS, READER_CPUS, SEMI_READER_CPUS, PLAIN_READERS_IDLE
    if args.isolate_readers:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            sys.exit("bench/replication.py: --isolate-readers needs two CPUs or more")
        half = len(cpus) // 2
        SERVER_CPUS = set(cpus[:half])
        if len(cpus) >= 4:
            quarter = half + (len(cpus) - half) // 2
            READER_CPUS, SEMI_READER_CPUS = set(cpus[half:quarter]), set(cpus[quarter:])
        else:
            READER_CPUS = SEMI_READER_CPUS = set(cpus[half:])
            PLAIN_READERS_IDLE = True
        args.skip_sysbench = True
    for t in ("mariadb", "mariadb-slap", "mariadb-binlog"):
        if not shutil.which(t):
            sys.exit(f"bench/replication.py: {t} is missing (scripts/deps.sh)")
    if not os.access(SEMI_READER, os.X_OK):
        sys.exit(f"bench/replication.py: {SEMI_READER} is missing (scripts/deps.sh builds it)")
    kinds = ["sluiced"] + ([] if args.skip_mariadb else ["mariadb"])
    work = tempfile.mkdtemp(prefix="sluice-replication-bench.")
    try:
        reader_kind = "raw COM_BINLOG_DUMP" if args.raw_readers else "mariadb-binlog --raw --stop-never"
        print(f"# Bug #70218 matrix: mariadb-slap {args.queries} autocommit INSERTs per run, the median of "
              f"{args.repeat} runs per row, innodb_flush_log_at_trx_commit="
              f"{args.flush} sync_binlog={args.sync_binlog}, {args.readers} plain readers ({reader_kind}), "
              f"semisync AFTER_SYNC, {os.cpu_count()} cores" +
              (f"; server and mariadb-slap on CPUs {sorted(SERVER_CPUS)}, plain readers on {sorted(READER_CPUS)}"
               f"{' (SCHED_IDLE)' if PLAIN_READERS_IDLE else ''}, go-mysql readers on "
               f"{sorted(SEMI_READER_CPUS)}" if SERVER_CPUS else ""))
        print(f"{'conc':>4} {'row':14}" + "".join(
            f" {k + ' ins/s':>14} {'/none':>6} {'yes_tx':>7} {'no_tx':>6} {'srv_cpu':>8} {'rdr_cpu':>8}"
            for k in kinds) + ("  sluiced/mariadb" if len(kinds) > 1 else ""), flush=True)
        for c in args.concurrency:
            results = run_matrices(kinds, c, args, work)
            for r in [r for r in ROWS if r in args.rows or r == "none"]:
                line = f"{c:>4} {r.replace('40', str(args.readers)):14}"
                for k in kinds:
                    m = results[k][r]
                    line += (f" {m['ips']:14.0f} {m['ips'] / results[k]['none']['ips']:6.2f} {m['yes']:7} "
                             f"{m['no']:6} {m['server_cpu']:8.1f} {m['reader_cpu']:8.1f}")
                if len(kinds) > 1:
                    line += f"  {results['sluiced'][r]['ips'] / results['mariadb'][r]['ips']:15.2f}"
                print(line, flush=True)
            for num, den in TARGETS:
                if num in args.rows and (den == "none" or den in args.rows):
                    print(f"# c{c} {num} / {den}: " + ", ".join(
                        f"{k} {results[k][num]['ips'] / results[k][den]['ips']:.2f}" for k in kinds), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not args.skip_sysbench:
        print(flush=True)
        argv = [SYSBENCH, "--threads", "16", "--time", str(args.sysbench_time), "--rounds",
                str(args.sysbench_rounds), "--flush-log-at-trx-commit", "1"]
        if args.skip_mariadb:
            argv.append("--skip-mariadb")
        sys.exit(subprocess.run(argv).returncode)


if __name__ == "__main__":
    main()
