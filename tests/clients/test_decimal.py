"""DECIMAL exact to 65 digits (issue 18) in row events: sluiced writes
DECIMAL(65,30), DECIMAL(65,0) and DECIMAL(40,10) values in MySQL's binary
decimal form, and mariadb-binlog -v, python-mysql-replication and go-mysql
decode each to the text the server returns for it, the widest values and
their negatives included. (test_mariadb_replica.py applies them on MariaDB.)"""

import decimal

import harness as h
from test_binlog import MARIADB_BINLOG, binlog_files, decode, row_blocks


_servers = h.PrivateServers(extra=["--binlog-row-metadata=FULL"])  # column names for pyrepl

NINES = "9" * 35 + "." + "9" * 30  # DECIMAL(65,30)'s largest
ROWS = [
    (1, NINES, "9" * 65, "9" * 30 + "." + "9" * 10),
    (2, "-" + NINES, "-" + "9" * 65, "-" + "9" * 30 + "." + "9" * 10),
    (3, "12345678901234567890123456789012345.000000000000000000000000000001",
     "1234567890123456789012345678901234567890", "0.0000000001"),
    (4, "0.000000000000000000000000000000", "0", "-1.5000000000"),
]


def teardown_module():
    _servers.kill_all()


def load(srv):
    """The rows, then an UPDATE computed in 65-digit arithmetic; returns
    {id: (b, a, c)} as the server prints them."""
    c = h.root(port=srv.port)
    try:
        h.query(c, "CREATE DATABASE dw")
        h.query(c, "CREATE TABLE dw.t (id INT PRIMARY KEY, b DECIMAL(65,30), a DECIMAL(65,0), c DECIMAL(40,10))")
        for r in ROWS:
            h.query(c, "INSERT INTO dw.t VALUES (%s, %s, %s, %s)" % r)
        h.query(c, "UPDATE dw.t SET a = a * 98765432109876543210 + 1, b = b / 3 WHERE id = 3")
        rows = h.query(c, "SELECT id, CAST(b AS CHAR), CAST(a AS CHAR), CAST(c AS CHAR) FROM dw.t ORDER BY id")
    finally:
        h.close_quietly(c)
    got = {r[0]: tuple(r[1:]) for r in rows}
    assert got[3][1] == "121932631137021795224965706422496570642237463801111263526901", got[3]
    assert got[3][0] == "4115226300411522630041152263004115.000000000000000000000000000000", got[3]
    return got


def test_mariadb_binlog_prints_wide_decimals():
    assert MARIADB_BINLOG, "mariadb-binlog is not installed"
    srv = _servers.start("decimal-mariadb-binlog")
    final = load(srv)
    c = h.root(port=srv.port)
    h.query(c, "FLUSH BINARY LOGS")
    h.close_quietly(c)
    blocks = row_blocks(decode(binlog_files(srv)), "`dw`.`t`")
    assert [b["kind"] for b in blocks] == ["INSERT"] * 4 + ["UPDATE"], blocks
    for (i, b, a, cc), blk in zip(ROWS, blocks):
        assert blk["set"] == [(1, str(i)), (2, b), (3, a), (4, cc)], blk
    assert dict(blocks[4]["set"])[3] == final[3][1] and dict(blocks[4]["set"])[2] == final[3][0]
    srv.terminate()


def test_python_mysql_replication_decodes_wide_decimals():
    srv = _servers.start("decimal-pyrepl")
    final = load(srv)
    written, updated = {}, {}
    for kind, _, v in h.pyrepl_rows(srv.port, 462, "dw"):
        assert all(isinstance(v[k], decimal.Decimal) for k in ("a", "b", "c")), v
        row = tuple(format(v[k], "f") for k in ("b", "a", "c"))  # fixed point, scale kept
        (written if kind == "write" else updated)[v["id"]] = row
    assert written == {i: (b, a, c) for i, b, a, c in ROWS}, written
    assert updated == {3: final[3]}, updated
    srv.terminate()


def test_go_mysql_decodes_wide_decimals():
    srv = _servers.start("decimal-go")
    final = load(srv)
    got = h.go_mysql_rows(srv.port, 1462, 5, "t")
    if got is None:
        return
    # shopspring/decimal prints without trailing zeros: compare by value.
    norm = lambda t: tuple(decimal.Decimal(x) for x in t)  # noqa: E731
    writes = {v[0]: norm(v[1:]) for k, v in got if k == "write"}
    assert writes == {i: norm((b, a, c)) for i, b, a, c in ROWS}, writes
    updates = [(v[0], norm(v[1:])) for k, v in got if k == "update"]
    assert updates[-1] == (3, norm(final[3])), updates
    srv.terminate()


if __name__ == "__main__":
    h.main(globals())
