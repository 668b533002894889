"""Load clients against sluiced (issue 5): Debian's sysbench runs its OLTP
workloads (prepare, a run at 16 threads, cleanup) and mariadb-slap its
auto-generated loads at concurrency 16 and 64; every one must finish with no
error. SYSBENCH_TIME (default 30) sets the length of each sysbench run."""

import os
import re
import shutil
import subprocess

import harness as h

SYSBENCH_TIME = int(os.environ.get("SYSBENCH_TIME", "30"))
WORKLOADS = ["oltp_read_write", "oltp_point_select", "oltp_insert", "oltp_update_index", "oltp_delete"]
PS_MODES = os.environ.get("SYSBENCH_PS_MODES", "auto disable").split()


def run(cmd, timeout):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    out = p.stdout + p.stderr
    assert p.returncode == 0, "%s failed (%d):\n%s" % (" ".join(cmd[:2]), p.returncode, out[-3000:])
    assert "FATAL" not in out and "error" not in out.lower().replace("ignored errors", ""), out[-3000:]
    return out


def sysbench(workload, ps_mode, command, *extra):
    cmd = ["sysbench", workload, "--db-driver=mysql", "--mysql-host=" + h.HOST, "--mysql-port=%d" % h.PORT,
           "--mysql-user=root", "--mysql-password=", "--mysql-db=sbtest", "--tables=2", "--table-size=2000",
           "--threads=16", "--db-ps-mode=" + ps_mode] + list(extra) + [command]
    return run(cmd, timeout=SYSBENCH_TIME + 240)


def test_sysbench_workloads():
    if shutil.which("sysbench") is None:
        raise AssertionError("sysbench is not installed (scripts/deps.sh installs it)")
    conn = h.root()
    try:
        for ps_mode in PS_MODES:
            for w in WORKLOADS:
                h.query(conn, "DROP DATABASE IF EXISTS sbtest")
                h.query(conn, "CREATE DATABASE sbtest")
                sysbench(w, ps_mode, "prepare")
                out = sysbench(w, ps_mode, "run", "--time=%d" % SYSBENCH_TIME)
                m = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", out)
                assert m and int(m.group(1)) > 0, out[-2000:]
                h.note("%s ps-mode=%s: %s tps" % (w, ps_mode, m.group(2)))
                sysbench(w, ps_mode, "cleanup")
        h.query(conn, "DROP DATABASE IF EXISTS sbtest")
    finally:
        h.close_quietly(conn)


def test_mariadb_slap_loads():
    slap = shutil.which("mariadb-slap") or shutil.which("mysqlslap")
    assert slap, "mariadb-slap is not installed"
    for load in ["write", "key", "update", "mixed"]:
        for concurrency in (16, 64):
            cmd = [slap, "-h", h.HOST, "-P", str(h.PORT), "-uroot", "--auto-generate-sql",
                   "--auto-generate-sql-load-type=" + load, "--concurrency=%d" % concurrency,
                   "--number-of-queries=%d" % (concurrency * 20)]
            # The key and update loads need the auto-increment key column.
            if load in ("key", "update"):
                cmd.append("--auto-generate-sql-add-autoincrement")
            out = run(cmd, timeout=300)
            assert "Average number of seconds" in out, out


if __name__ == "__main__":
    h.main(globals())
