#!/usr/bin/env python3
"""bench/dump_cost.py: what a plain reader costs the server per event sent.

    python3 bench/dump_cost.py [BIN ...] [--rounds 2] [--queries 100000] [--readers 40] [--perf OUT]
                               [--semisync]

For each sluiced binary (default build/bin/sluiced), alternating fresh
servers for --rounds rounds: mariadb-slap writes --queries autocommit
INSERTs (concurrency 16) with no reader attached; then --readers
`mariadb-binlog --read-from-remote-server --raw --stop-never` processes
read the binlog from its first file, and once they are quiet it prints
the server's CPU, its dump threads' (`sl_dump`, /proc/PID/task/*) and the
readers', each per event sent (counted from SHOW BINLOG EVENTS: about
five per INSERT, Gtid, Query BEGIN, Table_map, Write_rows, Xid, and each
file's Format_description, Previous_gtids and artificial Rotate). Nothing
else runs meanwhile, so the figures are the dump path's own, without the
commit load the matrix rows mix in. --semisync: the readers are go-mysql
semisync replicas instead (the observed path: the semisync plugin's hooks
per event), 4 of them unless --readers says otherwise. --perf OUT records
`perf record -g -p` of the server for 4 s of the catch-up (OUT.N per run).
It asserts nothing.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replication as R  # noqa: E402


def thread_cpu(pid, prefix):
    """CPU seconds of the process's live threads whose name starts with `prefix`."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if not f.read().startswith(prefix):
                    continue
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / R.TICKS


def count_binlog_events(srv):
    """Events a dump from the first file sends: those of the server's
    binlog files, and the artificial Rotate before each."""
    return sum(len(R.sql(srv.port, f"SHOW BINLOG EVENTS IN '{row[0]}'")) + 1
               for row in R.sql(srv.port, "SHOW BINARY LOGS"))


def run_one(binary, args, perf_out):
    R.SLUICED = binary
    work = tempfile.mkdtemp(prefix="sluice-dump-cost.")
    srv = R.Server("sluiced", work, types.SimpleNamespace(flush=2, sync_binlog=0)).start()
    readers = []
    try:
        R.sql(srv.port, "CREATE DATABASE slap")
        R.sql(srv.port, "CREATE TABLE slap.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        R.slap(srv, 16, args.queries)
        R.wait_caught_up(srv, [])
        first = R.sql(srv.port, "SHOW BINARY LOGS")[0][0]
        s0, d0 = R.cpu_seconds([srv.proc.pid]), thread_cpu(srv.proc.pid, "sl_dump")
        t0 = time.monotonic()
        if args.semisync:
            R.sql(srv.port, "INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'")
            R.sql(srv.port, "SET GLOBAL rpl_semi_sync_source_enabled = ON")
        for k in range(args.readers):
            if args.semisync:
                readers.append(subprocess.Popen(
                    [R.SEMI_READER, "-port", str(srv.port), "-server-id", str(1000 + k), "-semisync",
                     "-rows", "1000000000", "-timeout", "3600s", "-file", first, "-pos", "4"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                continue
            d = f"{work}/readers/{k}/"
            os.makedirs(d)
            readers.append(subprocess.Popen(
                ["mariadb-binlog", "--no-defaults", "--skip-ssl", "--read-from-remote-server", "--raw", "--stop-never",
                 f"--stop-never-slave-server-id={1000 + k}", "-h127.0.0.1", f"-P{srv.port}", "-uroot",
                 f"--result-file={d}", first], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        perf = None
        if perf_out:
            time.sleep(0.3)
            perf = subprocess.Popen(["perf", "record", "-g", "-o", perf_out, "-p", str(srv.proc.pid), "--", "sleep", "4"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        R.wait_caught_up(srv, readers)
        if perf:
            perf.wait()
        elapsed = time.monotonic() - t0 - 0.5  # wait_caught_up's quiet half second
        server = R.cpu_seconds([srv.proc.pid]) - s0
        dump = thread_cpu(srv.proc.pid, "sl_dump") - d0
        reader = R.cpu_seconds([p.pid for p in readers])
        sent = count_binlog_events(srv) * args.readers
        print(f"{binary}: {args.readers} readers caught up in {elapsed:.1f} s, {sent // args.readers} events each; "
              f"per event sent: server {server * 1e9 / sent:.0f} ns, dump threads {dump * 1e9 / sent:.0f} ns, readers "
              f"{reader * 1e9 / sent:.0f} ns", flush=True)
    finally:
        for p in readers:
            p.kill()
        srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binaries", nargs="*", default=[R.SLUICED])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--queries", type=int, default=100000)
    ap.add_argument("--readers", type=int, default=None)
    ap.add_argument("--semisync", action="store_true")
    ap.add_argument("--perf", default=None)
    args = ap.parse_args()
    if args.readers is None:
        args.readers = 4 if args.semisync else 40
    n = 0
    for _ in range(args.rounds):
        for b in args.binaries:
            run_one(b, args, f"{args.perf}.{n}" if args.perf else None)
            n += 1


if __name__ == "__main__":
    main()
