"""Metadata locks per table (issue 14, finding 4).

An idle transaction that read one table used to stall every DDL (1205) and,
behind the waiting DDL, every statement on every table: the metadata lock
was one for the whole server. Now each table has its own: DDL waits only
for the transactions that used the tables it changes, and a waiting DDL
holds off only new statements on its own table.

Every wait here is bounded by a short lock_wait_timeout (or a thread join
timeout); every test ends by checking that the server still answers."""

import time

import harness as h

ER_LOCK_WAIT_TIMEOUT = 1205
ER_LOCK_DEADLOCK = 1213
ER_NO_SUCH_TABLE = 1146

_root = None


def setup_module():
    global _root
    _root = h.root()
    for stmt in ("DROP DATABASE IF EXISTS shop", "DROP DATABASE IF EXISTS other",
                 "CREATE DATABASE shop", "CREATE DATABASE other",
                 "CREATE TABLE shop.u1 (id INT PRIMARY KEY, v INT)",
                 "CREATE TABLE shop.u2 (id INT PRIMARY KEY, v INT)",
                 "INSERT INTO shop.u1 VALUES (1, 10), (2, 20)",
                 "INSERT INTO shop.u2 VALUES (1, 100), (2, 200), (3, 300)"):
        h.query(_root, stmt)


def teardown_module():
    try:
        h.query(_root, "DROP DATABASE IF EXISTS shop")
        h.query(_root, "DROP DATABASE IF EXISTS other")
    finally:
        h.close_quietly(_root)


def timed(fn, *args):
    start = time.monotonic()
    result = fn(*args)
    return result, time.monotonic() - start


def processlist_states():
    rows = h.query(_root, "SHOW PROCESSLIST")
    return [(r[0], r[6], r[7]) for r in rows]  # Id, State, Info


def test_idle_transaction_blocks_only_its_table():
    # The finding, as reported: B reads shop.u1 in a transaction and idles.
    b = h.root()
    a = h.root()
    c = h.root()
    try:
        h.query(b, "BEGIN")
        assert h.query(b, "SELECT * FROM shop.u1 ORDER BY id") == ((1, 10), (2, 20))
        h.query(a, "SET SESSION lock_wait_timeout = 2")
        # A's DDL on an unrelated table: at once.
        _, took = timed(h.query, a, "CREATE TABLE other.unrelated (a INT)")
        assert took < 1.5, f"CREATE TABLE other.unrelated took {took:.2f} s"
        # C reads another table of the same schema: at once.
        rows, took = timed(h.query, c, "SELECT COUNT(*) FROM shop.u2")
        assert rows == ((3,),) and took < 1.5, (rows, took)
        # DDL on the table B used still waits, and times out with 1205.
        start = time.monotonic()
        h.expect_sql_error(a, "ALTER TABLE shop.u1 ADD COLUMN w INT", ER_LOCK_WAIT_TIMEOUT)
        waited = time.monotonic() - start
        assert 1.5 <= waited < 6, f"waited {waited:.2f} s for a 2 s lock_wait_timeout"
        # B's transaction goes on, and sees its table unchanged.
        assert h.query(b, "SELECT * FROM shop.u1 ORDER BY id") == ((1, 10), (2, 20))
        h.query(b, "COMMIT")
        # Now the DDL proceeds.
        _, took = timed(h.query, a, "ALTER TABLE shop.u1 ADD COLUMN w INT")
        assert took < 1.5, took
        assert h.query(c, "SELECT * FROM shop.u1 ORDER BY id") == ((1, 10, None), (2, 20, None))
        h.query(a, "DROP TABLE other.unrelated")
        h.query(a, "ALTER TABLE shop.u1 DROP COLUMN w")
    finally:
        for conn in (a, b, c):
            h.close_quietly(conn)
    h.assert_server_ok()


def test_waiting_ddl_holds_off_only_its_table():
    # While A's DDL waits for B's transaction on shop.u1, statements on
    # other tables go on at once; new statements on shop.u1 itself queue
    # behind the DDL (as MySQL), and the process list shows the wait.
    b = h.root()
    a = h.root()
    c = h.root()
    try:
        h.query(b, "BEGIN")
        h.query(b, "SELECT COUNT(*) FROM shop.u1")
        h.query(a, "SET SESSION lock_wait_timeout = 5")
        a_id = h.scalar(a, "SELECT CONNECTION_ID()")
        t, box = h.run_in_thread(lambda: h.query(a, "TRUNCATE TABLE shop.u1"))
        h.bounded_poll(lambda: any(i == a_id and s == "Waiting for table metadata lock"
                                   for i, s, _ in processlist_states()),
                       rounds=40, what="the TRUNCATE waiting for the metadata lock")
        rows, took = timed(h.query, c, "SELECT COUNT(*) FROM shop.u2")
        assert rows == ((3,),) and took < 1, (rows, took)
        _, took = timed(h.query, c, "INSERT INTO shop.u2 VALUES (4, 400)")
        assert took < 1, took
        h.query(c, "DELETE FROM shop.u2 WHERE id = 4")
        # A new reader of shop.u1 queues behind the waiting TRUNCATE.
        h.query(c, "SET SESSION lock_wait_timeout = 1")
        h.expect_sql_error(c, "SELECT COUNT(*) FROM shop.u1", ER_LOCK_WAIT_TIMEOUT)
        # B itself still reads its table (it holds the lock already).
        assert h.query(b, "SELECT COUNT(*) FROM shop.u1") == ((2,),)
        h.query(b, "COMMIT")
        t.join(10)
        assert not t.is_alive(), "TRUNCATE still waiting after COMMIT"
        assert "error" not in box, box
        assert h.query(c, "SELECT COUNT(*) FROM shop.u1") == ((0,),)
        h.query(c, "INSERT INTO shop.u1 VALUES (1, 10), (2, 20)")
    finally:
        for conn in (a, b, c):
            h.close_quietly(conn)
    h.assert_server_ok()


def test_rename_and_drop_lock_every_table_they_touch():
    b = h.root()
    a = h.root()
    try:
        h.query(a, "CREATE TABLE shop.r1 (id INT PRIMARY KEY)")
        h.query(a, "SET SESSION lock_wait_timeout = 1")
        h.query(b, "BEGIN")
        h.query(b, "SELECT * FROM shop.u2")
        # RENAME shop.r1 TO shop.u2x does not touch u2: at once.
        h.query(a, "RENAME TABLE shop.r1 TO shop.r2")
        # DROP of two tables, one of which B used: waits, 1205, drops nothing.
        h.expect_sql_error(a, "DROP TABLE shop.r2, shop.u2", ER_LOCK_WAIT_TIMEOUT)
        assert h.scalar(a, "SELECT COUNT(*) FROM shop.r2") == 0
        # RENAME onto / from a used table: waits too.
        h.expect_sql_error(a, "RENAME TABLE shop.u2 TO shop.u2_old", ER_LOCK_WAIT_TIMEOUT)
        # DROP DATABASE waits for every table in it.
        h.expect_sql_error(a, "DROP DATABASE shop", ER_LOCK_WAIT_TIMEOUT)
        assert h.query(b, "SELECT COUNT(*) FROM shop.u2") == ((3,),)
        h.query(b, "COMMIT")
        h.query(a, "DROP TABLE shop.r2")
    finally:
        h.close_quietly(a)
        h.close_quietly(b)
    h.assert_server_ok()


def test_drop_database_and_create_table_in_it():
    # CREATE TABLE in a database being dropped waits for the DROP (schema
    # lock), then fails cleanly instead of leaving a table behind.
    b = h.root()
    a = h.root()
    c = h.root()
    try:
        h.query(a, "CREATE DATABASE gone")
        h.query(a, "CREATE TABLE gone.t (id INT)")
        h.query(b, "BEGIN")
        h.query(b, "SELECT * FROM gone.t")
        h.query(a, "SET SESSION lock_wait_timeout = 10")
        t, box = h.run_in_thread(lambda: h.query(a, "DROP DATABASE gone"))
        h.bounded_poll(lambda: any(s == "Waiting for table metadata lock" and info and "DROP DATABASE" in info
                                   for _, s, info in processlist_states()),
                       rounds=40, what="DROP DATABASE waiting")
        h.query(c, "SET SESSION lock_wait_timeout = 1")
        h.expect_sql_error(c, "CREATE TABLE gone.t2 (id INT)", ER_LOCK_WAIT_TIMEOUT)
        h.query(b, "COMMIT")
        t.join(15)
        assert not t.is_alive() and "error" not in box, box
        h.expect_sql_error(c, "CREATE TABLE gone.t2 (id INT)", (1049,))
    finally:
        for conn in (a, b, c):
            h.close_quietly(conn)
        h.query(_root, "DROP DATABASE IF EXISTS gone")
    h.assert_server_ok()


def test_dml_after_waited_ddl_sees_new_definition():
    # A statement that waited out a DDL reads the table as the DDL left it
    # (no stale definition), or gets 1146 when it was dropped.
    b = h.root()
    a = h.root()
    c = h.root()
    try:
        h.query(a, "CREATE TABLE shop.d1 (id INT PRIMARY KEY)")
        h.query(a, "INSERT INTO shop.d1 VALUES (1)")
        h.query(b, "BEGIN")
        h.query(b, "SELECT * FROM shop.d1")
        h.query(a, "SET SESSION lock_wait_timeout = 10")
        a_id = h.scalar(a, "SELECT CONNECTION_ID()")
        ta, box_a = h.run_in_thread(lambda: h.query(a, "DROP TABLE shop.d1"))
        h.bounded_poll(lambda: any(i == a_id and s == "Waiting for table metadata lock"
                                   for i, s, _ in processlist_states()),
                       rounds=40, what="DROP TABLE waiting")
        h.query(c, "SET SESSION lock_wait_timeout = 10")
        tc, box_c = h.run_in_thread(lambda: h.query(c, "SELECT * FROM shop.d1"))
        time.sleep(0.3)
        h.query(b, "COMMIT")
        ta.join(15)
        tc.join(15)
        assert not ta.is_alive() and not tc.is_alive()
        assert "error" not in box_a, box_a
        assert h.errno_of(box_c.get("error")) == ER_NO_SUCH_TABLE, box_c
    finally:
        for conn in (a, b, c):
            h.close_quietly(conn)
    h.assert_server_ok()


def test_mdl_deadlock_is_reported_not_hung():
    # B holds shop.u1 (transaction), A's RENAME takes shop.u2's lock and
    # waits for shop.u1's; B then wants shop.u2: a cycle. B gets 1213 (its
    # transaction rolls back), A proceeds. Nothing waits forever.
    b = h.root()
    a = h.root()
    try:
        h.query(a, "CREATE TABLE shop.m0 (id INT)")
        h.query(b, "BEGIN")
        h.query(b, "SELECT * FROM shop.u1")
        h.query(a, "SET SESSION lock_wait_timeout = 10")
        h.query(b, "SET SESSION lock_wait_timeout = 10")
        a_id = h.scalar(a, "SELECT CONNECTION_ID()")
        # Locks are taken in key order: shop.m0 and shop.m1 before shop.u1.
        ta, box = h.run_in_thread(lambda: h.query(a, "RENAME TABLE shop.m0 TO shop.m1, shop.u1 TO shop.u1x, "
                                                   "shop.u1x TO shop.u1"))
        h.bounded_poll(lambda: any(i == a_id and s == "Waiting for table metadata lock"
                                   for i, s, _ in processlist_states()),
                       rounds=40, what="RENAME waiting")
        start = time.monotonic()
        h.expect_sql_error(b, "SELECT * FROM shop.m0", (ER_LOCK_DEADLOCK,))
        assert time.monotonic() - start < 3
        ta.join(15)
        assert not ta.is_alive() and "error" not in box, box
        assert h.query(b, "SELECT COUNT(*) FROM shop.m1") == ((0,),)
        h.query(a, "DROP TABLE shop.m1")
    finally:
        h.close_quietly(a)
        h.close_quietly(b)
    h.assert_server_ok()


def test_autocommit_statements_release_at_statement_end():
    # Under autocommit a SELECT keeps no lock: DDL right after it from
    # another session does not wait.
    b = h.root()
    a = h.root()
    try:
        h.query(a, "SET SESSION lock_wait_timeout = 1")
        h.query(b, "SELECT * FROM shop.u2")
        h.query(b, "INSERT INTO shop.u2 VALUES (9, 900)")
        h.expect_sql_error(b, "INSERT INTO shop.u2 (nope) VALUES (1)", (1054,))
        h.query(a, "CREATE INDEX v ON shop.u2 (v)")
        h.query(a, "DROP INDEX v ON shop.u2")
        h.query(b, "DELETE FROM shop.u2 WHERE id = 9")
        # A statement that failed inside a transaction keeps the lock till
        # the transaction ends (MySQL).
        h.query(b, "BEGIN")
        h.expect_sql_error(b, "INSERT INTO shop.u2 VALUES (1, 1)", (1062,))
        h.expect_sql_error(a, "CREATE INDEX v ON shop.u2 (v)", ER_LOCK_WAIT_TIMEOUT)
        h.query(b, "ROLLBACK")
        h.query(a, "CREATE INDEX v ON shop.u2 (v)")
        h.query(a, "DROP INDEX v ON shop.u2")
    finally:
        h.close_quietly(a)
        h.close_quietly(b)
    h.assert_server_ok()


def test_flush_tables_with_read_lock_still_blocks_ddl():
    a = h.root()
    f = h.root()
    try:
        h.query(f, "FLUSH TABLES WITH READ LOCK")
        h.query(a, "SET SESSION lock_wait_timeout = 1")
        h.expect_sql_error(a, "CREATE TABLE other.x (a INT)", ER_LOCK_WAIT_TIMEOUT)
        h.query(f, "UNLOCK TABLES")
        h.query(a, "CREATE TABLE other.x (a INT)")
        h.query(a, "DROP TABLE other.x")
    finally:
        h.close_quietly(a)
        h.close_quietly(f)
    h.assert_server_ok()


if __name__ == "__main__":
    h.main(globals())
