"""mariadb-dump against sluiced (issue 5): a database with several column
types, keys and awkward values is dumped with Debian's mariadb-dump (which
locks each table with LOCK TABLES ... READ, reads INFORMATION_SCHEMA and
SHOW CREATE TABLE) and with --single-transaction (a consistent snapshot),
restored into a second database with the mariadb client (which runs the
dump's ALTER TABLE ... DISABLE KEYS and LOCK TABLES ... WRITE), and the two
copies must hold the same rows."""

import harness as h

DB, COPY = "dumpsrc", "dumpcopy"


def setup_module():
    conn = h.root()
    try:
        for db in (DB, COPY):
            h.query(conn, f"DROP DATABASE IF EXISTS {db}")
        h.query(conn, f"CREATE DATABASE {DB}")
        h.query(conn, f"""CREATE TABLE {DB}.items (
            id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
            name VARCHAR(40) NOT NULL DEFAULT '',
            price DECIMAL(10,2),
            qty SMALLINT NOT NULL DEFAULT 0,
            ratio DOUBLE,
            made DATE,
            seen DATETIME(3),
            note TEXT,
            raw VARBINARY(16),
            UNIQUE KEY name_u (name),
            KEY qty_k (qty, price))""")
        h.query(conn, f"CREATE TABLE {DB}.nokey (a INT, b VARCHAR(10))")
        rows = [("plain", "1.50", 3, 0.25, "2024-02-29", "2024-02-29 12:34:56.789", "text", b"\x00\x01"),
                ("quote ' and \\ back", "-0.01", -2, -1e-9, "1999-12-31", None, "line1\nline2\ttab", b"'\"\\"),
                ("ünïcødé €", None, 0, None, None, "2000-01-01 00:00:00.000", None, None),
                ("", "99999999.99", 32767, 1.7976931348623157e308, "1000-01-01", "9999-12-31 23:59:59.999", "", b"")]
        for r in rows:
            h.query(conn, f"INSERT INTO {DB}.items (name, price, qty, ratio, made, seen, note, raw) "
                          "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", r)
        h.query(conn, f"INSERT INTO {DB}.nokey VALUES (1, 'x'), (NULL, NULL), (1, 'x')")
    finally:
        h.close_quietly(conn)


def teardown_module():
    conn = h.root()
    try:
        for db in (DB, COPY):
            h.query(conn, f"DROP DATABASE IF EXISTS {db}")
    finally:
        h.close_quietly(conn)


def contents(conn, db):
    return {t: h.query(conn, f"SELECT * FROM {db}.{t} ORDER BY 1, 2") for t in ("items", "nokey")}


def dump_and_restore(*options):
    rc, out, err = h.run_cmd(["mariadb-dump", "--no-defaults", f"-h{h.HOST}", f"-P{h.PORT}", "-uroot",
                              "--skip-ssl", *options, DB], timeout=120)
    assert rc == 0, f"mariadb-dump {' '.join(options)} failed ({rc}): {err}"
    assert "CREATE TABLE `items`" in out and "INSERT INTO `items`" in out, out[:2000]
    conn = h.root()
    try:
        h.query(conn, f"DROP DATABASE IF EXISTS {COPY}")
        h.query(conn, f"CREATE DATABASE {COPY}")
        rc, _, err = h.run_cmd([h.MARIADB, "--no-defaults", f"-h{h.HOST}", f"-P{h.PORT}", "-uroot", "--skip-ssl",
                                COPY], input=out, timeout=120)
        assert rc == 0, f"restoring the dump failed ({rc}): {err}"
        assert contents(conn, COPY) == contents(conn, DB)
        create = lambda db: h.query(conn, f"SHOW CREATE TABLE {db}.items")[0][1]
        assert create(COPY) == create(DB), (create(COPY), create(DB))
        # The restored table keeps its AUTO_INCREMENT counter and keys.
        h.query(conn, f"INSERT INTO {COPY}.items (name) VALUES ('next')")
        assert h.scalar(conn, f"SELECT id FROM {COPY}.items WHERE name = 'next'") == 5
        h.expect_sql_error(conn, f"INSERT INTO {COPY}.items (name) VALUES ('plain')", [1062])
    finally:
        h.close_quietly(conn)


def test_dump_with_lock_tables_and_restore():
    dump_and_restore()


def test_dump_single_transaction_and_restore():
    dump_and_restore("--single-transaction")


if __name__ == "__main__":
    h.main(globals())
