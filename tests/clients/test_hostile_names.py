"""Hostile names (issue 14, finding 2): names and texts are checked before
anything is persisted, and a datadir always starts.

Raw bytes go to the server as bytes queries (PyMySQL sends them unchanged).
Each bad statement must get MySQL's error (1300 invalid utf8mb4, 1059
identifier too long, 1628 / 1629 comments too long, 1097 ENUM value too
long, 1470 user name too long); afterwards the server answers, and a
restart on the same datadir comes up with the committed rows intact. A
datadir whose catalog holds one table definition that does not decode
still starts: that table reports 1877, the others work, the error log
names it, and DROP TABLE removes it.
"""

import os
import struct
import zlib

import harness
from harness import Server, close_quietly, connect, expect_error, query, scalar, temp_dir

SERVERS = harness.PrivateServers()
srv = None


def setup_module():
    global srv
    srv = SERVERS.start("hostile-names")
    c = connect(port=srv.port)
    try:
        query(c, "CREATE DATABASE d1")
        query(c, "CREATE TABLE d1.keep (id INT PRIMARY KEY, v VARCHAR(20))")
        query(c, "INSERT INTO d1.keep VALUES (1, 'one'), (2, 'two')")
        query(c, "CREATE USER 'u1'@'%'")
    finally:
        c.close()


def teardown_module():
    SERVERS.kill_all()


def expect(conn, sql, errno):
    e = expect_error(errno, query, conn, sql, what=sql)
    return e.args[1] if len(e.args) > 1 else str(e)


def assert_intact(port):
    c = connect(port=port)
    try:
        assert scalar(c, "SELECT 1") == 1
        assert query(c, "SELECT id, v FROM d1.keep ORDER BY id") == ((1, "one"), (2, "two"))
    finally:
        c.close()


def test_invalid_utf8_is_refused_with_1300():
    c = connect(port=srv.port)
    try:
        msg = expect(c, b"CREATE TABLE d1.`t\xff` (a INT)", 1300)
        assert msg == "Invalid utf8mb4 character string: 't\\xFF'", msg
        for sql in [
            b"CREATE DATABASE `d\xff`",
            b"CREATE TABLE `d\xff`.t (a INT)",
            b"CREATE TABLE d1.t (`c\xff` INT)",
            b"CREATE TABLE d1.t (a INT) COMMENT 'x\xff'",
            b"CREATE TABLE d1.t (a INT COMMENT 'x\xff')",
            b"CREATE TABLE d1.t (e ENUM('a', 'b\xff'))",
            b"CREATE TABLE d1.t (a INT, KEY `k\xff` (a))",
            b"ALTER TABLE d1.keep ADD COLUMN `n\xff` INT",
            b"ALTER TABLE d1.keep RENAME TO d1.`r\xff`",
            b"RENAME TABLE d1.keep TO d1.`r\xff`",
            b"CREATE INDEX `i\xff` ON d1.keep (v)",
            b"CREATE USER 'u\xff'@'%'",
            b"CREATE USER 'u2'@'h\xff'",
            b"RENAME USER 'u1'@'%' TO 'u\xff'@'%'",
            b"GRANT SELECT ON `d\xff`.* TO 'u1'@'%'",
            b"ALTER TABLE d1.keep COMMENT 'x\xff'",
            b"ALTER TABLE d1.keep MODIFY v VARCHAR(20) COMMENT 'x\xff'",
            b"ALTER TABLE d1.keep RENAME COLUMN v TO `v\xff`",
            "CREATE TABLE d1.`t\U0001F600` (a INT)".encode(),  # above U+FFFF: not utf8mb3
        ]:
            expect(c, sql, 1300)
        # A character above U+FFFF is fine in texts (utf8mb4), not in names.
        query(c, "CREATE TABLE d1.emoji (a INT COMMENT '\U0001F600', e ENUM('\U0001F600')) COMMENT '\U0001F600'")
        query(c, "DROP TABLE d1.emoji")
        # Nothing was created.
        assert query(c, "SHOW TABLES FROM d1") == (("keep",),)
        assert query(c, "SHOW GRANTS FOR 'u1'@'%'")  # the rename did not happen
    finally:
        close_quietly(c)
    assert_intact(srv.port)


def test_lengths_are_checked_as_mysql_does():
    c = connect(port=srv.port)
    try:
        msg = expect(c, "CREATE TABLE d1.%s (a INT)" % ("t" * 65), 1059)
        assert msg == "Identifier name '%s' is too long" % ("t" * 65), msg
        expect(c, "CREATE DATABASE %s" % ("d" * 65), 1059)
        expect(c, "CREATE TABLE d1.t (%s INT)" % ("c" * 65), 1059)
        expect(c, "CREATE TABLE d1.t (a INT, KEY %s (a))" % ("k" * 65), 1059)
        expect(c, "RENAME TABLE d1.keep TO d1.%s" % ("r" * 65), 1059)
        expect(c, "CREATE TABLE d1.t (a INT) COMMENT '%s'" % ("x" * 2049), 1628)
        expect(c, "CREATE TABLE d1.t (a INT COMMENT '%s')" % ("x" * 1025), 1629)
        expect(c, "CREATE TABLE d1.t (e ENUM('a', '%s'))" % ("b" * 256), 1097)
        msg = expect(c, "CREATE USER '%s'@'%%'" % ("u" * 33), 1470)
        assert "is too long for user name (should be no longer than 32)" in msg, msg
        expect(c, "CREATE USER 'u3'@'%s'" % ("h" * 256), 1470)
        # At the limits: accepted (64 characters, also when they take two bytes).
        query(c, "CREATE TABLE d1.%s (a INT COMMENT '%s') COMMENT '%s'" % ("t" * 64, "x" * 1024, "y" * 2048))
        query(c, "INSERT INTO d1.%s VALUES (7)" % ("t" * 64))
        query(c, "CREATE DATABASE `%s`" % ("\u00e9" * 64))
        query(c, "CREATE USER '%s'@'%%'" % ("u" * 32))
    finally:
        close_quietly(c)
    assert_intact(srv.port)


def test_restart_after_hostile_statements_keeps_rows():
    assert srv.terminate() == 0, srv.log_tail()
    srv.start()
    assert_intact(srv.port)
    c = connect(port=srv.port)
    try:
        assert scalar(c, "SELECT a FROM d1.%s" % ("t" * 64)) == 7
        assert query(c, "SHOW GRANTS FOR '%s'@'%%'" % ("u" * 32))
    finally:
        c.close()


# --------------------------------------------------------------------------
# A damaged table definition in catalog.pb

def patch_catalog(datadir, old, new):
    """Replaces `old` by `new` (same length) once in catalog.pb's payload and
    fixes the framing ([magic 8][length u64][crc32 u32][payload])."""
    path = os.path.join(datadir, "catalog.pb")
    with open(path, "rb") as f:
        data = f.read()
    payload = data[20:]
    assert len(old) == len(new) and payload.count(old) == 1, "pattern must occur once"
    payload = payload.replace(old, new)
    data = data[:16] + struct.pack("<I", zlib.crc32(payload) & 0xFFFFFFFF) + payload
    with open(path, "wb") as f:
        f.write(data)


def test_corrupt_table_definition_does_not_brick_the_datadir():
    bad = Server(temp_dir("hostile-names-corrupt"))
    SERVERS.servers.append(bad)
    bad.start()
    c = connect(port=bad.port)
    query(c, "CREATE DATABASE c")
    query(c, "CREATE TABLE c.good (id INT PRIMARY KEY, v VARCHAR(10))")
    query(c, "INSERT INTO c.good VALUES (1, 'a'), (2, 'b')")
    query(c, "CREATE TABLE c.bad (zz INT PRIMARY KEY)")
    query(c, "INSERT INTO c.bad VALUES (5)")
    c.close()
    assert bad.terminate() == 0, bad.log_tail()
    # Column zz: name "zz" (field 1), type INT (field 3 = 4) -> type 99.
    patch_catalog(bad.datadir, b"\x0a\x02zz\x18\x04", b"\x0a\x02zz\x18\x63")
    bad.start()
    c = connect(port=bad.port)
    try:
        assert query(c, "SELECT id, v FROM c.good ORDER BY id") == ((1, "a"), (2, "b"))
        query(c, "INSERT INTO c.good VALUES (3, 'c')")
        e = expect_error((1877, 1146), query, c, "SELECT * FROM c.bad", what="SELECT from the damaged table")
        harness.note(f"damaged table: {e.args}")
        expect_error((1877, 1146), query, c, "INSERT INTO c.bad VALUES (6)", what="INSERT into it")
        expect(c, "CREATE TABLE c.bad (a INT)", 1050)  # its name stays taken
        log = open(bad.log_error, errors="replace").read()
        assert "'c.bad'" in log and "unknown type 99" in log, bad.log_tail()
        # A restart keeps both, and DROP TABLE clears the damaged one.
        assert bad.terminate() == 0, bad.log_tail()
        bad.start()
        c.close()
        c = connect(port=bad.port)
        assert scalar(c, "SELECT COUNT(*) FROM c.good") == 3
        query(c, "DROP TABLE c.bad")
        query(c, "CREATE TABLE c.bad (a INT)")
        query(c, "INSERT INTO c.bad VALUES (9)")
    finally:
        close_quietly(c)
    assert bad.terminate() == 0, bad.log_tail()
    bad.start()
    c = connect(port=bad.port)
    try:
        assert scalar(c, "SELECT COUNT(*) FROM c.good") == 3
        assert scalar(c, "SELECT a FROM c.bad") == 9
    finally:
        c.close()
    bad.terminate()


if __name__ == "__main__":
    harness.main(globals())
