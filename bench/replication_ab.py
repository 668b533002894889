#!/usr/bin/env python3
"""bench/replication_ab.py: two sluiced builds (or one build with two sets
of options) side by side on one row of the Bug #70218 matrix, alternating
fresh servers, so that a change is measured against its baseline in one
run on the same machine state.

    .venv/bin/python bench/replication_ab.py BIN_A BIN_B [--row 1semi] [--rounds 3]
        [--concurrency 16] [--queries 40000] [--args-a "--sluice-plain-reader-nice=0"] [--args-b ...]

A binary outside build/bin finds its plugins in ../plugin beside it (a
copy of build/plugin, or a link to it). Rows: none, 1async, plain40,
installed-off, on+1semi, 1semi (as bench/replication.py defines them).
Each round starts A and B afresh, warms them with 4000 INSERTs, waits for
the readers, then runs mariadb-slap and prints per build: INSERTs/s,
transactions per binlog group, the server's CPU µs per insert, the
readers' CPU µs per insert and the server's context switches per insert
(all its threads); then each build's median. It asserts nothing.
"""

import argparse
import collections
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replication as R  # noqa: E402

ROWS = ["none", "1async", "plain40", "installed-off", "on+1semi", "1semi"]


def run_one(binary, extra, row, args):
    """One fresh server of `binary` on `row`: (INSERTs/s, printed line)."""
    R.SLUICED = binary
    work = tempfile.mkdtemp(prefix="sluice-ab.")
    settings = types.SimpleNamespace(flush=2, sync_binlog=0, readers=40, raw_readers=False,
                                     queries=args.queries, repeat=1, sluiced_args=extra)
    srv = R.Server("sluiced", work, settings)
    readers = []
    try:
        srv.start()
        R.sql(srv.port, "CREATE DATABASE slap")
        R.sql(srv.port, "CREATE TABLE slap.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        if row in ("plain40", "installed-off", "on+1semi"):
            readers += R.start_plain_readers(srv, settings, work, "ab")
        if row in ("installed-off", "on+1semi", "1semi"):
            R.sql(srv.port, "INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'")
        if row in ("on+1semi", "1semi"):
            R.sql(srv.port, "SET GLOBAL rpl_semi_sync_master_enabled = ON")
            readers.append(R.start_semi_reader(srv, 77))
        if row == "1async":
            readers.append(R.start_semi_reader(srv, 76, semisync=False))
        R.slap(srv, args.concurrency, R.WARM_UP_QUERIES)
        R.wait_caught_up(srv, readers)
        pids = [p.pid for p in readers]
        s0, r0, x0 = R.cpu_seconds([srv.proc.pid]), R.cpu_seconds(pids), R.context_switches(srv.proc.pid)
        g0 = srv.status("Binlog_group_commits")
        ips = R.slap(srv, args.concurrency, args.queries)
        g1 = srv.status("Binlog_group_commits")
        R.wait_caught_up(srv, readers)
        s1, r1 = R.cpu_seconds([srv.proc.pid]), R.cpu_seconds(pids)
        switches = R.context_switches_since(srv.proc.pid, x0)
        q = args.queries
        line = (f"{ips:8.0f} ins/s  {q / max(g1 - g0, 1):5.1f} tx/group  server {(s1 - s0) * 1e6 / q:5.1f} us/ins  "
                f"readers {(r1 - r0) * 1e6 / q:5.1f} us/ins  {switches / q:4.2f} switches/ins")
        return ips, line
    finally:
        for p in readers:
            p.kill()
        srv.stop()
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--row", choices=ROWS, default="1semi")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--queries", type=int, default=40000)
    ap.add_argument("--args-a", default="")
    ap.add_argument("--args-b", default="")
    args = ap.parse_args()
    builds = {"A": (os.path.abspath(args.a), shlex.split(args.args_a)),
              "B": (os.path.abspath(args.b), shlex.split(args.args_b))}
    for tag, (binary, _) in builds.items():
        if not os.access(binary, os.X_OK):
            sys.exit(f"bench/replication_ab.py: {tag}: {binary} is not an executable")
    print(f"# {args.row} at c{args.concurrency}, {args.queries} INSERTs a run, {args.rounds} rounds, "
          f"{os.cpu_count()} cores; A = {args.a} {args.args_a}; B = {args.b} {args.args_b}", flush=True)
    rates = collections.defaultdict(list)
    for _ in range(args.rounds):
        for tag, (binary, extra) in builds.items():
            ips, line = run_one(binary, extra, args.row, args)
            rates[tag].append(ips)
            print(f"{tag} {line}", flush=True)
    for tag in builds:
        print(f"# {tag} median {statistics.median(rates[tag]):.0f} ins/s", flush=True)


if __name__ == "__main__":
    main()
