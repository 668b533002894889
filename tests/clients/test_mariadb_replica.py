"""A MariaDB 10.11 replica follows sluiced (issue 7).

A private sluiced (the primary) and a private MariaDB server from Debian's
mariadb-server (the replica, server_id 2, no binlog of its own) run on
127.0.0.1. The replica is pointed at sluiced with

    CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=<sluiced>,
      MASTER_USER='repl', MASTER_PASSWORD='pw',
      MASTER_LOG_FILE='binlog.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no;
    START SLAVE;

through an account created as the README says for MariaDB replicas
(IDENTIFIED WITH mysql_native_password; REPLICATION SLAVE, REPLICATION
CLIENT). Its IO thread runs MariaDB's setup queries (SELECT UNIX_TIMESTAMP(),
SHOW VARIABLES LIKE 'SERVER_ID', SET @master_heartbeat_period,
SET @master_binlog_checksum= @@global.binlog_checksum, SELECT
@master_binlog_checksum, SET @mariadb_slave_capability=4, SELECT
binlog_gtid_pos(...) whose error it ignores), registers, and streams with
COM_BINLOG_DUMP; its SQL thread applies sluiced's MySQL 8.0 events (GTID
events are ignorable to MariaDB; Query, Table_map, Write/Update/Delete_rows
v2, Xid).

MariaDB 10.11 does not know MySQL 8's default collation utf8mb4_0900_ai_ci
(id 255): a Query event carrying it in its CHARSET status variable stops the
SQL thread. So, as a user replicating to MariaDB does (clients.md), the
primary is made MariaDB-compatible before anything is written:
SET GLOBAL collation_server / collation_connection = 'utf8mb4_general_ci'
(sysbench sends no SET NAMES; its handshake names utf8mb4_general_ci, id
45), and our own sessions run SET NAMES utf8mb4 COLLATE utf8mb4_general_ci.

Tests: the replica's IO thread connects and streams; every column type
test_binlog.py writes replicates with the same values; a sysbench
oltp_read_write load (prepare, then --time, 4 threads, 2 tables of 1000
rows) replicates, and once the replica has executed up to sluiced's SHOW
MASTER STATUS position, every sbtest table hashes the same on both sides
(every row, ORDER BY id, hashed here in Python: sluiced has no CHECKSUM
TABLE). When the replica stops, its Last_IO_Error / Last_SQL_Error are
reported verbatim. Every wait is a bounded poll that fails when the
replica stops making progress; nothing asserts a time.

REPLICA_SYSBENCH_TIME (default 20) sets the length of the sysbench run;
REPLICA_SLUICED_ARGS adds options to the primary's command line (diagnosis,
e.g. --default-authentication-plugin=mysql_native_password).
"""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import time

import pymysql
import pymysql.cursors

import column_types
import harness as h

SYSBENCH_TIME = int(os.environ.get("REPLICA_SYSBENCH_TIME", "20"))
COLLATION = "utf8mb4_general_ci"   # a utf8mb4 collation MariaDB 10.11 knows (id 45)
REPL_USER, REPL_PASSWORD = "repl", "pw"


def find_tool(*names):
    for n in names:
        p = shutil.which(n) or (os.path.exists("/usr/sbin/" + n) and "/usr/sbin/" + n)
        if p:
            return p
    return None


MARIADBD = find_tool("mariadbd", "mysqld")
INSTALL_DB = find_tool("mariadb-install-db", "mysql_install_db")
SYSBENCH = shutil.which("sysbench")


# --------------------------------------------------------------------------
# A private MariaDB server (the replica)

class MariaDB:
    def __init__(self, base, server_id=2):
        self.base = base
        self.datadir = os.path.join(base, "data")
        self.port = h.free_port()
        self.sock = os.path.join(base, "mariadb.sock")
        self.log = os.path.join(base, "mariadb.err")
        self.server_id = server_id
        self.proc = None
        self.out = None

    def start(self):
        assert MARIADBD and INSTALL_DB, ("mariadb-server is not installed (mariadbd, mariadb-install-db; "
                                         "scripts/deps.sh installs it)")
        os.makedirs(self.base, exist_ok=True)
        user = pwd_name()
        rc, out, err = h.run_cmd([INSTALL_DB, "--no-defaults", f"--datadir={self.datadir}", f"--user={user}",
                                  "--auth-root-authentication-method=normal", "--skip-test-db"], timeout=180)
        assert rc == 0, f"mariadb-install-db failed ({rc}):\n{out[-2000:]}\n{err[-2000:]}"
        argv = [MARIADBD, "--no-defaults", f"--datadir={self.datadir}", f"--port={self.port}",
                f"--bind-address={h.HOST}", f"--socket={self.sock}", f"--user={user}",
                f"--pid-file={os.path.join(self.base, 'mariadb.pid')}", f"--log-error={self.log}",
                f"--tmpdir={self.base}", f"--server-id={self.server_id}", "--skip-log-bin",
                "--skip-name-resolve", "--skip-slave-start",
                f"--relay-log={os.path.join(self.base, 'relay')}",
                "--character-set-server=utf8mb4", f"--collation-server={COLLATION}",
                "--innodb-buffer-pool-size=64M", "--innodb-flush-log-at-trx-commit=2",
                "--max-connections=50", "--log-warnings=2"]
        self.out = open(os.path.join(self.base, "mariadb.out"), "ab")
        self.proc = subprocess.Popen(argv, stdout=self.out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        last = None
        for _ in range(300):  # up to ~60 s
            if self.proc.poll() is not None:
                raise AssertionError(f"mariadbd exited with {self.proc.returncode} during start; "
                                     f"log tail:\n{self.log_tail()}")
            try:
                self.connect().close()
                return self
            except Exception as e:  # noqa: BLE001
                last = e
            time.sleep(0.2)
        raise AssertionError(f"mariadbd on port {self.port} not ready: {last!r}; log tail:\n{self.log_tail()}")

    def connect(self, **kw):
        return pymysql.connect(host=h.HOST, port=self.port, user="root", password="", autocommit=True,
                               connect_timeout=h.TIMEOUT, read_timeout=60, write_timeout=60, **kw)

    def log_tail(self, n=30):
        try:
            with open(self.log, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError as e:
            return f"(no log: {e})"

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def pwd_name():
    import pwd
    return pwd.getpwuid(os.getuid()).pw_name


# --------------------------------------------------------------------------
# Shared state

S = {}  # "primary": h.Server, "replica": MariaDB, "first_file": str


def primary(**kw):
    """A root connection to sluiced whose writes MariaDB can apply."""
    c = h.root(port=S["primary"].port, **kw)
    h.query(c, f"SET NAMES utf8mb4 COLLATE {COLLATION}")
    return c


def slave_status(m):
    with m.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute("SHOW SLAVE STATUS")
        return cur.fetchone()


def describe(st):
    if not st:
        return "(no slave status)"
    keys = ["Slave_IO_State", "Slave_IO_Running", "Slave_SQL_Running", "Master_Log_File",
            "Read_Master_Log_Pos", "Relay_Master_Log_File", "Exec_Master_Log_Pos",
            "Last_IO_Errno", "Last_IO_Error", "Last_SQL_Errno", "Last_SQL_Error"]
    return "; ".join(f"{k}={st.get(k)!r}" for k in keys)


def replica_errors(st):
    """The replica's errors verbatim, or None while both threads are healthy."""
    if st is None:
        return "SHOW SLAVE STATUS is empty"
    errs = []
    if st.get("Last_IO_Errno"):
        errs.append(f"Last_IO_Error ({st['Last_IO_Errno']}): {st['Last_IO_Error']}")
    if st.get("Last_SQL_Errno") or st.get("Last_Errno"):
        errs.append(f"Last_SQL_Error ({st.get('Last_SQL_Errno') or st.get('Last_Errno')}): "
                    f"{st.get('Last_SQL_Error') or st.get('Last_Error')}")
    if st.get("Slave_SQL_Running") != "Yes":
        errs.append(f"Slave_SQL_Running={st.get('Slave_SQL_Running')}")
    if st.get("Slave_IO_Running") == "No":
        errs.append("Slave_IO_Running=No")
    return "; ".join(errs) or None


def master_position():
    c = h.root(port=S["primary"].port)
    try:
        rows = h.query(c, "SHOW MASTER STATUS")
        assert rows, "SHOW MASTER STATUS returned no row"
        return rows[0][0], int(rows[0][1])
    finally:
        h.close_quietly(c)


def wait_caught_up(what, stall_polls=240, max_polls=1200, interval=0.25):
    """Polls SHOW SLAVE STATUS until the replica executed up to sluiced's
    current SHOW MASTER STATUS position. Fails at once when a replication
    thread stops with an error, and after stall_polls polls without any
    progress (max_polls bounds the whole wait)."""
    file, pos = master_position()
    m = S["replica"].connect()
    try:
        last_key, still = None, 0
        st = None
        for _ in range(max_polls):
            st = slave_status(m)
            err = replica_errors(st)
            if err:
                raise AssertionError(f"{what}: the replica stopped: {err}\n  status: {describe(st)}\n"
                                     f"  replica log tail:\n{S['replica'].log_tail(15)}\n"
                                     f"  sluiced log tail:\n{S['primary'].log_tail(15)}")
            if (st["Relay_Master_Log_File"] == file and int(st["Exec_Master_Log_Pos"]) >= pos
                    and st["Slave_IO_Running"] == "Yes"):
                return st
            key = (st["Master_Log_File"], st["Read_Master_Log_Pos"], st["Relay_Master_Log_File"],
                   st["Exec_Master_Log_Pos"], st["Slave_IO_Running"])
            if key == last_key:
                still += 1
                if still >= stall_polls:
                    break
            else:
                last_key, still = key, 0
            time.sleep(interval)
        raise AssertionError(f"{what}: the replica did not reach sluiced's {file}:{pos} "
                             f"(no progress for {still} polls): {describe(st)}")
    finally:
        h.close_quietly(m)


def table_digest(conn, db, table, order="id"):
    """(row count, sha256 over every row in primary-key order)."""
    digest = hashlib.sha256()
    n = 0
    with conn.cursor(pymysql.cursors.SSCursor) as cur:
        cur.execute(f"SELECT * FROM `{db}`.`{table}` ORDER BY {order}")
        for row in cur:
            digest.update(repr(tuple(row)).encode())
            n += 1
    return n, digest.hexdigest()


# --------------------------------------------------------------------------

def setup_module():
    base = h.temp_dir("mariadb-replica")
    os.makedirs(base, exist_ok=True)
    S["base"] = base
    srv = h.Server(os.path.join(base, "sluiced"),
                   extra=["--server-id=1"] + os.environ.get("REPLICA_SLUICED_ARGS", "").split())
    S["primary"] = srv
    srv.start()
    c = h.root(port=srv.port)
    try:
        h.query(c, f"CREATE USER '{REPL_USER}'@'%' IDENTIFIED WITH mysql_native_password BY '{REPL_PASSWORD}'")
        h.query(c, f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO '{REPL_USER}'@'%'")
        # MariaDB-compatible collation ids in every Query event (see above).
        h.query(c, f"SET GLOBAL collation_server = '{COLLATION}'")
        h.query(c, f"SET GLOBAL collation_connection = '{COLLATION}'")
        logs = h.query(c, "SHOW BINARY LOGS")
        assert logs, "SHOW BINARY LOGS is empty"
        S["first_file"] = logs[0][0]
    finally:
        h.close_quietly(c)
    S["replica"] = MariaDB(os.path.join(base, "mariadb")).start()
    m = S["replica"].connect()
    try:
        h.query(m, f"CHANGE MASTER TO MASTER_HOST='{h.HOST}', MASTER_PORT={srv.port}, "
                   f"MASTER_USER='{REPL_USER}', MASTER_PASSWORD='{REPL_PASSWORD}', "
                   f"MASTER_LOG_FILE='{S['first_file']}', MASTER_LOG_POS=4, MASTER_USE_GTID=no, "
                   "MASTER_CONNECT_RETRY=2, MASTER_HEARTBEAT_PERIOD=1")
        h.query(m, "START SLAVE")
    finally:
        h.close_quietly(m)


def teardown_module():
    rep = S.get("replica")
    if rep is not None:
        try:
            m = rep.connect()
            h.query(m, "STOP SLAVE")
            m.close()
        except Exception:  # noqa: BLE001
            pass
        rep.stop()
    srv = S.get("primary")
    if srv is not None:
        srv.terminate()
    if S.get("base") and os.environ.get("KEEP_TMP") != "1":
        shutil.rmtree(S["base"], ignore_errors=True)


def test_replica_connects_and_streams():
    """The IO thread gets through MariaDB's setup queries and COM_BINLOG_DUMP:
    it runs (Slave_IO_Running=Yes), knows sluiced's server id, and has read
    past the Format_description of the first file."""
    m = S["replica"].connect()
    try:
        def running():
            st = slave_status(m)
            if st and st["Slave_IO_Running"] == "Yes" and int(st["Read_Master_Log_Pos"]) > 4:
                return st
            if st and st.get("Last_IO_Errno"):
                raise AssertionError(f"the replica's IO thread failed: Last_IO_Error ({st['Last_IO_Errno']}): "
                                     f"{st['Last_IO_Error']}\n  status: {describe(st)}\n"
                                     f"  sluiced log tail:\n{S['primary'].log_tail(15)}")
            return None
        st = h.bounded_poll(running, rounds=150, interval=0.2, what="replica IO thread running")
        assert int(st["Master_Server_Id"]) == 1, describe(st)
        assert st["Master_Log_File"] == S["first_file"], describe(st)
    finally:
        h.close_quietly(m)
    # sluiced sees the replica registered (COM_REGISTER_SLAVE).
    c = h.root(port=S["primary"].port)
    try:
        hosts = h.query(c, "SHOW SLAVE HOSTS")
        assert any(int(r[0]) == 2 for r in hosts), f"SHOW SLAVE HOSTS: {hosts!r}"
    finally:
        h.close_quietly(c)
    wait_caught_up("replica start")


ALL_TYPES = column_types.all_types_table("rt")

ROWS = [
    column_types.ROW,
    "(2, 127, 32767, 8388607, 2147483647, 9223372036854775807, 0, 0, 0.00, -0.0000000001, -0.5, 1e300, "
    "'', 'ünïcødé € 😀', x'00ff', x'', '', REPEAT('t', 600), REPEAT('m', 1200), 'ok', x'00', "
    "REPEAT(x'ab', 800), x'', x'0102', '1000-01-01', '838:59:59', '00:00:00.001', "
    "'9999-12-31 23:59:59', '1000-01-01 00:00:00.000000', '2038-01-19 03:14:07.99', 1901, 'red', 5)",
    "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
    "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
]


def test_column_types_replicate():
    """Every column type's row image (INSERT, UPDATE before/after, DELETE,
    NULLs, multi-byte text, values of a few KB: sluiced keeps a record
    under 4000 bytes so far) is applied by MariaDB to the same
    values."""
    c = primary()
    try:
        h.query(c, "SET time_zone = '+00:00'")
        h.query(c, "CREATE DATABASE rt")
        h.query(c, ALL_TYPES)
        for r in ROWS:
            h.query(c, "INSERT INTO rt.types VALUES " + r)
        h.query(c, "INSERT INTO rt.types SELECT id + 10, ti, si, mi, i, bi, tu, bu, de, de2, fl, db, ch, vc, bn, "
                   "vb, tt, tx, mt, lt, tb, bl, mb, lb, da, tm, tm3, dt, dt6, ts, yr, en, nn FROM rt.types")
        h.query(c, "UPDATE rt.types SET vc = 'short', nn = 7, tx = NULL, bu = bu - 1 WHERE id IN (1, 11)")
        h.query(c, "UPDATE rt.types SET en = 'green', ti = 1 WHERE id = 3")
        h.query(c, "DELETE FROM rt.types WHERE id IN (2, 13)")
        h.query(c, "BEGIN")
        h.query(c, "INSERT INTO rt.types (id, vc) VALUES (20, 'in a transaction')")
        h.query(c, "UPDATE rt.types SET vc = 'twice' WHERE id = 20")
        h.query(c, "COMMIT")
        h.query(c, "BEGIN")
        h.query(c, "INSERT INTO rt.types (id, vc) VALUES (21, 'rolled back')")
        h.query(c, "ROLLBACK")
        want = h.query(c, "SELECT * FROM rt.types ORDER BY id")
    finally:
        h.close_quietly(c)
    assert [r[0] for r in want] == [1, 3, 11, 12, 20], want
    wait_caught_up("column types")
    m = S["replica"].connect()
    try:
        h.query(m, "SET time_zone = '+00:00'")
        got = h.query(m, "SELECT * FROM rt.types ORDER BY id")
    finally:
        h.close_quietly(m)
    assert len(got) == len(want), (len(got), len(want))
    for w, g in zip(want, got):
        for col, (a, b) in enumerate(zip(w, g)):
            assert a == b, f"row id {w[0]} column {col + 1}: sluiced {a!r}, replica {b!r}"


def test_checks_and_generated_columns_replicate():
    """A table with CHECK constraints and VIRTUAL and STORED generated
    columns (issue 18): the replica creates it from the logged CREATE,
    applies the row events (generated values included) and holds the same
    rows; a row the CHECK refuses never reaches it."""
    c = primary()
    try:
        h.query(c, "CREATE DATABASE gc")
        h.query(c, "CREATE TABLE gc.t (id INT PRIMARY KEY, a INT, b INT, s INT AS (a + b) VIRTUAL, "
                   "v VARCHAR(30) AS (CONCAT(a, ':', b)) STORED, CONSTRAINT a_pos CHECK (a > 0), KEY (s))")
        h.query(c, "INSERT INTO gc.t (id, a, b) VALUES (1, 1, 2), (2, 3, 4), (3, 5, 6)")
        h.expect_error([3819], h.query, c, "INSERT INTO gc.t (id, a, b) VALUES (4, -1, 0)")
        h.query(c, "UPDATE gc.t SET b = b * 10 WHERE id >= 2")
        h.query(c, "DELETE FROM gc.t WHERE id = 1")
        want = h.query(c, "SELECT id, a, b, s, v FROM gc.t ORDER BY id")
    finally:
        h.close_quietly(c)
    assert [tuple(r) for r in want] == [(2, 3, 40, 43, "3:40"), (3, 5, 60, 65, "5:60")], want
    wait_caught_up("checks and generated columns")
    m = S["replica"].connect()
    try:
        got = h.query(m, "SELECT id, a, b, s, v FROM gc.t ORDER BY id")
        by_index = h.query(m, "SELECT id FROM gc.t WHERE s = 65")
    finally:
        h.close_quietly(m)
    assert [tuple(r) for r in got] == [tuple(r) for r in want], (got, want)
    assert [r[0] for r in by_index] == [3], by_index


def test_case_insensitive_keys_stay_in_sync():
    """Keys compare under the column's collation (issue 18): a
    case-insensitive PRIMARY KEY refuses 'bob' after 'Bob' with 1062, a PAD
    SPACE UNIQUE key refuses 'xyz ' after 'xyz', and the replica, which
    compares the same way, applies every row the primary took and stays
    running."""
    c = primary()
    try:
        h.query(c, "CREATE DATABASE ck")
        h.query(c, f"CREATE TABLE ck.u (e VARCHAR(50) COLLATE {COLLATION} PRIMARY KEY, "
                   f"m VARCHAR(50) COLLATE {COLLATION}, UNIQUE KEY (m))")
        h.query(c, "INSERT INTO ck.u VALUES ('Bob', 'xyz')")
        h.expect_error([1062], h.query, c, "INSERT INTO ck.u VALUES ('bob', 'other')")
        h.expect_error([1062], h.query, c, "INSERT INTO ck.u VALUES ('Ann', 'XYZ ')")
        h.query(c, "INSERT INTO ck.u VALUES ('Ann', 'abc')")
        h.query(c, "REPLACE INTO ck.u VALUES ('BOB', 'XYZ')")
        h.query(c, "UPDATE ck.u SET m = 'ABC!' WHERE e = 'ann'")
        want = h.query(c, "SELECT e, m FROM ck.u ORDER BY e")
    finally:
        h.close_quietly(c)
    assert [tuple(r) for r in want] == [("Ann", "ABC!"), ("BOB", "XYZ")], want
    wait_caught_up("case-insensitive keys")
    m = S["replica"].connect()
    try:
        got = h.query(m, "SELECT e, m FROM ck.u ORDER BY e")
    finally:
        h.close_quietly(m)
    assert [tuple(r) for r in got] == [tuple(r) for r in want], (got, want)


def test_large_values_replicate():
    """Rows stored off the page (issue 18): a 16 MiB LONGBLOB inserted and
    then grown by one byte, a 300 KB one and a deleted one reach the
    replica intact (its IO thread takes events up to slave_max_allowed_packet,
    1 GiB by default)."""
    unit = bytes(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[(i * 11) % 62]
                 for i in range(4093))
    v1 = (unit * ((16 << 20) // len(unit) + 1))[:16 << 20]
    c = primary(max_allowed_packet=64 << 20, read_timeout=120, write_timeout=120)
    try:
        h.query(c, "CREATE DATABASE lv")
        h.query(c, "CREATE TABLE lv.t (id INT PRIMARY KEY, b LONGBLOB)")
        h.query(c, "INSERT INTO lv.t VALUES (1, %s)", (v1,))
        h.query(c, "INSERT INTO lv.t VALUES (2, REPEAT('x', 300000)), (3, REPEAT('y', 100000))")
        h.query(c, "UPDATE lv.t SET b = CONCAT(b, '!') WHERE id = 1")
        h.query(c, "DELETE FROM lv.t WHERE id = 3")
        want = h.query(c, "SELECT id, LENGTH(b), MD5(b) FROM lv.t ORDER BY id")
    finally:
        h.close_quietly(c)
    assert [tuple(r) for r in want] == [(1, (16 << 20) + 1, hashlib.md5(v1 + b"!").hexdigest()),
                                        (2, 300000, hashlib.md5(b"x" * 300000).hexdigest())], want
    wait_caught_up("large values")
    m = S["replica"].connect()
    try:
        got = h.query(m, "SELECT id, LENGTH(b), MD5(b) FROM lv.t ORDER BY id")
    finally:
        h.close_quietly(m)
    assert [tuple(r) for r in got] == [tuple(r) for r in want], (got, want)


def test_wide_decimals_replicate():
    """DECIMAL exact to 65 digits (issue 18): the widest DECIMAL(65,30) and
    DECIMAL(65,0) values, their negatives, and values an UPDATE computed in
    65-digit arithmetic reach MariaDB as the same numbers."""
    nines = "9" * 35 + "." + "9" * 30
    c = primary()
    try:
        h.query(c, "CREATE DATABASE dw")
        h.query(c, "CREATE TABLE dw.t (id INT PRIMARY KEY, b DECIMAL(65,30), a DECIMAL(65,0), c DECIMAL(40,10))")
        h.query(c, f"INSERT INTO dw.t VALUES (1, {nines}, {'9' * 65}, {'9' * 30}.5), "
                   f"(2, -{nines}, -{'9' * 65}, -0.0000000001), "
                   "(3, 0.000000000000000000000000000001, 1234567890123456789012345678901234567890, 0)")
        h.query(c, "UPDATE dw.t SET a = a * 98765432109876543210 + 1, b = b / 7, c = c - 1 WHERE id = 3")
        want = h.query(c, "SELECT id, CAST(b AS CHAR), CAST(a AS CHAR), CAST(c AS CHAR) FROM dw.t ORDER BY id")
    finally:
        h.close_quietly(c)
    assert want[2][2] == "121932631137021795224965706422496570642237463801111263526901", want
    wait_caught_up("wide decimals")
    m = S["replica"].connect()
    try:
        got = h.query(m, "SELECT id, CAST(b AS CHAR), CAST(a AS CHAR), CAST(c AS CHAR) FROM dw.t ORDER BY id")
    finally:
        h.close_quietly(m)
    assert [tuple(r) for r in got] == [tuple(r) for r in want], (got, want)


def test_json_replicates():
    """JSON (issue 18): MariaDB has no JSON type and its SQL thread stops at
    MySQL's type 245, so sluiced sends a MariaDB replica JSON columns as
    LONGBLOB and each document as MySQL's text form (MariaDB's JSON column
    is LONGTEXT with JSON_VALID). Documents of every kind, a 100 KB one,
    updates and deletes arrive as the text sluiced returns for them; an
    array of doubles, longer as text than in binary, goes in MariaDB's
    compressed rows event. The replica's positions stay sluiced's own
    (Read_Master_Log_Pos equals SHOW MASTER STATUS), so it reconnects at
    the right event after STOP / START SLAVE IO_THREAD."""
    docs = [
        (1, '{"b": [true, "x", null], "a": 1, "f": 2.5, "neg": -70000, "big": 4294967296}'),
        (2, '[1, -70000, 4294967296, 18446744073709551615, "s\\u00e9\\n\\"q\\"", {}, []]'),
        (3, None),
        (4, '"just a string"'),
        (5, "false"),
        (6, json.dumps([round((i * 7919 % 10007) / 10007.0 + i, 13) for i in range(300)])),
    ]
    c = primary(max_allowed_packet=64 << 20)
    try:
        h.query(c, "CREATE DATABASE js")
        h.query(c, "CREATE TABLE js.t (id INT PRIMARY KEY, doc JSON, note VARCHAR(20))")
        for i, d in docs:
            h.query(c, "INSERT INTO js.t VALUES (%s, %s, 'n')", (i, d))
        h.query(c, "INSERT INTO js.t VALUES (7, JSON_OBJECT('big', REPEAT('x', 100000), 'n', 70000), 'big')")
        h.query(c, "UPDATE js.t SET doc = JSON_SET(doc, '$.a', 'changed') WHERE id = 1")
        h.query(c, "UPDATE js.t SET note = 'other column' WHERE id = 2")
        h.query(c, "DELETE FROM js.t WHERE id = 5")
        # A table without JSON in the same transaction keeps its events as they are.
        h.query(c, "CREATE TABLE js.plain (id INT PRIMARY KEY, v VARCHAR(10))")
        h.query(c, "BEGIN")
        h.query(c, "INSERT INTO js.plain VALUES (1, 'p')")
        h.query(c, "INSERT INTO js.t VALUES (8, '{\"in\": \"txn\"}', 'txn')")
        h.query(c, "COMMIT")
        want = h.query(c, "SELECT id, CAST(doc AS CHAR), note FROM js.t ORDER BY id")
    finally:
        h.close_quietly(c)
    assert [r[0] for r in want] == [1, 2, 3, 4, 6, 7, 8], want
    st = wait_caught_up("json")
    file, pos = master_position()
    assert (st["Master_Log_File"], int(st["Read_Master_Log_Pos"])) == (file, pos), describe(st)
    m = S["replica"].connect()
    try:
        got = h.query(m, "SELECT id, doc, note FROM js.t ORDER BY id")
        assert h.query(m, "SELECT * FROM js.plain") == ((1, "p"),)
        # A document longer as text than in binary (its 17-digit double and
        # 10-digit integer): the replica's IO position runs a few bytes ahead
        # of sluiced's until the next transaction.
        c = primary()
        try:
            h.query(c, "INSERT INTO js.t VALUES (10, '{\"d\": 0.30000000000000004, \"i\": 4294967296}', 'ahead')")
            want10 = h.query(c, "SELECT id, CAST(doc AS CHAR), note FROM js.t WHERE id = 10")
        finally:
            h.close_quietly(c)
        st = wait_caught_up("json ahead")
        file, pos = master_position()
        ahead = int(st["Read_Master_Log_Pos"]) - pos
        assert st["Master_Log_File"] == file and 0 < ahead <= 26, describe(st)
        assert int(st["Exec_Master_Log_Pos"]) == pos, describe(st)
        # Heartbeats (every second) carry that position: the replica keeps going.
        time.sleep(2.5)
        st = wait_caught_up("json heartbeats while ahead")
        assert int(st["Read_Master_Log_Pos"]) - pos == ahead, describe(st)
        # Reconnecting from there resumes at the event after the last one it has.
        h.query(m, "STOP SLAVE IO_THREAD")
        c = primary()
        try:
            h.query(c, "INSERT INTO js.t VALUES (9, JSON_ARRAY(1, 'after', JSON_OBJECT('k', 2.5)), 'later')")
            want9 = h.query(c, "SELECT id, CAST(doc AS CHAR), note FROM js.t WHERE id = 9")
        finally:
            h.close_quietly(c)
        h.query(m, "START SLAVE IO_THREAD")
        st = wait_caught_up("json after reconnect")
        file, pos = master_position()
        assert (st["Master_Log_File"], int(st["Read_Master_Log_Pos"])) == (file, pos), describe(st)
        got10 = h.query(m, "SELECT id, doc, note FROM js.t WHERE id = 10")
        got9 = h.query(m, "SELECT id, doc, note FROM js.t WHERE id = 9")
        valid = h.query(m, "SELECT COUNT(*) FROM js.t WHERE JSON_VALID(doc)")
    finally:
        h.close_quietly(m)
    got = [tuple(r) for r in got]
    want = [tuple(r) for r in want]
    for w, g in zip(want, got):
        assert w == g, (str(w)[:300], str(g)[:300])
    assert len(got) == len(want)
    assert [tuple(r) for r in got9] == [tuple(r) for r in want9], (got9, want9)
    assert [tuple(r) for r in got10] == [tuple(r) for r in want10], (got10, want10)
    assert valid[0][0] == 8, valid  # every non-NULL document


FK_TABLES = {"p": "id", "cc": "id", "gc": "id", "sn": "id", "rs": "id"}


def test_foreign_keys_replicate():
    """FOREIGN KEYs (issue 18): the replica creates the keys from the logged
    CREATE TABLEs and, since sluiced logs only the parent's row changes (as
    MySQL 8.0 does), cascades ON DELETE / ON UPDATE CASCADE (two levels) and
    SET NULL itself; a statement RESTRICT refuses (1451) never reaches it;
    rows written with foreign_key_checks=0 (an orphan child, a parent delete
    that cascades nothing) carry NO_FOREIGN_KEY_CHECKS_F and are applied
    unchecked. Both sides end with the same rows and the SQL thread runs."""
    c = primary()
    try:
        h.query(c, "CREATE DATABASE fkr")
        h.query(c, "CREATE TABLE fkr.p (id INT PRIMARY KEY, name VARCHAR(20))")
        h.query(c, "CREATE TABLE fkr.cc (id INT PRIMARY KEY, pid INT, "
                   "FOREIGN KEY (pid) REFERENCES fkr.p (id) ON DELETE CASCADE ON UPDATE CASCADE)")
        h.query(c, "CREATE TABLE fkr.gc (id INT PRIMARY KEY, cid INT, "
                   "FOREIGN KEY (cid) REFERENCES fkr.cc (id) ON DELETE CASCADE)")
        h.query(c, "CREATE TABLE fkr.sn (id INT PRIMARY KEY, pid INT, "
                   "FOREIGN KEY (pid) REFERENCES fkr.p (id) ON DELETE SET NULL ON UPDATE SET NULL)")
        h.query(c, "CREATE TABLE fkr.rs (id INT PRIMARY KEY, pid INT, "
                   "CONSTRAINT rs_fk FOREIGN KEY (pid) REFERENCES fkr.p (id) ON DELETE RESTRICT ON UPDATE RESTRICT)")
        h.query(c, "INSERT INTO fkr.p VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four'), (5, 'five')")
        h.query(c, "INSERT INTO fkr.cc VALUES (10, 1), (11, 1), (20, 2), (30, 3)")
        h.query(c, "INSERT INTO fkr.gc VALUES (100, 10), (200, 20)")
        h.query(c, "INSERT INTO fkr.sn VALUES (1, 1), (2, 2), (4, 4)")
        h.query(c, "INSERT INTO fkr.rs VALUES (1, 5)")
        # Cascades: cc 10, 11 and gc 100 go, sn 1 is set NULL; then a key
        # update moves cc 20 to 22 and sets sn 2 NULL.
        h.query(c, "DELETE FROM fkr.p WHERE id = 1")
        h.query(c, "UPDATE fkr.p SET id = 22 WHERE id = 2")
        # RESTRICT: refused whole, nothing logged.
        h.expect_error([1451], h.query, c, "DELETE FROM fkr.p WHERE id = 5")
        h.expect_error([1451], h.query, c, "UPDATE fkr.p SET id = 55 WHERE id = 5")
        # Unchecked: an orphan child, and a parent delete that cascades
        # nothing (cc 30 keeps its pid 3); the replica must not cascade it.
        h.query(c, "SET foreign_key_checks = 0")
        h.query(c, "INSERT INTO fkr.cc VALUES (90, 999)")
        h.query(c, "DELETE FROM fkr.p WHERE id = 3")
        h.query(c, "SET foreign_key_checks = 1")
        # A transaction mixing a SET NULL cascade with new rows.
        h.query(c, "BEGIN")
        h.query(c, "DELETE FROM fkr.p WHERE id = 4")
        h.query(c, "INSERT INTO fkr.p VALUES (7, 'seven')")
        h.query(c, "INSERT INTO fkr.cc VALUES (70, 7)")
        h.query(c, "INSERT INTO fkr.gc VALUES (700, 70)")
        h.query(c, "COMMIT")
        want = {t: h.query(c, f"SELECT * FROM fkr.{t} ORDER BY {k}") for t, k in FK_TABLES.items()}
    finally:
        h.close_quietly(c)
    assert [tuple(r) for r in want["p"]] == [(5, "five"), (7, "seven"), (22, "two")], want["p"]
    assert [tuple(r) for r in want["cc"]] == [(20, 22), (30, 3), (70, 7), (90, 999)], want["cc"]
    assert [tuple(r) for r in want["gc"]] == [(200, 20), (700, 70)], want["gc"]
    assert [tuple(r) for r in want["sn"]] == [(1, None), (2, None), (4, None)], want["sn"]
    assert [tuple(r) for r in want["rs"]] == [(1, 5)], want["rs"]
    wait_caught_up("foreign keys")
    m = S["replica"].connect()
    try:
        st = slave_status(m)
        assert replica_errors(st) is None and st["Slave_SQL_Running"] == "Yes", describe(st)
        got = {t: h.query(m, f"SELECT * FROM fkr.{t} ORDER BY {k}") for t, k in FK_TABLES.items()}
        # The replica has the keys itself (it cascades with them).
        keys = h.query(m, "SELECT TABLE_NAME, DELETE_RULE, UPDATE_RULE FROM INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS "
                          "WHERE CONSTRAINT_SCHEMA = 'fkr' ORDER BY TABLE_NAME")
    finally:
        h.close_quietly(m)
    for t in FK_TABLES:
        assert [tuple(r) for r in got[t]] == [tuple(r) for r in want[t]], \
            f"fkr.{t}: sluiced {want[t]}, replica {got[t]}"
    assert [tuple(r) for r in keys] == [("cc", "CASCADE", "CASCADE"), ("gc", "CASCADE", "RESTRICT"),
                                        ("rs", "RESTRICT", "RESTRICT"), ("sn", "SET NULL", "SET NULL")], keys


def sysbench(command, *extra):
    cmd = [SYSBENCH, "oltp_read_write", "--db-driver=mysql", f"--mysql-host={h.HOST}",
           f"--mysql-port={S['primary'].port}", "--mysql-user=root", "--mysql-password=",
           "--mysql-db=sbtest", "--tables=2", "--table-size=1000", "--threads=4",
           "--mysql-ignore-errors=1213,1205"] + list(extra) + [command]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=SYSBENCH_TIME + 240)
    out = p.stdout + p.stderr
    assert p.returncode == 0 and "FATAL" not in out, f"sysbench {command} failed ({p.returncode}):\n{out[-3000:]}"
    return out


def test_sysbench_load_replicates():
    """sysbench oltp_read_write against sluiced; the replica applies all of it
    and both sides hold the same rows."""
    assert SYSBENCH, "sysbench is not installed (scripts/deps.sh installs it)"
    c = primary()
    try:
        h.query(c, "CREATE DATABASE sbtest")
    finally:
        h.close_quietly(c)
    sysbench("prepare")
    out = sysbench("run", f"--time={SYSBENCH_TIME}", "--report-interval=0")
    for line in out.splitlines():
        if "transactions:" in line or "ignored errors:" in line:
            h.note("sysbench " + line.strip())
    st = wait_caught_up("sysbench load")
    h.note(f"replica at {st['Relay_Master_Log_File']}:{st['Exec_Master_Log_Pos']}")
    c = h.root(port=S["primary"].port)
    m = S["replica"].connect()
    try:
        tables = sorted(r[0] for r in h.query(c, "SHOW TABLES FROM sbtest"))
        assert tables == ["sbtest1", "sbtest2"], tables
        assert sorted(r[0] for r in h.query(m, "SHOW TABLES FROM sbtest")) == tables
        for t in tables:
            a = table_digest(c, "sbtest", t)
            b = table_digest(m, "sbtest", t)
            h.note(f"sbtest.{t}: sluiced {a[0]} rows {a[1][:16]}, replica {b[0]} rows {b[1][:16]}")
            assert a == b, f"sbtest.{t} differs: sluiced {a}, replica {b}"
        # The replica's own view: nothing left to apply, no error.
        st = slave_status(m)
        assert replica_errors(st) is None, describe(st)
    finally:
        h.close_quietly(c)
        h.close_quietly(m)


if __name__ == "__main__":
    h.main(globals())
