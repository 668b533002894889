"""Values stored off the page (issue 18): a 16 MiB LONGBLOB (and a 300 KB
one) round-trips through INSERT (a statement larger than one 16 MiB
packet), UPDATE, SELECT, a SIGKILL of the server and a restart, and arrives
intact, byte for byte, at mariadb-binlog --read-from-remote-server,
python-mysql-replication and go-mysql (test_mariadb_replica.py covers the
MariaDB replica). Each test runs its own sluiced."""

import hashlib
import re
import shutil

import harness as h


MARIADB_BINLOG = shutil.which("mariadb-binlog") or shutil.which("mysqlbinlog")
MIB16 = 16 << 20
_servers = h.PrivateServers(extra=["--binlog-row-metadata=FULL"])


def teardown_module():
    _servers.kill_all()


def big_value(n, seed):
    """n bytes of letters and digits (printed as they are by every reader)
    that vary along the value, so a lost, repeated or shifted chunk shows."""
    alnum = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    unit = bytes(alnum[(i * 7 + seed) % len(alnum)] for i in range(4093))  # 4093: prime, not a page divisor
    return (unit * (n // len(unit) + 1))[:n]


def md5(b):
    return hashlib.md5(b).hexdigest()


def conn_for(srv):
    return h.root(port=srv.port, max_allowed_packet=64 << 20, read_timeout=120, write_timeout=120)


def load(srv):
    """The rows every test writes: id 1 a 16 MiB value inserted as a literal
    and then grown by one byte, id 2 a 300 KB value, id 3 a small one."""
    v1 = big_value(MIB16, 1)
    v2 = big_value(300_000, 2)
    c = conn_for(srv)
    try:
        h.query(c, "CREATE DATABASE lv")
        h.query(c, "CREATE TABLE lv.t (id INT PRIMARY KEY, b LONGBLOB, note VARCHAR(20))")
        h.query(c, "INSERT INTO lv.t VALUES (1, %s, 'sixteen')", (v1,))
        h.query(c, "INSERT INTO lv.t VALUES (2, %s, 'three hundred'), (3, 'small', 'small')", (v2,))
        h.query(c, "UPDATE lv.t SET b = CONCAT(b, '!') WHERE id = 1")
    finally:
        h.close_quietly(c)
    return v1, v1 + b"!", v2


def check_rows(srv, after1, v2, what):
    c = conn_for(srv)
    try:
        got = h.query(c, "SELECT id, LENGTH(b), MD5(b), note FROM lv.t ORDER BY id")
        whole = h.query(c, "SELECT b FROM lv.t WHERE id = 1")[0][0]
    finally:
        h.close_quietly(c)
    want = [(1, len(after1), md5(after1), "sixteen"), (2, len(v2), md5(v2), "three hundred"),
            (3, 5, md5(b"small"), "small")]
    assert [tuple(r) for r in got] == want, f"{what}: {got!r}"
    assert whole == after1, f"{what}: the 16 MiB value read back differs"


def test_sixteen_mib_round_trips_and_survives_sigkill():
    srv = _servers.start("lv-sql")
    _, after1, v2 = load(srv)
    check_rows(srv, after1, v2, "after the writes")
    # The 16 MiB + 1 result row crosses two protocol packets; a 3990-byte
    # row (just over a B+tree record) and deletes of large rows too.
    c = conn_for(srv)
    try:
        h.query(c, "CREATE TABLE lv.edge (id INT PRIMARY KEY, t TEXT)")
        h.query(c, "INSERT INTO lv.edge VALUES (1, REPEAT('a', 3990)), (2, REPEAT('b', 65535))")
        h.query(c, "DELETE FROM lv.edge WHERE id = 2")
        assert h.query(c, "SELECT id, LENGTH(t) FROM lv.edge") == ((1, 3990),)
    finally:
        h.close_quietly(c)
    datadir = srv.datadir
    srv.kill()  # SIGKILL: what was acknowledged must come back
    srv2 = _servers.start("lv-sql-again", datadir=datadir)
    check_rows(srv2, after1, v2, "after SIGKILL and restart")
    srv2.terminate()


def test_mariadb_binlog_decodes_the_large_rows():
    srv = _servers.start("lv-mariadb-binlog")
    v1, after1, v2 = load(srv)
    rc, out, err = h.run_cmd([MARIADB_BINLOG, "--no-defaults", "--read-from-remote-server", "--skip-ssl",
                              f"--host={h.HOST}", f"--port={srv.port}", "--user=root",
                              "--base64-output=decode-rows", "-v", "binlog.000001"], timeout=180)
    assert rc == 0, err[-2000:]
    # Row images print as "###   @2='...'"; the values are printable ASCII
    # without quotes or backslashes, so they appear as they are.
    values = re.findall(r"^###   @2='([^'\n]*)'$", out, re.M)
    big = [v.encode() for v in values if len(v) > 100_000]
    assert big == [v1, v2, v1, after1], [(len(v), md5(v)) for v in big]
    srv.terminate()


def test_python_mysql_replication_decodes_the_large_rows():
    srv = _servers.start("lv-pyrepl")
    v1, after1, v2 = load(srv)
    got = []
    for kind, before, after in h.pyrepl_rows(srv.port, 451, "lv", read_timeout=120):
        if kind == "write":
            got.append(("write", after["id"], after["b"]))
        else:
            got.append(("update", before["id"], before["b"]))
            got.append(("after", after["id"], after["b"]))
    as_bytes = [(k, i, b if isinstance(b, bytes) else b.encode()) for k, i, b in got]
    want = [("write", 1, v1), ("write", 2, v2), ("write", 3, b"small"), ("update", 1, v1), ("after", 1, after1)]
    assert as_bytes == want, [(k, i, len(b), md5(b)) for k, i, b in as_bytes]
    srv.terminate()


def test_go_mysql_decodes_the_large_rows():
    srv = _servers.start("lv-go")
    v1, after1, v2 = load(srv)
    # Row images: CREATE TABLEs log none; 3 writes, 1 update.
    rows = h.go_mysql_rows(srv.port, 1451, 4, "t", timeout=120)
    if rows is None:
        return
    got = [(k, v[0], v[1].encode()) for k, v in rows]
    want = [("write", 1, v1), ("write", 2, v2), ("write", 3, b"small"), ("update", 1, v1), ("update", 1, after1)]
    assert got == want, [(k, i, len(b), md5(b)) for k, i, b in got]
    srv.terminate()


if __name__ == "__main__":
    h.main(globals())
