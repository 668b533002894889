#!/usr/bin/env python3
"""Regenerates the seed corpora in fuzz/corpus/<target>/ (docs/fuzzing.md).

    .venv/bin/python fuzz/seeds.py [--sluiced build/bin/sluiced]

- sql:      statements of the mysql-test suites (mysql-test/suite/*/t/*.test),
            a few constant expressions written here, and the COM_QUERY texts
            the real clients below sent;
- protocol: what real clients sent before login (HandshakeResponse41,
            auth switch / AuthMoreData replies) and their raw byte streams for
            the framing mode, captured by a proxy between the clients and a
            private sluiced;
- command:  the commands the same clients sent after login (COM_STMT_* from
            mysql-connector-python's prepared statements, COM_CHANGE_USER,
            COM_INIT_DB, COM_PROCESS_KILL, COM_REGISTER_SLAVE and
            COM_BINLOG_DUMP(_GTID) from python-mysql-replication and
            mariadb-binlog ...);
- exec:     EXEC_SEEDS below, statements over fuzz_exec's schema;
- binlog:   the private server's binlog files after that (and the sample
            files of sluice-binlog-samples when built), whole and split into
            events, each rows event with its Table_map.

Each file is named by the SHA-1 of its content (as libFuzzer names inputs),
so running it again only adds what changed. Inputs are the fuzz targets'
formats (see the header comment of each fuzz/fuzz_<target>.cc).
"""

import argparse
import datetime
import decimal
import glob
import hashlib
import io
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "clients"))

CORPUS = os.path.join(REPO, "fuzz", "corpus")


# fuzz_exec's seeds: statements over its schema (fuzz/fuzz_exec.cc: t1, t2
# and t3 in database fz), a feature or a few each; \x02 passes the turn
# to the other of its two sessions.
EXEC_SEEDS = [
    'ALTER TABLE t1 ADD COLUMN z INT DEFAULT 3 AFTER a, ADD INDEX kz (z, b)',
    'ALTER TABLE t1 MODIFY b VARCHAR(5)',
    'ALTER TABLE t2 DROP FOREIGN KEY t2_ibfk_1',
    "ALTER TABLE t3 ADD CONSTRAINT c2 CHECK (m <> 'zz'); INSERT INTO t3 (k, m) VALUES ('w', 'zz')",
    'ANALYZE TABLE t1; OPTIMIZE TABLE t1; CHECK TABLE t1',
    'BEGIN; INSERT INTO t1 (a) VALUES (10); SAVEPOINT s; UPDATE t1 SET a = 11; ROLLBACK TO SAVEPOINT s; COMMIT',
    'CREATE INDEX ke ON t1 (e(10)); SHOW INDEX FROM t1',
    'CREATE TABLE t4 LIKE t1; INSERT INTO t4 SELECT * FROM t1; RENAME TABLE t4 TO t5; TRUNCATE t5',
    'CREATE TABLE t6 (a INT, b INT AS (a * 2) VIRTUAL, PRIMARY KEY (a)) ; INSERT INTO t6 (a) VALUES (1), (2)',
    'CREATE TEMPORARY TABLE tt (x INT); INSERT INTO tt VALUES (1); SELECT * FROM tt',
    "CREATE USER u1 IDENTIFIED BY 'p'; GRANT SELECT ON fz.* TO u1; SHOW GRANTS FOR u1; DROP USER u1",
    'CREATE VIEW v AS SELECT a FROM t1',
    'DELETE FROM t1 WHERE id = 1',
    'DELETE FROM t1; SELECT COUNT(*) FROM t2',
    'DELETE t2 FROM t2 JOIN t1 ON t1.id = t2.p WHERE t1.a = 2',
    "DO GET_LOCK('l', 10), SLEEP(5); SELECT RELEASE_ALL_LOCKS()",
    'DROP TABLE t1',
    'EXPLAIN SELECT * FROM t1 WHERE a = 1',
    "FLUSH LOGS; PURGE BINARY LOGS TO 'binlog.000002'",
    'FLUSH TABLES WITH READ LOCK; SELECT 1; UNLOCK TABLES',
    'INSERT IGNORE INTO t2 (id, p) VALUES (8, 999), (9, 1)',
    "INSERT INTO t1 (a, b) VALUES (5, 'five'), (6, 'six') ON DUPLICATE KEY UPDATE a = VALUES(a) + 1",
    "INSERT INTO t1 (a, b, f) VALUES (7, 'one', '{}') ON DUPLICATE KEY UPDATE c = c * 2, f = JSON_SET(f, '$.x', 1)",
    'INSERT INTO t1 (id, a) VALUES (2147483647, 1); INSERT INTO t1 (a) VALUES (2)',
    "INSERT INTO t2 (id, p, s, t, u, v) SELECT id + 100, id, 'a', '12:00:00', 2000, CURDATE() FROM t1",
    "INSERT INTO t3 (k) VALUES (REPEAT('x', 40))",
    'KILL CONNECTION_ID()',
    'LOCK TABLES t1 WRITE, t2 READ; INSERT INTO t1 (a) VALUES (1); UNLOCK TABLES',
    "REPLACE INTO t3 (k, m) VALUES ('ABC', 'r')",
    'SELECT * FROM (SELECT a, b FROM t1 UNION SELECT w, y FROM t2) d ORDER BY 1',
    "SELECT * FROM information_schema.columns WHERE table_schema = 'fz'",
    'SELECT * FROM information_schema.key_column_usage WHERE table_schema = DATABASE()',
    'SELECT * FROM t1',
    "SELECT * FROM t1 WHERE (a, b) IN ((1, 'one'), (2, 'two')) AND c BETWEEN -5 AND 5 AND d > '2000-01-01'",
    "SELECT * FROM t1 WHERE b COLLATE utf8mb4_bin > 'a' ORDER BY e, f",
    'SELECT * FROM t1 WHERE id IN (SELECT p FROM t2) AND EXISTS (SELECT 1 FROM t3 WHERE n > a)',
    'SELECT * FROM t1 a, t1 b, t1 c, t2 d WHERE a.id <= b.id ORDER BY RAND() LIMIT 5',
    "SELECT * FROM t3 WHERE k = 'STRASSE' OR k LIKE 'a%' ORDER BY k",
    "SELECT CAST(f AS CHAR), f->>'$.k[0]', JSON_CONTAINS(f, '1', '$.k') FROM t1",
    'SELECT DISTINCT h, COUNT(DISTINCT a) FROM t1 GROUP BY h HAVING COUNT(*) > 0',
    'SELECT HEX(q), s, t + 0, u, v + INTERVAL 1 MONTH, y, z FROM t2',
    'SELECT JSON_OBJECTAGG(b, a), JSON_ARRAYAGG(f) FROM t1',
    "SELECT REGEXP_REPLACE(e, '(e+)', 'x'), REGEXP_LIKE(b, '^t') FROM t1",
    'SELECT SQL_CALC_FOUND_ROWS * FROM t1 LIMIT 1; SELECT FOUND_ROWS()',
    'SELECT a FROM t1 UNION ALL SELECT n FROM t3',
    'SELECT a, ROW_NUMBER() OVER (ORDER BY a), SUM(g) OVER (PARTITION BY h ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t1',
    "SELECT a, b, c + 1, d, JSON_EXTRACT(f, '$.k[2]') FROM t1 WHERE a > 1 ORDER BY b DESC LIMIT 2",
    'SELECT c / 0, a DIV 0, MOD(a, 0), POW(g, 100), -9223372036854775808 - 1 FROM t1',
    "SELECT t1.b, COUNT(*), SUM(c), GROUP_CONCAT(e ORDER BY id SEPARATOR '|') FROM t1 LEFT JOIN t2 ON t2.p = t1.id GROUP BY t1.b WITH ROLLUP",
    "SELECT t1.id, t2.id, t2.q FROM t1 JOIN t2 ON t2.p = t1.id WHERE t2.s <> ''",
    'SELECT x, CAST(x AS DECIMAL(20,10)), CAST(id AS SIGNED), id + 1 FROM t2',
    'SET @x = (SELECT MAX(id) FROM t1); SELECT @x, @@sql_mode, @@session.max_execution_time',
    'SET NAMES latin1; SELECT b, CHARSET(b), CONVERT(b USING utf8mb4) FROM t1',
    'SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE; SELECT * FROM t1; SET TRANSACTION READ ONLY; START TRANSACTION; INSERT INTO t1 (a) VALUES (1)',
    "SET autocommit = 0; INSERT INTO t3 (k) VALUES ('q'); SELECT * FROM t3; ROLLBACK",
    "SET sql_mode = ''; INSERT INTO t1 (a, c) VALUES ('abc', 'xyz'); SELECT * FROM t1",
    "SET sql_mode = 'STRICT_ALL_TABLES'; INSERT INTO t2 (id, w) VALUES (3, 1000)",
    "SET time_zone = '+05:30'; SELECT z, UNIX_TIMESTAMP(z) FROM t2",
    'SHOW BINLOG EVENTS; SHOW MASTER STATUS; SHOW BINARY LOGS',
    'SHOW CREATE TABLE t2; SHOW COLUMNS FROM t3; SHOW TABLE STATUS',
    'START TRANSACTION WITH CONSISTENT SNAPSHOT; SELECT * FROM t1 FOR UPDATE; ROLLBACK',
    'UPDATE t1 JOIN t2 ON t2.p = t1.id SET t1.g = t2.x, t2.w = t2.w - 1',
    "UPDATE t1 SET a = a + 1, e = CONCAT(e, 'x') WHERE b IS NOT NULL ORDER BY id DESC LIMIT 2",
    'UPDATE t3 SET k = REPEAT(k, 20)',
    'WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 20) SELECT n, (SELECT b FROM t1 WHERE id = n) FROM r',
    'BEGIN; UPDATE t1 SET a = 50 WHERE id = 1\x02SELECT a FROM t1 WHERE id = 1; SELECT * FROM t1 FOR SHARE\x02COMMIT\x02SELECT a FROM t1',
    'START TRANSACTION WITH CONSISTENT SNAPSHOT; SELECT * FROM t2\x02DELETE FROM t1 WHERE id = 2\x02SELECT * FROM t2; COMMIT',
    'LOCK TABLES t1 READ\x02INSERT INTO t1 (a) VALUES (1)\x02UNLOCK TABLES\x02INSERT INTO t1 (a) VALUES (1)',
    'BEGIN; SELECT * FROM t3 FOR UPDATE\x02ALTER TABLE t3 ADD COLUMN o INT\x02ROLLBACK\x02SELECT * FROM t3',
    "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED; BEGIN; INSERT INTO t3 (k) VALUES ('new')\x02SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED; SELECT * FROM t3\x02ROLLBACK",
    'FLUSH TABLES WITH READ LOCK\x02UPDATE t1 SET a = 1\x02UNLOCK TABLES',
    "SELECT GET_LOCK('g', 0)\x02SELECT GET_LOCK('g', 0), IS_USED_LOCK('g')",
    'BEGIN; INSERT INTO t1 (id, a) VALUES (100, 1)\x02BEGIN; INSERT INTO t1 (id, a) VALUES (101, 1); INSERT INTO t1 (id, a) VALUES (100, 2)\x02INSERT INTO t1 (id, a) VALUES (101, 2)\x02COMMIT',
]


def write_seed(target, data, seen):
    if not data:
        return
    h = hashlib.sha1(data).hexdigest()
    if h in seen[target]:
        return
    seen[target].add(h)
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, h), "wb") as f:
        f.write(data)


# --------------------------------------------------------------------- SQL

MYSQLTEST_COMMANDS = re.compile(
    r"^(connect|connection|disconnect|let|echo|source|sleep|if|while|end|inc|dec|"
    r"replace_result|replace_column|replace_regex|error|disable_\w+|enable_\w+|exec|"
    r"real_sleep|wait_for|perl|remove_file|write_file|cat_file|query_vertical|sorted_result|"
    r"send|reap|change_user|delimiter|die|skip|vertical_results|horizontal_results)\b",
    re.I)

EXTRA_SQL = [
    "SELECT 1 + 2 * 3, 7 DIV 2, 7 MOD 3, -9223372036854775808, 18446744073709551615 + 0",
    "SELECT CONCAT('a', NULL), CONCAT_WS(',', 'a', 'b'), LPAD('x', 5, 'ab'), REPEAT('ab', 3)",
    "SELECT DATE_ADD('2024-01-31', INTERVAL 1 MONTH), TIMESTAMPDIFF(DAY, '2024-01-01', '2024-03-01')",
    "SELECT CAST('2024-02-30' AS DATE), STR_TO_DATE('01,5,2013', '%d,%m,%Y'), DATE_FORMAT(NOW(), '%W %M %Y')",
    "SELECT 'abc' LIKE 'a%', 'abc' REGEXP '^a.c$', 'x' IN ('a', 'x', NULL), 3 BETWEEN 1 AND 5",
    "SELECT CASE WHEN 1 THEN 'a' ELSE 'b' END, IF(NULL, 1, 2), IFNULL(NULL, 3), COALESCE(NULL, NULL, 4)",
    "SELECT HEX('abc'), UNHEX('616263'), X'4142', 0x4142 + 0, b'101', _utf8mb4'x' COLLATE utf8mb4_bin",
    "SELECT 1.5e308 * 10, 1 / 0, CAST(-1 AS UNSIGNED), ~0, 1 << 63, ROUND(2.5), TRUNCATE(1.999, 2)",
    "SELECT @a := 1, @@session.sql_mode, @@global.max_connections, @@version, @`quoted var`",
    "SELECT SUBSTRING('hello', -3, 2), LOCATE('l', 'hello', 4), REPLACE('aaa', 'a', 'bb'), TRIM(LEADING 'x' FROM 'xxa')",
    "SET @x = 1, @y = 'two'; SELECT @x + 1, @y; DO 1 + 1",
    "PREPARE s FROM 'SELECT ? + 1'; EXECUTE s USING @x; DEALLOCATE PREPARE s",
    "/* comment */ SELECT /*! 1 + */ 1 -- trailing\n",
    "SELECT `a``b`, \"dq\", 'it''s', 'esc\\n\\t\\\\', N'national'",
    "CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(10) NOT NULL DEFAULT 'x', c DECIMAL(10,2), "
    "d DATETIME(6), e ENUM('a','b'), f JSON, KEY (b)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
    "SELECT a, COUNT(*) FROM t WHERE b LIKE 'x%' GROUP BY a HAVING COUNT(*) > 1 ORDER BY a DESC LIMIT 10 OFFSET 2",
    "INSERT INTO t (a, b) VALUES (1, 'a'), (2, DEFAULT) ON DUPLICATE KEY UPDATE b = VALUES(b)",
    "UPDATE t SET b = CONCAT(b, 'x') WHERE a IN (SELECT a FROM t WHERE a > 1) ORDER BY a LIMIT 1",
    "SELECT JSON_EXTRACT('{\"a\": [1, 2]}', '$.a[1]'), JSON_OBJECT('k', 1), JSON_ARRAY(1, 'x')",
    "SELECT CONVERT_TZ('2024-01-01 00:00:00', '+00:00', '+05:30'), FROM_UNIXTIME(0), UNIX_TIMESTAMP('2024-01-01')",
    "SELECT SHA2('abc', 256), MD5('x'), CRC32('x'), TO_BASE64('x'), FROM_BASE64('eA=='), INET_ATON('1.2.3.4')",
    "SELECT GREATEST(1, '2', 3.0), LEAST('a', 'B'), STRCMP('a', 'b'), FIELD('b', 'a', 'b'), ELT(2, 'a', 'b')",
]


def sql_from_mysqltest():
    out = []
    for path in sorted(glob.glob(os.path.join(REPO, "mysql-test", "suite", "*", "t", "*.test"))):
        delim = ";"
        cur = []
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            for raw in f:
                line = raw.rstrip("\n")
                s = line.strip()
                if not cur:
                    if not s or s.startswith("#") or s.startswith("--"):
                        m = re.match(r"--\s*delimiter\s+(\S+)", s, re.I)
                        if m:
                            delim = m.group(1)
                        continue
                    m = re.match(r"delimiter\s+(\S+)", s, re.I)
                    if m:
                        delim = m.group(1)
                        continue
                    if MYSQLTEST_COMMANDS.match(s):
                        # single-line mysqltest commands end with ';' too
                        if s.endswith(delim) or s.endswith(";"):
                            continue
                        continue
                    if s.lower().startswith("eval "):
                        line = line.replace("eval ", "", 1)
                cur.append(line)
                if s.endswith(delim):
                    stmt = "\n".join(cur).strip()
                    stmt = stmt[: -len(delim)].strip()
                    cur = []
                    if stmt and "$" not in stmt:
                        out.append(stmt)
    return out


def sql_seeds(seen, extra_queries):
    stmts = sql_from_mysqltest()
    # One of each shape first (the first words), then the rest, up to ~170.
    by_shape = {}
    for s in stmts:
        shape = " ".join(s.split()[:2]).upper()
        by_shape.setdefault(shape, []).append(s)
    chosen = []
    shapes = sorted(by_shape)
    for shape in shapes[::max(1, len(shapes) // 90)]:
        chosen.append(by_shape[shape][0])
    rest = [s for s in stmts if s not in chosen]
    chosen += rest[::max(1, len(rest) // 50)][:50]
    # Client queries: one of each shape.
    client = {}
    for q in extra_queries:
        client.setdefault(" ".join(q.split()[:2]).upper(), q)
    for s in chosen + EXTRA_SQL + list(client.values())[:40]:
        write_seed("sql", s.encode("utf-8", "surrogateescape"), seen)


# ----------------------------------------------------------------- capture

def read_packets(buf):
    """Splits complete packets off the front of `buf` (a bytearray)."""
    out = []
    while len(buf) >= 4:
        n = buf[0] | buf[1] << 8 | buf[2] << 16
        if len(buf) < 4 + n:
            break
        out.append((buf[3], bytes(buf[4:4 + n])))
        del buf[:4 + n]
    return out


class Capture:
    """A TCP proxy in front of sluiced that keeps what clients send."""

    def __init__(self, server_port):
        self.server_port = server_port
        self.lsock = socket.socket()
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(16)
        self.port = self.lsock.getsockname()[1]
        self.lock = threading.Lock()
        self.handshakes = []   # HandshakeResponse41 / SSLRequest payloads
        self.auth_replies = []
        self.commands = []     # (payload, execute prefix or None)
        self.streams = []      # the first bytes of each client stream
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                return
            threading.Thread(target=self._conn, args=(c,), daemon=True).start()

    def _conn(self, client):
        server = socket.create_connection(("127.0.0.1", self.server_port))
        state = {"phase": "greeting", "params": {}, "bound": set(), "long": {}, "last_cmd": None,
                 "stream": bytearray()}

        def pump(src, dst, from_client):
            buf = bytearray()
            try:
                while True:
                    data = src.recv(65536)
                    if not data:
                        break
                    dst.sendall(data)
                    if from_client and len(state["stream"]) < 4096:
                        state["stream"] += data[: 4096 - len(state["stream"])]
                    buf += data
                    for seq, payload in read_packets(buf):
                        with self.lock:
                            (self._client if from_client else self._server)(state, seq, payload)
            except OSError:
                pass
            finally:
                for s in (src, dst):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        t = threading.Thread(target=pump, args=(server, client, False), daemon=True)
        t.start()
        pump(client, server, True)
        t.join(5)
        with self.lock:
            self.streams.append(bytes(state["stream"]))
        client.close()
        server.close()

    def _client(self, st, seq, payload):
        if st["phase"] == "handshake":
            self.handshakes.append(payload)
            st["phase"] = "auth"
        elif st["phase"] == "auth":
            self.auth_replies.append(payload)
        elif st["phase"] == "command" and seq == 0 and payload:
            cmd = payload[0]
            st["last_cmd"] = cmd
            prefix = None
            if cmd == 0x17 and len(payload) >= 5:
                sid = struct.unpack_from("<I", payload, 1)[0]
                n = st["params"].get(sid, 0)
                bits = 0
                for i in range(min(n, 8)):
                    if (sid, i) in st["long"]:
                        bits |= 1 << i
                prefix = bytes([n & 0xFF, bits, 1 if sid in st["bound"] else 0])
                st["bound"].add(sid)
                st["long"] = {k: v for k, v in st["long"].items() if k[0] != sid}
            elif cmd == 0x18 and len(payload) >= 7:
                sid, pid = struct.unpack_from("<IH", payload, 1)
                st["long"][(sid, pid)] = True
            elif cmd == 0x11:
                st["phase"] = "auth"
            self.commands.append((payload, prefix))

    def _server(self, st, seq, payload):
        if st["phase"] == "greeting":
            st["phase"] = "handshake"
        elif st["phase"] == "auth" and payload[:1] in (b"\x00", b"\xff"):
            st["phase"] = "command"
        elif st["phase"] == "command" and st["last_cmd"] == 0x16 and seq == 1 and payload[:1] == b"\x00" \
                and len(payload) >= 12:
            sid, _cols, nparams = struct.unpack_from("<IHH", payload, 1)
            st["params"][sid] = nparams


def run_clients(port, server_port, mariadb_binlog_dir):
    import pymysql
    import mysql.connector

    queries = []
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
    cur = conn.cursor()
    setup = [
        "CREATE DATABASE IF NOT EXISTS fz",
        "CREATE TABLE fz.t (id INT PRIMARY KEY, i TINYINT, u INT UNSIGNED, b BIGINT, f FLOAT, d DOUBLE, "
        "dec1 DECIMAL(10,3), s VARCHAR(20), c CHAR(4), bl BLOB, tx TEXT, dt DATE, ts DATETIME(6), "
        "tm TIME(3), y YEAR, e ENUM('a','b','c'), vb VARBINARY(8))",
        "CREATE TABLE fz.nopk (a INT, b VARCHAR(5))",
        "CREATE USER IF NOT EXISTS 'fz'@'%' IDENTIFIED WITH mysql_native_password BY 'pw'",
        "CREATE USER IF NOT EXISTS 'fz2'@'%' IDENTIFIED WITH caching_sha2_password BY 'pw2'",
        "GRANT ALL ON *.* TO 'fz'@'%'",
        "GRANT ALL ON *.* TO 'fz2'@'%'",
        "INSERT INTO fz.t VALUES (1, -1, 4294967295, -9223372036854775808, 1.5, -2.25e100, -12.345, 'héllo',"
        " 'ab', x'00ff', 'text', '2024-02-29', '2024-01-02 03:04:05.123456', '-838:59:59.000', 2155, 'b',"
        " x'0001')",
        "INSERT INTO fz.t (id) VALUES (2)",
        "INSERT INTO fz.nopk VALUES (1, 'x'), (NULL, NULL)",
        "UPDATE fz.t SET s = 'upd', u = 0, vb = x'ff' WHERE id = 1",
        "DELETE FROM fz.nopk WHERE a = 1",
        "BEGIN", "INSERT INTO fz.t (id, s) VALUES (3, 'tx')", "UPDATE fz.nopk SET b = 'y'", "COMMIT",
        "DELETE FROM fz.t WHERE id = 2",
        "SELECT * FROM fz.t", "SHOW BINLOG EVENTS", "SHOW MASTER STATUS",
    ]
    for q in setup:
        queries.append(q)
        try:
            cur.execute(q)
            cur.fetchall()
        except pymysql.MySQLError as e:
            print(f"note: {q[:60]}...: {e}")
    conn.select_db("fz")
    conn.ping()
    conn.close()

    # caching_sha2_password and mysql_native_password logins, and a failed one.
    for user, pw in (("fz", "pw"), ("fz2", "pw2"), ("fz", "wrong")):
        try:
            c = pymysql.connect(host="127.0.0.1", port=port, user=user, password=pw, database="fz")
            c.cursor().execute("SELECT CURRENT_USER()")
            c.close()
        except pymysql.MySQLError:
            pass

    # mysql-connector-python: prepared statements with every parameter type,
    # long data, reset, fetch, change user, kill, statistics.
    cn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="", use_pure=True,
                                 ssl_disabled=True, database="fz", autocommit=True)
    cur = cn.cursor(prepared=True)
    cur.execute("SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?",
                (1, -2 ** 63, 2 ** 64 - 1, 1.25, "str", b"\x00\xffbytes", decimal.Decimal("-12.50"),
                 datetime.date(2024, 2, 29), None))
    cur.fetchall()
    cur.execute("SELECT ?, ?, ?", (datetime.datetime(2024, 1, 2, 3, 4, 5, 678901), datetime.time(13, 14, 15),
                                   datetime.timedelta(days=-1, seconds=5)))
    cur.fetchall()
    cur.execute("INSERT INTO fz.nopk VALUES (?, ?)", (7, "pq"))
    cur.execute("INSERT INTO fz.nopk VALUES (?, ?)", (8, None))
    cur.close()
    def tolerant(fn):
        try:
            fn()
        except mysql.connector.Error:
            pass
        try:
            cn.handle_unread_result()
        except mysql.connector.Error:
            pass

    sid = cn.cmd_stmt_prepare(b"SELECT ?, ?")["statement_id"]
    tolerant(lambda: cn.cmd_stmt_send_long_data(sid, 0, io.BytesIO(b"long data chunk " * 8)))
    tolerant(lambda: (cn.cmd_stmt_execute(sid, (None, 5), (), 0), cn.get_rows(binary=True)))
    tolerant(lambda: cn.cmd_stmt_reset(sid))
    tolerant(lambda: cn.cmd_stmt_fetch(sid, 10))
    tolerant(lambda: cn.cmd_stmt_close(sid))
    for fn in (lambda: print("note: change_user", cn.cmd_change_user(username="fz", password="pw")),
               lambda: cn.cmd_statistics(), lambda: cn.cmd_init_db("fz"), lambda: cn.cmd_process_kill(999999),
               lambda: cn.cmd_reset_connection(), lambda: cn.cmd_change_user(username="fz", password="pw"),
               lambda: cn.cmd_change_user(username="fz2", password="pw2", database="fz")):
        tolerant(fn)
    cn.close()

    # The mariadb CLI (libmariadb), with and without a database.
    for extra in ([], ["fz"]):
        subprocess.run(["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{port}", "-uroot", "--skip-ssl",
                        "-e", "SELECT @@version; SHOW DATABASES; USE fz; SELECT COUNT(*) FROM t"] + extra,
                       capture_output=True, timeout=30)

    # Replication readers: python-mysql-replication (COM_REGISTER_SLAVE,
    # COM_BINLOG_DUMP and, with auto_position, COM_BINLOG_DUMP_GTID), and
    # mariadb-binlog --read-from-remote-server.
    from pymysqlreplication import BinLogStreamReader
    settings = {"host": "127.0.0.1", "port": port, "user": "root", "passwd": ""}
    for kw in ({}, {"auto_position": ""}):
        try:
            r = BinLogStreamReader(connection_settings=settings, server_id=77, blocking=False, **kw)
            for _ in r:
                pass
            r.close()
        except Exception as e:  # noqa: BLE001 - a reader that fails still sent its commands
            print(f"note: BinLogStreamReader {kw}: {e!r}")
    p = subprocess.run(["mariadb-binlog", "--no-defaults", "--read-from-remote-server", "-h127.0.0.1", f"-P{port}",
                    "-uroot", "--to-last-log", "--stop-never-slave-server-id=78", "binlog.000001"],
                   capture_output=True, timeout=30)
    print(f"note: mariadb-binlog rc {p.returncode}: {p.stderr[-200:]}")
    time.sleep(0.5)
    return queries


# ------------------------------------------------------------------ binlog

def split_events(data):
    """(events, crc) of a binlog file's bytes."""
    events = []
    pos = 4
    crc = False
    while pos + 19 <= len(data):
        size = struct.unpack_from("<I", data, pos + 9)[0]
        if size < 19 or pos + size > len(data):
            break
        ev = data[pos:pos + size]
        if ev[4] == 15 and size >= 19 + 57 + 5:
            crc = ev[-5] == 1
        events.append(ev)
        pos += size
    return events, crc


def binlog_seeds(seen, files):
    per_type = {}
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        if len(data) <= 65536:
            write_seed("binlog", data, seen)
        else:
            write_seed("binlog", data[:65536], seen)
        events, crc = split_events(data)
        flag = 1 if crc else 0
        table_map = None
        for ev in events:
            t = ev[4]
            if t == 19:
                table_map = ev
            # A few of each type is enough.
            per_type[t] = per_type.get(t, 0) + 1
            if per_type[t] <= 6:
                write_seed("binlog", bytes([flag]) + ev, seen)
            if t in (30, 31, 32) and table_map is not None and per_type[t] <= 12:
                write_seed("binlog", bytes([flag | 2]) + struct.pack("<H", len(table_map)) + table_map + ev, seen)


# -------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluiced", default=os.path.join(REPO, "build", "bin", "sluiced"))
    ap.add_argument("--samples", default=os.path.join(REPO, "build", "bin", "sluice-binlog-samples"))
    args = ap.parse_args()
    os.environ["SLUICED"] = args.sluiced
    import harness

    seen = {t: set() for t in ("sql", "protocol", "command", "binlog", "exec")}
    for t in seen:
        d = os.path.join(CORPUS, t)
        if os.path.isdir(d):
            seen[t].update(os.listdir(d))

    datadir = harness.temp_dir("fuzz-seeds")
    srv = harness.Server(datadir)
    srv.start()
    try:
        cap = Capture(srv.port)
        queries = run_clients(cap.port, srv.port, datadir)
        time.sleep(0.5)
        with cap.lock:
            for p in cap.handshakes:
                write_seed("protocol", b"\x01" + p, seen)
            for p in cap.auth_replies:
                write_seed("protocol", b"\x03" + p, seen)
            for s in cap.streams[:12]:
                # framing mode, max_allowed_packet 1 MiB
                write_seed("protocol", b"\x00\x05" + s, seen)
            for p, prefix in cap.commands:
                if p[0] == 0x03 or p[0] == 0x16:
                    queries.append(p[1:].decode("utf-8", "surrogateescape"))
                    continue
                if p[0] == 0x11:
                    write_seed("protocol", b"\x02" + p[1:], seen)
                body = p[1:]
                if prefix is not None:
                    body = prefix + body
                write_seed("command", bytes([p[0]]) + body, seen)
        # Constructed where no client above sends it.
        write_seed("command", b"\x1b\x00\x00", seen)  # COM_SET_OPTION multi-statements on
        write_seed("command", b"\x1b\x01\x00", seen)
        write_seed("command", b"\x04t\x00a%", seen)   # COM_FIELD_LIST
        write_seed("command", b"\x1c\x01\x00\x00\x00\x0a\x00\x00\x00", seen)  # COM_STMT_FETCH
        # Replication and admin commands, as MySQL's replica and clients lay
        # them out.
        gtids = struct.pack("<Q", 2) + bytes(range(16)) + struct.pack("<QQQQQ", 2, 1, 6, 8, 9) + \
            bytes(range(16, 32)) + struct.pack("<QQQ", 1, 1, 1000)
        write_seed("command", b"\x15" + struct.pack("<I", 77) + b"\x09127.0.0.1\x04repl\x00" +
                   struct.pack("<HII", 3306, 0, 1), seen)  # COM_REGISTER_SLAVE
        write_seed("command", b"\x12" + struct.pack("<IHI", 4, 0, 77) + b"binlog.000001", seen)
        write_seed("command", b"\x1e" + struct.pack("<HII", 4, 77, 13) + b"binlog.000001" + struct.pack("<Q", 4) +
                   struct.pack("<I", len(gtids)) + gtids, seen)  # COM_BINLOG_DUMP_GTID
        write_seed("command", b"\x1e" + struct.pack("<HIIQI", 4, 77, 0, 4, 8) + struct.pack("<Q", 0), seen)
        write_seed("command", b"\x0c" + struct.pack("<I", 12345), seen)  # COM_PROCESS_KILL
        change_user = b"fz\x00" + b"\x14" + bytes(range(20)) + b"fz\x00" + struct.pack("<H", 255) + \
            b"mysql_native_password\x00" + b"\x0c\x04_pid\x06123456"
        write_seed("command", b"\x11" + change_user, seen)
        write_seed("protocol", b"\x02" + change_user, seen)
        write_seed("protocol", b"\x01" + struct.pack("<IIB23x", 0x0100_0000 | 0x800 | 0x200 | 0x8000, 1 << 24, 255),
                   seen)  # SSLRequest
        write_seed("protocol", b"\x04" + b"x" * 100, seen)
        sql_seeds(seen, [q for q in queries if q.strip()])
        for q in EXEC_SEEDS:
            write_seed("exec", q.encode(), seen)
    finally:
        srv.terminate()
    files = sorted(glob.glob(os.path.join(datadir, "binlog.[0-9]*")))
    if os.path.exists(args.samples):
        sd = harness.temp_dir("fuzz-samples")
        out = subprocess.run([args.samples, sd], capture_output=True, text=True, timeout=60).stdout.split()
        files += out
    binlog_seeds(seen, files)
    shutil.rmtree(datadir, ignore_errors=True)
    for t in seen:
        print(f"{t}: {len(os.listdir(os.path.join(CORPUS, t)))} seeds")


if __name__ == "__main__":
    main()
