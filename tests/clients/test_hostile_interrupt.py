"""Issue 14, finding 3: statements that run for a long time stop when told
to. KILL QUERY (1317) and KILL (connection closed) interrupt a running
cross join, a runaway regular expression, INSERT ... SELECT, a row lock
wait and waits for FLUSH TABLES WITH READ LOCK and LOCK TABLES; max_execution_time and the MAX_EXECUTION_TIME hint end a SELECT with
3024; REGEXP has MySQL's regexp_time_limit (3699); a client that goes away
mid-statement takes its statement with it; SIGTERM with a running
statement exits in bounded time with committed rows intact.

Every test is bounded: each long statement runs in a thread that the test
waits for with a timeout, and every wait is a bounded poll."""

import threading
import time

import pymysql

import harness as h

DB = "hostile_intr"
CROSS_JOIN = f"SELECT COUNT(*) FROM {DB}.k20 a, {DB}.k20 b"
ROWS = 20000
_servers = h.PrivateServers()


def fill_k20(conn, db=DB):
    h.query(conn, f"CREATE DATABASE IF NOT EXISTS {db}")
    h.query(conn, f"DROP TABLE IF EXISTS {db}.k20")
    h.query(conn, f"CREATE TABLE {db}.k20 (a INT PRIMARY KEY)")
    for start in range(0, ROWS, 2000):
        values = ",".join(f"({i})" for i in range(start, start + 2000))
        h.query(conn, f"INSERT INTO {db}.k20 VALUES {values}")
    assert h.scalar(conn, f"SELECT COUNT(*) FROM {db}.k20") == ROWS


def setup_module():
    c = h.root()
    try:
        fill_k20(c)
    finally:
        h.close_quietly(c)


def teardown_module():
    _servers.kill_all()
    c = h.root()
    try:
        h.query(c, "SET GLOBAL regexp_time_limit = DEFAULT")
        h.query(c, f"DROP DATABASE IF EXISTS {DB}")
    finally:
        h.close_quietly(c)


class Running:
    """`sql` running on `conn` in a thread; wait() gives (exception or
    rows, seconds it took)."""

    def __init__(self, conn, sql):
        self.conn, self.sql = conn, sql
        self.result = None
        self.elapsed = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.start = time.monotonic()
        self.thread.start()

    def _run(self):
        try:
            self.result = h.query(self.conn, self.sql)
        except Exception as e:  # noqa: BLE001
            self.result = e
        self.elapsed = time.monotonic() - self.start

    def wait(self, timeout):
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"{self.sql!r} still running after {timeout} s"
        return self.result, self.elapsed


def processlist_info(conn, conn_id):
    for row in h.query(conn, "SHOW FULL PROCESSLIST"):
        if row[0] == conn_id:
            return row[7] or ""
    return None


def wait_running(admin, conn_id, text):
    """Until connection `conn_id` shows `text` in SHOW PROCESSLIST."""
    h.bounded_poll(lambda: text in (processlist_info(admin, conn_id) or ""), rounds=100, interval=0.05,
                   what=f"connection {conn_id} running {text!r}")
    time.sleep(0.2)  # well inside the statement's row loop


def expect_errno(result, errnos, what):
    if isinstance(errnos, int):
        errnos = (errnos,)
    assert isinstance(result, Exception), f"{what}: expected error {errnos}, got rows {result!r}"
    assert h.errno_of(result) in errnos, f"{what}: expected error {errnos}, got {result!r}"


def test_kill_query_cross_join():
    victim, admin = h.root(), h.root()
    try:
        run = Running(victim, CROSS_JOIN)
        wait_running(admin, victim.thread_id(), "k20 a")
        t0 = time.monotonic()
        h.query(admin, f"KILL QUERY {victim.thread_id()}")
        result, _ = run.wait(10)
        took = time.monotonic() - t0
        expect_errno(result, 1317, "KILL QUERY of the cross join")
        assert took < 3, f"KILL QUERY took {took:.2f} s to stop the cross join"
        # The connection goes on; the KILL QUERY does not carry over.
        assert h.scalar(victim, "SELECT 1") == 1
        assert h.scalar(victim, f"SELECT COUNT(*) FROM {DB}.k20") == ROWS
    finally:
        h.close_quietly(victim)
        h.close_quietly(admin)


def test_kill_query_sqlstate():
    victim, admin = h.root(), h.root()
    try:
        run = Running(victim, CROSS_JOIN)
        wait_running(admin, victim.thread_id(), "k20 a")
        h.query(admin, f"KILL QUERY {victim.thread_id()}")
        result, _ = run.wait(10)
        expect_errno(result, 1317, "KILL QUERY")
        assert "Query execution was interrupted" in str(result), result
    finally:
        h.close_quietly(victim)
        h.close_quietly(admin)


def test_kill_connection_cross_join():
    victim, admin = h.root(), h.root()
    vid = victim.thread_id()
    try:
        run = Running(victim, CROSS_JOIN)
        wait_running(admin, vid, "k20 a")
        h.query(admin, f"KILL {vid}")
        result, _ = run.wait(10)
        expect_errno(result, h.LOST_CONNECTION_ERRNOS, "KILL of the cross join's connection")
        h.bounded_poll(lambda: processlist_info(admin, vid) is None, rounds=50,
                       what=f"connection {vid} gone from the process list")
        h.assert_server_ok()
    finally:
        h.close_quietly(victim)
        h.close_quietly(admin)


def test_kill_query_insert_select_rolls_back():
    victim, admin = h.root(), h.root()
    try:
        h.query(admin, f"CREATE TABLE {DB}.copy (a BIGINT PRIMARY KEY)")
        h.query(admin, f"INSERT INTO {DB}.copy VALUES (-1)")  # committed before
        run = Running(victim, f"INSERT INTO {DB}.copy SELECT a.a * {ROWS} + b.a FROM {DB}.k20 a, {DB}.k20 b")
        wait_running(admin, victim.thread_id(), "INSERT INTO")
        h.query(admin, f"KILL QUERY {victim.thread_id()}")
        result, _ = run.wait(10)
        expect_errno(result, 1317, "KILL QUERY of INSERT ... SELECT")
        assert h.query(admin, f"SELECT a FROM {DB}.copy") == ((-1,),), "the interrupted statement left rows"
    finally:
        h.query(admin, f"DROP TABLE IF EXISTS {DB}.copy")
        h.close_quietly(victim)
        h.close_quietly(admin)


def kill_query_of_waiting(holder_sql, victim_sql, what, release="UNLOCK TABLES"):
    """`holder_sql` on one session makes `victim_sql` wait; KILL QUERY ends
    the wait with 1317 at once; the holder lets go with `release`."""
    holder, victim, admin = h.root(), h.root(), h.root()
    try:
        for sql in holder_sql:
            h.query(holder, sql)
        run = Running(victim, victim_sql)
        wait_running(admin, victim.thread_id(), victim_sql[:20])
        assert run.thread.is_alive(), f"{what}: {victim_sql!r} did not wait"
        t0 = time.monotonic()
        h.query(admin, f"KILL QUERY {victim.thread_id()}")
        result, _ = run.wait(10)
        took = time.monotonic() - t0
        expect_errno(result, 1317, what)
        assert took < 3, f"{what}: the wait took {took:.2f} s to end after KILL QUERY"
        h.query(holder, release)
        assert h.scalar(victim, f"SELECT COUNT(*) FROM {DB}.k20 WHERE a = 7") == 1
    finally:
        h.close_quietly(holder)
        h.close_quietly(victim)
        h.close_quietly(admin)


def test_kill_query_lock_wait():
    kill_query_of_waiting(["BEGIN", f"SELECT a FROM {DB}.k20 WHERE a = 7 FOR UPDATE"],
                          f"UPDATE {DB}.k20 SET a = a WHERE a = 7", "KILL QUERY of a row lock wait", release="COMMIT")


def test_kill_query_global_read_lock_wait():
    kill_query_of_waiting(["FLUSH TABLES WITH READ LOCK"], f"INSERT INTO {DB}.k20 VALUES (-1)",
                          "KILL QUERY of a write waiting for FLUSH TABLES WITH READ LOCK")


def test_kill_query_lock_tables_wait():
    kill_query_of_waiting([f"LOCK TABLES {DB}.k20 WRITE"], f"SELECT COUNT(*) FROM {DB}.k20",
                          "KILL QUERY of a read waiting for LOCK TABLES ... WRITE")
    kill_query_of_waiting([f"LOCK TABLES {DB}.k20 READ"], f"LOCK TABLES {DB}.k20 WRITE",
                          "KILL QUERY of LOCK TABLES waiting for another session's")


def test_regexp_time_limit():
    c = h.root()
    try:
        t0 = time.monotonic()
        h.expect_sql_error(c, "SELECT REPEAT('a',28) REGEXP '(a+)+b'", 3699)
        assert time.monotonic() - t0 < 3
        assert h.scalar(c, "SELECT 1") == 1
        # ICU's syntax and MySQL's case-insensitive default collation.
        assert h.scalar(c, "SELECT 'ABC' REGEXP '^abc$'") == 1
        assert h.scalar(c, "SELECT 'abc' REGEXP '\\\\bb'") == 0
        assert h.scalar(c, "SELECT 'x1y' REGEXP '[[:digit:]]'") == 1
        h.expect_sql_error(c, "SELECT 'abc' REGEXP '('", 3691)
        h.expect_sql_error(c, "SELECT 'abc' REGEXP ''", 3685)
        assert h.scalar(c, "SELECT @@global.regexp_time_limit") == 32
        assert h.scalar(c, "SELECT @@global.regexp_stack_limit") == 8000000
    finally:
        h.close_quietly(c)


def test_regexp_stack_limit():
    c = h.root()
    try:
        h.query(c, "SET GLOBAL regexp_stack_limit = 1000")
        try:
            h.expect_sql_error(c, "SELECT REPEAT('a', 10000) REGEXP '(a|b)*c'", (3698, 3699))
        finally:
            h.query(c, "SET GLOBAL regexp_stack_limit = DEFAULT")
        assert h.scalar(c, "SELECT 'ab' REGEXP 'a(b)'") == 1
    finally:
        h.close_quietly(c)


def test_kill_query_runaway_regexp():
    victim, admin = h.root(), h.root()
    try:
        h.query(admin, "SET GLOBAL regexp_time_limit = 0")  # no step limit: only KILL stops it
        run = Running(victim, "SELECT REPEAT('a',40) REGEXP '(a+)+b'")
        wait_running(admin, victim.thread_id(), "REGEXP")
        h.query(admin, f"KILL QUERY {victim.thread_id()}")
        result, _ = run.wait(10)
        expect_errno(result, 1317, "KILL QUERY of a runaway REGEXP")
        assert h.scalar(victim, "SELECT 1") == 1
    finally:
        h.query(admin, "SET GLOBAL regexp_time_limit = DEFAULT")
        h.close_quietly(victim)
        h.close_quietly(admin)


def test_max_execution_time_variable():
    c = h.root()
    try:
        h.query(c, "SET max_execution_time = 1000")
        t0 = time.monotonic()
        e = h.expect_sql_error(c, CROSS_JOIN, 3024)
        took = time.monotonic() - t0
        assert "maximum statement execution time exceeded" in str(e), e
        assert 0.9 <= took < 4, f"max_execution_time=1000 stopped the SELECT after {took:.2f} s"
        assert h.scalar(c, "SELECT 1") == 1
        # Only SELECT is bounded (MySQL): other statements run to the end.
        h.query(c, "SET max_execution_time = 50")
        h.query(c, "DO SLEEP(0.3)")
        # SLEEP() as the whole query: interrupted, returns 1, no error.
        t0 = time.monotonic()
        assert h.scalar(c, "SELECT SLEEP(2)") == 1
        assert time.monotonic() - t0 < 1.5
        h.query(c, "SET max_execution_time = 0")
        assert h.scalar(c, f"SELECT COUNT(*) FROM {DB}.k20") == ROWS
    finally:
        h.close_quietly(c)


def test_max_execution_time_global():
    admin = h.root()
    try:
        h.query(admin, "SET GLOBAL max_execution_time = 500")
        c = h.root()  # sessions take the global value when they start
        try:
            assert h.scalar(c, "SELECT @@max_execution_time") == 500
            t0 = time.monotonic()
            h.expect_sql_error(c, CROSS_JOIN, 3024)
            assert time.monotonic() - t0 < 3
        finally:
            h.close_quietly(c)
    finally:
        h.query(admin, "SET GLOBAL max_execution_time = 0")
        h.close_quietly(admin)


def test_max_execution_time_hint():
    c = h.root()
    try:
        t0 = time.monotonic()
        h.expect_sql_error(c, f"SELECT /*+ MAX_EXECUTION_TIME(100) */ COUNT(*) FROM {DB}.k20 a, {DB}.k20 b", 3024)
        took = time.monotonic() - t0
        assert took < 2, f"MAX_EXECUTION_TIME(100) stopped the SELECT after {took:.2f} s"
        # The hint wins over the variable; a hint elsewhere is only a comment.
        h.query(c, "SET max_execution_time = 100")
        assert h.scalar(c, "SELECT /*+ MAX_EXECUTION_TIME(5000) */ SLEEP(0.3)") == 0
        h.query(c, "SET max_execution_time = 0")
        assert h.scalar(c, "SELECT 1 /*+ MAX_EXECUTION_TIME(1) */ + SLEEP(0.05)") == 1
    finally:
        h.close_quietly(c)


def test_max_execution_time_prepared_select():
    c = h.root()
    try:
        h.query(c, f"PREPARE s FROM 'SELECT COUNT(*) FROM {DB}.k20 a, {DB}.k20 b'")
        h.query(c, "SET max_execution_time = 300")
        t0 = time.monotonic()
        h.expect_sql_error(c, "EXECUTE s", 3024)
        assert time.monotonic() - t0 < 3
        h.query(c, "SET max_execution_time = 0")
        h.query(c, "DEALLOCATE PREPARE s")
    finally:
        h.close_quietly(c)


def test_kill_query_alter_copy_keeps_table():
    # Filling the table takes minutes under TSan: no 60 s read timeout.
    victim, admin = h.root(), h.root(read_timeout=900)
    try:
        h.query(admin, f"CREATE TABLE {DB}.big (a BIGINT PRIMARY KEY, b INT)")
        h.query(admin, f"INSERT INTO {DB}.big SELECT a.a * {ROWS} + b.a, b.a FROM {DB}.k20 a, {DB}.k20 b "
                       "WHERE b.a < 15")
        n = h.scalar(admin, f"SELECT COUNT(*) FROM {DB}.big")
        run = Running(victim, f"ALTER TABLE {DB}.big ADD COLUMN c INT, MODIFY b BIGINT")
        wait_running(admin, victim.thread_id(), "ALTER TABLE")
        h.query(admin, f"KILL QUERY {victim.thread_id()}")
        result, _ = run.wait(30)
        if not isinstance(result, Exception):
            h.note("the ALTER finished before the KILL QUERY reached it")
            return
        expect_errno(result, 1317, "KILL QUERY of ALTER TABLE's copy")
        cols = [r[0] for r in h.query(admin, f"SHOW COLUMNS FROM {DB}.big")]
        assert cols == ["a", "b"], f"the interrupted ALTER changed the table: {cols}"
        assert h.scalar(admin, f"SELECT COUNT(*) FROM {DB}.big") == n
        assert not [r for r in h.query(admin, f"SHOW TABLES FROM {DB}") if r[0].startswith("#sql")]
    finally:
        h.query(admin, f"DROP TABLE IF EXISTS {DB}.big")
        h.close_quietly(victim)
        h.close_quietly(admin)


def test_vanished_client_stops_statement():
    admin = h.root()
    raw = h.RawConn()
    try:
        raw.login("root")
        vid = raw.connection_id
        raw.send_packet(bytes([h.COM_QUERY]) + CROSS_JOIN.encode(), seq=0)
        wait_running(admin, vid, "k20 a")
        raw.close()  # the client goes away mid-statement
        t0 = time.monotonic()
        h.bounded_poll(lambda: processlist_info(admin, vid) is None, rounds=50, interval=0.1,
                       what="the vanished client's statement gone from SHOW PROCESSLIST")
        took = time.monotonic() - t0
        assert took < 5, f"the vanished client's statement ran {took:.2f} s more"
        h.assert_server_ok()
    finally:
        h.close_quietly(admin)


def sigterm_ends(srv, run, what):
    """SIGTERM to `srv` exits cleanly within 10 s, and the statement `run`
    ends with a lost connection, 1317 or 1053."""
    t0 = time.monotonic()
    rc = srv.terminate(10)
    took = time.monotonic() - t0
    assert rc == 0, f"exit code after SIGTERM: {rc}; log:\n{srv.log_tail()}"
    assert took < 10, f"SIGTERM took {took:.2f} s"
    result, _ = run.wait(10)
    expect_errno(result, h.LOST_CONNECTION_ERRNOS + (1317, 1053), what)


def test_sigterm_with_running_statement():
    srv = _servers.start("hostile-intr-sigterm")
    datadir = srv.datadir
    c = h.root(port=srv.port)
    fill_k20(c, "sig")
    h.query(c, "CREATE TABLE sig.committed (a INT PRIMARY KEY, b VARCHAR(10))")
    h.query(c, "INSERT INTO sig.committed VALUES (1, 'one'), (2, 'two')")
    runner = h.root(port=srv.port)
    run = Running(runner, "SELECT COUNT(*) FROM sig.k20 a, sig.k20 b")
    wait_running(c, runner.thread_id(), "k20 a")
    h.close_quietly(c)
    sigterm_ends(srv, run, "the running SELECT at SIGTERM")
    h.close_quietly(runner)
    srv2 = _servers.start("hostile-intr-sigterm", datadir=datadir)
    c = h.root(port=srv2.port)
    try:
        assert h.query(c, "SELECT a, b FROM sig.committed ORDER BY a") == ((1, "one"), (2, "two"))
        assert h.scalar(c, "SELECT COUNT(*) FROM sig.k20") == ROWS
    finally:
        h.close_quietly(c)
        srv2.terminate(10)


def test_sigterm_with_a_session_waiting_for_a_lock():
    """A statement waiting for another session's FLUSH TABLES WITH READ
    LOCK does not hold up shutdown."""
    srv = _servers.start("hostile-intr-sigterm-ftwrl")
    holder, victim = h.root(port=srv.port), h.root(port=srv.port)
    h.query(holder, "CREATE DATABASE w")
    h.query(holder, "CREATE TABLE w.t (a INT PRIMARY KEY)")
    h.query(holder, "FLUSH TABLES WITH READ LOCK")
    run = Running(victim, "INSERT INTO w.t VALUES (1)")
    wait_running(holder, victim.thread_id(), "INSERT INTO w.t")
    sigterm_ends(srv, run, "the waiting INSERT at SIGTERM")
    h.close_quietly(holder)
    h.close_quietly(victim)


if __name__ == "__main__":
    h.main(globals())
