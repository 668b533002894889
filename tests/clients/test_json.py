"""JSON documents in row events (issue 18): sluiced logs a JSON column as
MySQL 8.0 does, type 245 with the binary form (json-binary.md), and
python-mysql-replication and go-mysql decode every document to what the
server returns for it: objects with their members in MySQL's order, arrays,
strings with escapes and non-ASCII text, signed, unsigned and double
numbers, literals, and a document over 64 KiB (the large format, where
int32/uint32 values sit in the entries). mariadb-binlog receives the same
events byte for byte (test_dump_readers.py compares copies); it cannot
print type 245 with -v. A MariaDB replica, which cannot apply type 245,
gets the documents as text (test_mariadb_replica.py::test_json_replicates)."""

import json

import harness as h


_servers = h.PrivateServers(extra=["--binlog-row-metadata=FULL"])

DOCS = [
    (1, '{"b": [true, "x", null], "a": 1, "f": 2.5, "neg": -70000, "big": 4294967296}'),
    (2, '[1, -70000, 4294967296, 18446744073709551615, "s\\u00e9\\n\\"q\\"", {}, []]'),
    (3, None),
    (4, '"just a string"'),
    (5, "false"),
]


def teardown_module():
    _servers.kill_all()


def load(srv):
    """Writes the documents, a 100 KB one and an update; returns the rows as
    the server prints them, parsed with json.loads."""
    c = h.root(port=srv.port, max_allowed_packet=64 << 20)
    try:
        h.query(c, "CREATE DATABASE js")
        h.query(c, "CREATE TABLE js.t (id INT PRIMARY KEY, doc JSON)")
        for i, d in DOCS:
            h.query(c, "INSERT INTO js.t VALUES (%s, %s)", (i, d))
        h.query(c, "INSERT INTO js.t VALUES (6, JSON_OBJECT('big', REPEAT('x', 100000), 'n', 70000, "
                   "'u', CAST(4000000000 AS UNSIGNED), 'arr', JSON_ARRAY(1, 2.5, 'z')))")
        h.query(c, "UPDATE js.t SET doc = JSON_SET(doc, '$.a', 'changed') WHERE id = 1")
        rows = h.query(c, "SELECT id, doc FROM js.t ORDER BY id")
    finally:
        h.close_quietly(c)
    return {r[0]: None if r[1] is None else json.loads(r[1]) for r in rows}


def unbytes(v):
    """python-mysql-replication gives keys and strings as bytes."""
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, dict):
        return {unbytes(k): unbytes(x) for k, x in v.items()}
    if isinstance(v, list):
        return [unbytes(x) for x in v]
    return v


def test_python_mysql_replication_decodes_json():
    srv = _servers.start("json-pyrepl")
    final = load(srv)
    written, updated = {}, {}
    for kind, _, after in h.pyrepl_rows(srv.port, 461, "js"):
        (written if kind == "write" else updated)[after["id"]] = unbytes(after["doc"])
    assert sorted(written) == [1, 2, 3, 4, 5, 6], sorted(written)
    for i in (2, 3, 4, 5, 6):
        assert written[i] == final[i], (i, str(written[i])[:200], str(final[i])[:200])
    assert updated == {1: final[1]}, updated
    assert written[1] == dict(final[1], a=1)
    srv.terminate()


def test_go_mysql_decodes_json():
    srv = _servers.start("json-go")
    final = load(srv)
    rows = h.go_mysql_rows(srv.port, 1461, 7, "t")
    if rows is None:
        return
    got = [(k, v[0], None if v[1] is None else json.loads(v[1])) for k, v in rows]
    writes = {i: d for k, i, d in got if k == "write"}
    assert sorted(writes) == [1, 2, 3, 4, 5, 6], sorted(writes)
    for i in (2, 3, 4, 5, 6):
        assert writes[i] == final[i], (i, str(writes[i])[:200], str(final[i])[:200])
    updates = [(i, d) for k, i, d in got if k == "update"]
    assert updates[-1] == (1, final[1]), updates
    srv.terminate()


if __name__ == "__main__":
    h.main(globals())
