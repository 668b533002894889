"""Prepared statements: COM_STMT_PREPARE / EXECUTE / SEND_LONG_DATA / CLOSE /
RESET / FETCH in the binary protocol (protocol.md §6.1), and SQL PREPARE /
EXECUTE / DEALLOCATE PREPARE.

Clients: mysql-connector-python with cursor(prepared=True), both its C
extension (libmysqlclient's mysql_stmt_* API) and its pure-Python protocol
code; and a raw-socket client (harness.RawConn) that checks byte layouts,
sends every parameter type and the error cases clients never produce."""

import datetime
import decimal
import struct

import mysql.connector

import harness as h

DB = "ps_test"
_root = None

COM_STMT_PREPARE = 0x16
COM_STMT_EXECUTE = 0x17
COM_STMT_SEND_LONG_DATA = 0x18
COM_STMT_CLOSE = 0x19
COM_STMT_RESET = 0x1A
COM_STMT_FETCH = 0x1C
COM_RESET_CONNECTION = 0x1F
CLIENT_DEPRECATE_EOF = 0x01000000

T_DECIMAL, T_TINY, T_SHORT, T_LONG, T_FLOAT, T_DOUBLE, T_NULL, T_TIMESTAMP = 0, 1, 2, 3, 4, 5, 6, 7
T_LONGLONG, T_INT24, T_DATE, T_TIME, T_DATETIME, T_YEAR = 8, 9, 10, 11, 12, 13
T_NEWDECIMAL, T_ENUM, T_BLOB, T_VAR_STRING, T_STRING = 246, 247, 252, 253, 254
UNSIGNED_FLAG = 32


def setup_module():
    global _root
    _root = h.root()
    h.query(_root, f"DROP DATABASE IF EXISTS {DB}")
    h.query(_root, f"CREATE DATABASE {DB}")
    h.query(_root, f"CREATE TABLE {DB}.items (id INT PRIMARY KEY, name VARCHAR(40), qty BIGINT, "
                   "price DECIMAL(10,2), ratio DOUBLE, seen DATETIME, note VARCHAR(20))")
    h.query(_root, f"CREATE TABLE {DB}.typed (id INT PRIMARY KEY, ti TINYINT, uti TINYINT UNSIGNED, "
                   "si SMALLINT, mi MEDIUMINT, i INT, bi BIGINT, ubi BIGINT UNSIGNED, dc DECIMAL(12,3), "
                   "fl FLOAT, db DOUBLE, vc VARCHAR(64), ch CHAR(10), bl BLOB, tx TEXT, d DATE, "
                   "dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, tm TIME, tm3 TIME(3), yr YEAR, "
                   "en ENUM('a','b'))")


def teardown_module():
    if _root is not None:
        try:
            h.query(_root, f"DROP DATABASE IF EXISTS {DB}")
        finally:
            h.close_quietly(_root)


def status(conn, name):
    rows = h.query(conn, f"SHOW SESSION STATUS LIKE '{name}'")
    assert len(rows) == 1, (name, rows)
    return int(rows[0][1])


def global_status(conn, name):
    rows = h.query(conn, f"SHOW GLOBAL STATUS LIKE '{name}'")
    assert len(rows) == 1, (name, rows)
    return int(rows[0][1])


# --------------------------------------------------------------------------
# mysql-connector-python

def mc(pure, **kw):
    args = dict(host=h.HOST, port=h.PORT, user="root", password="", use_pure=pure,
                ssl_disabled=True, autocommit=True, database=DB, connection_timeout=h.TIMEOUT)
    args.update(kw)
    return mysql.connector.connect(**args)


def both(fn):
    """Runs fn(conn, pure) with the C extension (libmysqlclient) and pure Python."""
    for pure in (False, True):
        c = mc(pure)
        try:
            fn(c, pure)
        except Exception as e:
            raise AssertionError(f"use_pure={pure}: {e!r}") from e
        finally:
            c.close()


def test_connector_crud():
    def run(c, pure):
        base = 1000 if pure else 0
        cur = c.cursor(prepared=True)
        ins = "INSERT INTO items (id, name, qty, price, ratio, seen, note) VALUES (?, ?, ?, ?, ?, ?, ?)"
        rows = [
            (base + 1, "apple", 10, decimal.Decimal("1.25"), 0.5, datetime.datetime(2024, 1, 2, 3, 4, 5), "n1"),
            (base + 2, "banana", -3, decimal.Decimal("-7.00"), 1e100 if pure else 1024.0, datetime.datetime(1999, 12, 31, 23, 59, 59), None),
            (base + 3, "cherry", 2**62, decimal.Decimal("0.01"), -2.5, None, "n3"),
            (base + 4, "dåte", 0, None, None, datetime.datetime(2024, 2, 29, 0, 0, 0), "n4"),
        ]
        for r in rows:
            cur.execute(ins, r)
            assert cur.rowcount == 1
        # SELECT by primary key: INT/BIGINT/DECIMAL/DOUBLE/VARCHAR/DATETIME/NULL
        cur.execute("SELECT id, name, qty, price, ratio, seen, note FROM items WHERE id = ?", (base + 2,))
        got = cur.fetchall()
        assert got == [rows[1]], got
        types = [d[1] for d in cur.description]
        assert types == [T_LONG, T_VAR_STRING, T_LONGLONG, T_NEWDECIMAL, T_DOUBLE, T_DATETIME, T_VAR_STRING], types
        cur.execute("SELECT * FROM items WHERE id = ?", (base + 4,))
        assert cur.fetchall() == [rows[3]]
        # the same statement again, other values (types not resent by the client)
        cur.execute("SELECT * FROM items WHERE id = ?", (base + 3,))
        assert cur.fetchall() == [rows[2]]
        cur.execute("SELECT * FROM items WHERE id = ?", (base + 99,))
        assert cur.fetchall() == []
        # range with ORDER BY
        cur.execute("SELECT id, name FROM items WHERE id >= ? AND id <= ? ORDER BY id DESC", (base + 2, base + 4))
        assert cur.fetchall() == [(base + 4, "dåte"), (base + 3, "cherry"), (base + 2, "banana")]
        cur.execute("SELECT name FROM items WHERE id BETWEEN ? AND ? ORDER BY name LIMIT ?", (base + 1, base + 4, 2))
        assert cur.fetchall() == [("apple",), ("banana",)]
        # UPDATE / DELETE
        cur.execute("UPDATE items SET qty = qty + ?, note = ? WHERE id = ?", (5, None, base + 1))
        assert cur.rowcount == 1
        cur.execute("SELECT qty, note FROM items WHERE id = ?", (base + 1,))
        assert cur.fetchall() == [(15, None)]
        cur.execute("DELETE FROM items WHERE id > ?", (base + 2,))
        assert cur.rowcount == 2
        cur.execute("SELECT COUNT(*) FROM items WHERE id > ? AND id < ?", (base, base + 100))
        assert cur.fetchall() == [(2,)]
        # NULL parameters compare as NULL
        cur.execute("SELECT COUNT(*) FROM items WHERE id = ?", (None,))
        assert cur.fetchall() == [(0,)]
        cur.execute("SELECT ? IS NULL, COALESCE(?, 'dflt')", (None, None))
        assert cur.fetchall() == [(1, "dflt")]
        cur.close()
    both(run)


def test_connector_parameter_types_round_trip():
    # The C extension (libmysqlclient) binds Python floats as MYSQL_TYPE_FLOAT,
    # ints as signed LONGLONG, and garbles timedelta (microseconds field):
    # its values stay within what it can send.
    def run(c, pure):
        base = 100 if pure else 0
        cur = c.cursor(prepared=True)
        vals = {
            "ti": -128, "uti": 255, "si": -32768, "mi": 8388607, "i": -2147483648, "bi": -2**63,
            "ubi": 2**64 - 1 if pure else 2**63 - 1, "dc": decimal.Decimal("-123456789.125"), "fl": 1.5,
            "db": 2.0 ** -1074 if pure else -0.375,
            "vc": "héllo wörld ✓", "ch": "chars", "bl": b"\x00\x01\xff binary", "tx": "t" * 300,
            "d": datetime.date(2024, 2, 29), "dt": datetime.datetime(2024, 1, 2, 3, 4, 5),
            "dt6": datetime.datetime(2024, 1, 2, 3, 4, 5, 123456),
            "ts": datetime.datetime(2030, 6, 7, 8, 9, 10),
            "tm": datetime.timedelta(hours=-30, seconds=-5) if pure else datetime.time(1, 2, 3),
            "tm3": datetime.timedelta(hours=1, minutes=2, seconds=3, microseconds=456000) if pure
            else datetime.time(1, 2, 3, 456000),
            "yr": 2155, "en": "b",
        }
        cols = list(vals)
        sql = f"INSERT INTO typed (id, {', '.join(cols)}) VALUES (?{', ?' * len(cols)})"
        cur.execute(sql, [base + 1] + [vals[k] for k in cols])
        cur.execute(f"INSERT INTO typed (id) VALUES (?)", (base + 2,))
        # The pure-Python connector reads a binary YEAR as a lenenc string
        # (mysqld, like sluice, sends 2 bytes): it cannot read YEAR columns.
        read = [k for k in cols if not (pure and k == "yr")]
        cur.execute(f"SELECT {', '.join(read)} FROM typed WHERE id = ?", (base + 1,))
        row = cur.fetchall()[0]
        got = dict(zip(read, row))
        types = {d[0]: d[1] for d in cur.description}
        expect_types = {"ti": T_TINY, "uti": T_TINY, "si": T_SHORT, "mi": T_INT24, "i": T_LONG, "bi": T_LONGLONG,
                        "ubi": T_LONGLONG, "dc": T_NEWDECIMAL, "fl": T_FLOAT, "db": T_DOUBLE, "d": T_DATE,
                        "dt": T_DATETIME, "dt6": T_DATETIME, "ts": T_TIMESTAMP, "tm": T_TIME, "tm3": T_TIME,
                        "yr": T_YEAR}
        for k, t in expect_types.items():
            assert k not in got or types[k] == t, (k, types[k], t)
        for k, v in vals.items():
            if k not in got:
                continue
            g = got[k]
            if k == "bl":
                g = bytes(g)
            if k == "en" and isinstance(g, set):
                g = g.pop()
            if isinstance(v, datetime.time):  # TIME reads back as a timedelta
                v = datetime.timedelta(hours=v.hour, minutes=v.minute, seconds=v.second,
                                       microseconds=v.microsecond)
            assert g == v, (k, g, v)
        # every column NULL but the key
        cur.execute(f"SELECT {', '.join(read)} FROM typed WHERE id = ?", (base + 2,))
        assert cur.fetchall() == [tuple([None] * len(read))]
        # parameters in expressions keep their types
        cur.execute("SELECT ? + 1, ? * 2, CONCAT(?, '!'), ? = 'ABC', LENGTH(?)",
                    (41, 1.25, "hi", "abc", b"\x00\x00"))
        assert cur.fetchall() == [(42, 2.5, "hi!", 1, 2)]
        cur.execute("SELECT ? + 0, ?", (decimal.Decimal("1.50"), True))
        assert cur.fetchall() == [(decimal.Decimal("1.50"), 1)]
        cur.close()
    both(run)


def test_connector_transaction():
    def run(c, pure):
        base = 5000 if pure else 4000
        c.autocommit = False
        cur = c.cursor(prepared=True)
        cur.execute("INSERT INTO items (id, name) VALUES (?, ?)", (base, "rolled back"))
        c.rollback()
        cur.execute("INSERT INTO items (id, name) VALUES (?, ?)", (base + 1, "kept"))
        c.commit()
        cur.execute("SELECT id FROM items WHERE id >= ? AND id < ? ORDER BY id", (base, base + 10))
        assert cur.fetchall() == [(base + 1,)]
        c.autocommit = True
        cur.close()
    both(run)


def test_connector_errors():
    def run(c, pure):
        cur = c.cursor(prepared=True)

        def expect(code, text, sql, args):
            # The C extension reports statement errors with errno -1 (its
            # mysql_stmt_* wrappers drop the number): check the text there.
            e = h.expect_error((code,) if pure else (code, -1), cur.execute, sql, args, what=sql)
            assert text in str(e), (sql, str(e))
        expect(1064, "near 'SELEC ?' at line 1", "SELEC ?", (1,))
        expect(1146, "Table 'ps_test.no_such_table' doesn't exist", "SELECT * FROM no_such_table WHERE id = ?", (1,))
        expect(1054, "Unknown column 'nope' in 'field list'", "SELECT nope FROM items WHERE id = ?", (1,))
        cur.execute("INSERT INTO items (id, name) VALUES (?, ?)", (7000 + pure, "dup"))
        expect(1062, "Duplicate entry", "INSERT INTO items (id, name) VALUES (?, ?)", (7000 + pure, "dup"))
        # the connection still works
        cur.execute("SELECT name FROM items WHERE id = ?", (7000 + pure,))
        assert cur.fetchall() == [("dup",)]
        cur.close()
    both(run)


def test_connector_show_and_other_statements():
    # Statements without columns at prepare time (SHOW) and without results.
    def run(c, pure):
        cur = c.cursor(prepared=True)
        cur.execute("SHOW VARIABLES LIKE 'max_prepared_stmt_count'")
        assert cur.fetchall() == [("max_prepared_stmt_count", "16382")]
        cur.execute("SET @ps_var = ?", (12,))
        cur.execute("SELECT @ps_var")
        assert cur.fetchall() == [(12,)]
        cur.execute("DO ?", (1,))
        cur.close()
    both(run)


# --------------------------------------------------------------------------
# Raw protocol

def lenenc_bytes(b):
    n = len(b)
    if n < 251:
        return bytes([n]) + b
    if n < 1 << 16:
        return b"\xfc" + struct.pack("<H", n) + b
    if n < 1 << 24:
        return b"\xfd" + struct.pack("<I", n)[:3] + b
    return b"\xfe" + struct.pack("<Q", n) + b


def parse_coldef(pkt):
    pos = 0
    fields = []
    for _ in range(6):
        v, pos = h.lenenc_str(pkt, pos)
        fields.append(v)
    assert pkt[pos] == 0x0C, pkt
    charset, length, typ, flags, decimals = struct.unpack("<HIBHB", pkt[pos + 1:pos + 11])
    return dict(catalog=fields[0], schema=fields[1], table=fields[2], name=fields[4], charset=charset,
                length=length, type=typ, flags=flags, decimals=decimals)


def decode_binary_value(col, data, pos):
    t, unsigned = col["type"], bool(col["flags"] & UNSIGNED_FLAG)
    fixed = {T_TINY: ("b", "B", 1), T_SHORT: ("h", "H", 2), T_YEAR: ("h", "H", 2), T_LONG: ("i", "I", 4),
             T_INT24: ("i", "I", 4), T_LONGLONG: ("q", "Q", 8)}
    if t in fixed:
        s, u, n = fixed[t]
        return struct.unpack("<" + (u if unsigned else s), data[pos:pos + n])[0], pos + n
    if t == T_FLOAT:
        return struct.unpack("<f", data[pos:pos + 4])[0], pos + 4
    if t == T_DOUBLE:
        return struct.unpack("<d", data[pos:pos + 8])[0], pos + 8
    if t in (T_DATE, T_DATETIME, T_TIMESTAMP):
        n = data[pos]
        b = data[pos + 1:pos + 1 + n]
        y = mo = d = hh = mm = ss = us = 0
        if n >= 4:
            y, mo, d = struct.unpack("<HBB", b[:4])
        if n >= 7:
            hh, mm, ss = b[4], b[5], b[6]
        if n >= 11:
            us = struct.unpack("<I", b[7:11])[0]
        return ("date", n, y, mo, d, hh, mm, ss, us), pos + 1 + n
    if t == T_TIME:
        n = data[pos]
        b = data[pos + 1:pos + 1 + n]
        neg = days = hh = mm = ss = us = 0
        if n >= 8:
            neg, days, hh, mm, ss = struct.unpack("<BIBBB", b[:8])
        if n >= 12:
            us = struct.unpack("<I", b[8:12])[0]
        return ("time", n, neg, days, hh, mm, ss, us), pos + 1 + n
    v, pos = h.lenenc_str(data, pos)
    return v, pos


class PsConn(h.RawConn):
    """RawConn plus the prepared-statement commands."""

    def __init__(self, deprecate_eof=False):
        super().__init__()
        self.deprecate_eof = deprecate_eof
        caps = h.RAW_CAPS | (CLIENT_DEPRECATE_EOF if deprecate_eof else 0) | h.CLIENT_CONNECT_WITH_DB
        self.login("root", "", db=DB, caps=caps)

    def read_eof(self, what):
        if self.deprecate_eof:
            return
        pkt = self.read_packet()
        assert pkt[:1] == b"\xfe" and len(pkt) < 9, f"{what}: expected EOF, got {pkt[:20]!r}"

    def prepare(self, sql):
        """Returns (stmt_id, params defs, column defs); raises ServerError."""
        pkt = self.command(COM_STMT_PREPARE, sql.encode())
        if pkt[:1] == b"\xff":
            raise h.ServerError(*h.parse_err(pkt))
        assert pkt[0] == 0 and len(pkt) == 12, f"COM_STMT_PREPARE_OK: {pkt!r}"
        stmt_id, ncols, nparams, reserved, warnings = struct.unpack("<IHHBH", pkt[1:12])
        assert reserved == 0
        params = [parse_coldef(self.read_packet()) for _ in range(nparams)]
        if nparams:
            self.read_eof("after parameter definitions")
        cols = [parse_coldef(self.read_packet()) for _ in range(ncols)]
        if ncols:
            self.read_eof("after column definitions")
        return stmt_id, params, cols

    def execute_packet(self, stmt_id, params=None, flags=0, types=None, send_types=True, null_bitmap=None):
        """params: list of (type, unsigned, encoded value bytes or None for NULL)."""
        body = struct.pack("<IBI", stmt_id, flags, 1)
        if params is not None and len(params) > 0:
            n = len(params)
            bitmap = bytearray((n + 7) // 8)
            for i, (_, _, v) in enumerate(params):
                if v is None:
                    bitmap[i // 8] |= 1 << (i % 8)
            if null_bitmap is not None:
                bitmap = bytearray(null_bitmap)
            body += bytes(bitmap) + (b"\x01" if send_types else b"\x00")
            if send_types:
                for t, unsigned, _ in params:
                    body += bytes([t, 0x80 if unsigned else 0])
            for _, _, v in params:
                if v is not None:
                    body += v
        return body

    def execute(self, stmt_id, params=None, **kw):
        """Returns ('ok', payload) or ('rows', column defs, rows)."""
        first = self.command(COM_STMT_EXECUTE, self.execute_packet(stmt_id, params, **kw))
        return self.read_execute_result(first)

    def read_execute_result(self, first):
        if first[:1] == b"\xff":
            raise h.ServerError(*h.parse_err(first))
        if first[:1] == b"\x00":
            return ("ok", first)
        ncols, _ = h.lenenc_int(first, 0)
        cols = [parse_coldef(self.read_packet()) for _ in range(ncols)]
        self.read_eof("after binary column definitions")
        rows = []
        for _ in range(100000):
            pkt = self.read_packet()
            if pkt[:1] == b"\xfe" and len(pkt) < 9:
                return ("rows", cols, rows)
            if pkt[:1] == b"\xff":
                raise h.ServerError(*h.parse_err(pkt))
            assert pkt[0] == 0, f"binary row header {pkt[:10]!r}"
            nb = (ncols + 7 + 2) // 8
            bitmap = pkt[1:1 + nb]
            pos = 1 + nb
            row = []
            for i, col in enumerate(cols):
                bit = i + 2
                if bitmap[bit // 8] & (1 << (bit % 8)):
                    row.append(None)
                    continue
                v, pos = decode_binary_value(col, pkt, pos)
                row.append(v)
            assert pos == len(pkt), f"row has {len(pkt) - pos} trailing bytes: {pkt!r}"
            rows.append(row)
        raise AssertionError("result too long")

    def ping_ok(self):
        pkt = self.command(h.COM_PING)
        assert pkt[:1] == b"\x00", f"COM_PING answered {pkt[:20]!r}"


def i8(v): return (T_TINY, False, struct.pack("<b", v))
def i64(v): return (T_LONGLONG, False, struct.pack("<q", v))
def u64(v): return (T_LONGLONG, True, struct.pack("<Q", v))
def s(v, t=T_VAR_STRING): return (t, False, lenenc_bytes(v.encode() if isinstance(v, str) else v))
def null(t=T_NULL): return (t, False, None)


def test_raw_prepare_ok_layout():
    for deprecate_eof in (False, True):
        c = PsConn(deprecate_eof)
        try:
            sid, params, cols = c.prepare("SELECT id, name AS n, price FROM items WHERE id = ? AND name <> ?")
            assert sid == 1, sid  # per-connection ids from 1
            assert len(params) == 2
            for p in params:  # as mysqld describes a '?'
                assert p["name"] == b"?" and p["type"] == T_VAR_STRING and p["charset"] == 63, p
                assert p["flags"] == 128 and p["length"] == 0, p
            assert [(x["name"], x["type"], x["table"], x["schema"]) for x in cols] == [
                (b"id", T_LONG, b"items", DB.encode()), (b"n", T_VAR_STRING, b"items", DB.encode()),
                (b"price", T_NEWDECIMAL, b"items", DB.encode())], cols
            sid2, params2, cols2 = c.prepare("SELECT * FROM items")
            assert sid2 == 2 and params2 == [] and len(cols2) == 7
            sid3, params3, cols3 = c.prepare("UPDATE items SET note = ? WHERE id = ?")
            assert sid3 == 3 and len(params3) == 2 and cols3 == []
            sid4, params4, cols4 = c.prepare("SELECT 1, 'a' AS x, ?")
            assert sid4 == 4 and len(params4) == 1 and [x["name"] for x in cols4] == [b"1", b"x", b"?"]
            c.ping_ok()
        finally:
            c.close()


def test_raw_every_parameter_type():
    c = PsConn()
    try:
        sid, _, _ = c.prepare("SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?")
        params = [
            i8(-5),
            (T_TINY, True, struct.pack("<B", 250)),
            (T_SHORT, False, struct.pack("<h", -300)),
            (T_LONG, False, struct.pack("<i", -70000)),
            (T_INT24, True, struct.pack("<I", 70000)),
            i64(-2**63),
            u64(2**64 - 1),
            (T_FLOAT, False, struct.pack("<f", 0.5)),
            (T_DOUBLE, False, struct.pack("<d", -1.25e-300)),
            s("-12.340", T_NEWDECIMAL),
            s("text ✓"),
            s(b"\x00\xffblob", T_BLOB),
            s("plain", T_STRING),
            null(),
            null(T_LONG),
            (T_YEAR, False, struct.pack("<H", 1999)),
            (T_DECIMAL, False, lenenc_bytes(b"7")),
            s("", T_VAR_STRING),
        ]
        kind, cols, rows = c.execute(sid, params)
        assert kind == "rows" and len(rows) == 1
        r = rows[0]
        assert r[0:7] == [-5, 250, -300, -70000, 70000, -2**63, 2**64 - 1], r
        assert [x["type"] for x in cols[0:7]] == [T_LONGLONG] * 7
        assert cols[6]["flags"] & UNSIGNED_FLAG
        assert r[7] == 0.5 and r[8] == -1.25e-300, r
        assert r[9] == b"-12.340" and cols[9]["type"] == T_NEWDECIMAL and cols[9]["decimals"] == 3, (r[9], cols[9])
        assert r[10] == "text ✓".encode() and r[11] == b"\x00\xffblob" and r[12] == b"plain"
        assert r[13] is None and r[14] is None
        assert r[15] == 1999 and r[16] == b"7" and r[17] == b"", r
    finally:
        c.close()


def test_raw_temporal_parameters():
    c = PsConn()
    try:
        sid, _, _ = c.prepare("INSERT INTO typed (id, d, dt, dt6, ts, tm, tm3) VALUES (?, ?, ?, ?, ?, ?, ?)")
        params = [
            (T_LONG, False, struct.pack("<i", 900)),
            (T_DATE, False, b"\x04" + struct.pack("<HBB", 2010, 10, 17)),
            (T_DATETIME, False, b"\x07" + struct.pack("<HBBBBB", 2010, 10, 17, 19, 27, 30)),
            (T_DATETIME, False, b"\x0b" + struct.pack("<HBBBBBI", 2010, 10, 17, 19, 27, 30, 1)),
            (T_TIMESTAMP, False, b"\x04" + struct.pack("<HBB", 2021, 3, 4)),
            (T_TIME, False, b"\x08" + struct.pack("<BIBBB", 1, 1, 2, 3, 4)),      # -26:03:04
            (T_TIME, False, b"\x0c" + struct.pack("<BIBBBI", 0, 0, 1, 2, 3, 500000)),
        ]
        kind, ok = c.execute(sid, params)
        assert kind == "ok" and ok[1] == 1, ok  # one row affected
        sid2, _, cols = c.prepare("SELECT d, dt, dt6, ts, tm, tm3 FROM typed WHERE id = ?")
        kind, cols, rows = c.execute(sid2, [(T_LONG, False, struct.pack("<i", 900))])
        assert [x["type"] for x in cols] == [T_DATE, T_DATETIME, T_DATETIME, T_TIMESTAMP, T_TIME, T_TIME], cols
        assert rows == [[("date", 4, 2010, 10, 17, 0, 0, 0, 0),
                         ("date", 7, 2010, 10, 17, 19, 27, 30, 0),
                         ("date", 11, 2010, 10, 17, 19, 27, 30, 1),
                         ("date", 4, 2021, 3, 4, 0, 0, 0, 0),
                         ("time", 8, 1, 1, 2, 3, 4, 0),
                         ("time", 12, 0, 0, 1, 2, 3, 500000)]], rows
        # the text protocol agrees
        assert h.query(_root, f"SELECT d, dt, dt6, ts, tm, tm3 FROM {DB}.typed WHERE id = 900") == (
            (datetime.date(2010, 10, 17), datetime.datetime(2010, 10, 17, 19, 27, 30),
             datetime.datetime(2010, 10, 17, 19, 27, 30, 1), datetime.datetime(2021, 3, 4),
             -datetime.timedelta(hours=26, minutes=3, seconds=4),
             datetime.timedelta(hours=1, minutes=2, seconds=3, microseconds=500000)),)
    finally:
        c.close()


def test_raw_binary_rows_of_every_column_type():
    h.query(_root, f"INSERT INTO {DB}.typed (id, ti, uti, si, mi, i, bi, ubi, dc, fl, db, vc, ch, bl, tx, "
                   "d, dt, yr, en, tm) VALUES (901, -1, 200, -2, -3, -4, -5, 18446744073709551615, -1.500, 0.25, "
                   "-0.125, 'v', 'c', x'00ff', 't', '1000-01-01', '2000-01-01 00:00:00', 2000, 'a', '00:00:00')")
    for deprecate_eof in (False, True):
        c = PsConn(deprecate_eof)
        try:
            sid, _, pcols = c.prepare("SELECT ti, uti, si, mi, i, bi, ubi, dc, fl, db, vc, ch, bl, tx, d, dt, yr, en, "
                                      "dt6, tm FROM typed WHERE id = ?")
            kind, cols, rows = c.execute(sid, [i64(901)])
            assert [x["type"] for x in cols] == [x["type"] for x in pcols]  # prepare and execute agree
            assert rows == [[-1, 200, -2, -3, -4, -5, 2**64 - 1, b"-1.500", 0.25, -0.125, b"v", b"c", b"\x00\xff",
                             b"t", ("date", 4, 1000, 1, 1, 0, 0, 0, 0), ("date", 4, 2000, 1, 1, 0, 0, 0, 0), 2000,
                             b"a", None, ("time", 0, 0, 0, 0, 0, 0, 0)]], rows
        finally:
            c.close()


def test_raw_many_rows_and_null_bitmap_bytes():
    c = PsConn()
    try:
        for i in range(20):
            h.query(_root, f"INSERT INTO {DB}.items (id, name, qty) VALUES ({3000 + i}, "
                           f"{'NULL' if i % 3 == 0 else repr('n' + str(i))}, {'NULL' if i % 2 else i})")
        # 8 columns: the bitmap needs 2 bytes ((8 + 9) / 8)
        sid, _, _ = c.prepare("SELECT id, name, qty, price, ratio, seen, note, id + ? FROM items "
                              "WHERE id >= ? AND id < ? ORDER BY id")
        kind, cols, rows = c.execute(sid, [i64(1), i64(3000), i64(3020)])
        assert len(rows) == 20
        for i, r in enumerate(rows):
            assert r[0] == 3000 + i and r[7] == 3001 + i
            assert r[1] == (None if i % 3 == 0 else f"n{i}".encode())
            assert r[2] == (None if i % 2 else i)
            assert r[3:7] == [None] * 4
    finally:
        c.close()


def test_raw_types_are_reused_when_not_resent():
    c = PsConn()
    try:
        sid, _, _ = c.prepare("SELECT ? + ?")
        kind, cols, rows = c.execute(sid, [i64(40), i64(2)])
        assert rows == [[42]]
        kind, cols, rows = c.execute(sid, [i64(1), i64(2)], send_types=False)
        assert rows == [[3]]
        # a fresh statement that never got types: 1210
        sid2, _, _ = c.prepare("SELECT ?")
        try:
            c.execute(sid2, [i64(1)], send_types=False)
            raise AssertionError("execute without types succeeded")
        except h.ServerError as e:
            assert e.errno == 1210 and e.message == "Incorrect arguments to mysqld_stmt_execute", e
        c.ping_ok()
    finally:
        c.close()


def test_raw_unknown_statement_and_close_reset_fetch():
    c = PsConn()
    try:
        for cmd, body, fn in ((COM_STMT_EXECUTE, struct.pack("<IBI", 77, 0, 1), "mysqld_stmt_execute"),
                              (COM_STMT_RESET, struct.pack("<I", 77), "mysqld_stmt_reset"),
                              (COM_STMT_FETCH, struct.pack("<II", 77, 10), "mysqld_stmt_fetch")):
            pkt = c.command(cmd, body)
            code, state, msg = h.parse_err(pkt)
            assert code == 1243 and state == "HY000", (code, state, msg)
            assert msg == f"Unknown prepared statement handler (77) given to {fn}", msg
        sid, _, _ = c.prepare("SELECT ?")
        # COM_STMT_RESET: OK
        pkt = c.command(COM_STMT_RESET, struct.pack("<I", sid))
        assert pkt[:1] == b"\x00", pkt
        # no cursor is ever open
        code, _, msg = h.parse_err(c.command(COM_STMT_FETCH, struct.pack("<II", sid, 1)))
        assert code == 1421 and msg == f"The statement ({sid}) has no open cursor.", (code, msg)
        # a READ_ONLY cursor request still gets the whole result
        kind, cols, rows = c.execute(sid, [i64(5)], flags=1)
        assert rows == [[5]]
        # COM_STMT_CLOSE has no reply: the next command's answer comes first
        c.send_packet(bytes([COM_STMT_CLOSE]) + struct.pack("<I", sid), seq=0)
        c.send_packet(bytes([COM_STMT_CLOSE]) + struct.pack("<I", 12345), seq=0)  # unknown: silent too
        c.ping_ok()
        code, _, msg = h.parse_err(c.command(COM_STMT_EXECUTE, c.execute_packet(sid, [i64(1)])))
        assert code == 1243, (code, msg)
        # malformed: too short
        code, _, _ = h.parse_err(c.command(COM_STMT_EXECUTE, b"\x01\x00"))
        assert code == 1835
        # bad parameter block: 1210
        sid, _, _ = c.prepare("SELECT ?")
        code, _, msg = h.parse_err(c.command(COM_STMT_EXECUTE, struct.pack("<IBI", sid, 0, 1) + b"\x00\x01\x03\x00\x01"))
        assert code == 1210, (code, msg)
        c.ping_ok()
    finally:
        c.close()


def test_raw_send_long_data():
    c = PsConn()
    try:
        sid, _, _ = c.prepare("SELECT CONCAT(?, '|', ?), LENGTH(?)")
        for chunk in (b"hello ", b"long ", b"data"):
            c.send_packet(bytes([COM_STMT_SEND_LONG_DATA]) + struct.pack("<IH", sid, 0) + chunk, seq=0)
        c.send_packet(bytes([COM_STMT_SEND_LONG_DATA]) + struct.pack("<IH", sid, 2) + b"x" * 70000, seq=0)
        # parameters 0 and 2 have long data: no value in the block, NULL bit clear
        body = struct.pack("<IBI", sid, 0, 1) + b"\x00\x01" + bytes([T_BLOB, 0, T_VAR_STRING, 0, T_BLOB, 0]) + \
            lenenc_bytes(b"b")
        kind, cols, rows = c.read_execute_result(c.command(COM_STMT_EXECUTE, body))
        assert rows == [[b"hello long data|b", 70000]], rows
        # long data is spent by the execution
        kind, cols, rows = c.execute(sid, [s("a"), s("b"), s("cc")])
        assert rows == [[b"a|b", 2]]
        # COM_STMT_RESET drops long data
        c.send_packet(bytes([COM_STMT_SEND_LONG_DATA]) + struct.pack("<IH", sid, 1) + b"zzz", seq=0)
        assert c.command(COM_STMT_RESET, struct.pack("<I", sid))[:1] == b"\x00"
        kind, cols, rows = c.execute(sid, [s("a"), s("b"), s("c")])
        assert rows == [[b"a|b", 1]]
        # long data for a parameter that does not exist: reported by the next execute
        c.send_packet(bytes([COM_STMT_SEND_LONG_DATA]) + struct.pack("<IH", sid, 9) + b"zzz", seq=0)
        try:
            c.execute(sid, [s("a"), s("b"), s("c")])
            raise AssertionError("execute after bad long data succeeded")
        except h.ServerError as e:
            assert e.errno == 1210 and "mysqld_stmt_send_long_data" in e.message, e
        kind, cols, rows = c.execute(sid, [s("a"), s("b"), s("c")])
        assert rows == [[b"a|b", 1]]
        c.ping_ok()
    finally:
        c.close()


def test_raw_prepare_errors():
    c = PsConn()
    try:
        for sql, code in (("SELEC 1", 1064), ("SELECT 1; SELECT 2", 1064), ("", 1065),
                          ("SELECT * FROM nope", 1146), ("SELECT zz FROM items", 1054),
                          ("UPDATE nope SET a = ?", 1146), ("PREPARE x FROM 'SELECT 1'", 1295),
                          ("EXECUTE x", 1295), ("DEALLOCATE PREPARE x", 1295)):
            try:
                c.prepare(sql)
                raise AssertionError(f"{sql!r} prepared")
            except h.ServerError as e:
                assert e.errno == code, (sql, e.errno, e.message)
        try:
            c.prepare("SELECT 1; SELECT 2")
        except h.ServerError as e:
            assert "near 'SELECT 2' at line 1" in e.message, e.message
        # ids are spent by failed prepares too (as mysqld); the next one is larger
        sid, _, _ = c.prepare("SELECT 1")
        assert sid > 1
        c.ping_ok()
    finally:
        c.close()


def test_raw_reset_connection_closes_statements():
    c = PsConn()
    try:
        sid, _, _ = c.prepare("SELECT 1")
        assert c.command(COM_RESET_CONNECTION)[:1] == b"\x00"
        code, _, _ = h.parse_err(c.command(COM_STMT_EXECUTE, c.execute_packet(sid)))
        assert code == 1243
    finally:
        c.close()


def other_sessions():
    mine = int(h.query(_root, "SELECT CONNECTION_ID()")[0][0])
    return [r for r in h.query(_root, "SHOW PROCESSLIST") if int(r[0]) != mine and r[4] != "Daemon"]


def test_prepared_stmt_count_and_max():
    # The count is global: the connections of the tests before this one end
    # as the server notices they closed, and the statements they left go
    # with them, so count from when they are gone.
    h.bounded_poll(lambda: not other_sessions(), what="no other sessions")
    before = global_status(_root, "Prepared_stmt_count")
    c = PsConn()
    try:
        ids = [c.prepare("SELECT ?")[0] for _ in range(3)]
        assert global_status(_root, "Prepared_stmt_count") == before + 3
        c.send_packet(bytes([COM_STMT_CLOSE]) + struct.pack("<I", ids[0]), seq=0)
        c.ping_ok()
        assert global_status(_root, "Prepared_stmt_count") == before + 2
        h.query(_root, f"SET GLOBAL max_prepared_stmt_count = {before + 3}")
        try:
            c.prepare("SELECT 2")
            try:
                c.prepare("SELECT 3")
                raise AssertionError("prepared past max_prepared_stmt_count")
            except h.ServerError as e:
                assert e.errno == 1461, e
                assert e.message == ("Can't create more than max_prepared_stmt_count statements "
                                     f"(current value: {before + 3})"), e.message
            # SQL PREPARE counts against the same limit
            h.expect_sql_error(_root, "PREPARE over_limit FROM 'SELECT 1'", 1461)
        finally:
            h.query(_root, "SET GLOBAL max_prepared_stmt_count = DEFAULT")
    finally:
        c.close()
    # a closed connection gives its statements back
    h.bounded_poll(lambda: global_status(_root, "Prepared_stmt_count") == before, what="Prepared_stmt_count")


def test_counters():
    """COM_STMT_EXECUTE counts Com_stmt_execute and the statement's own Com_xxx."""
    c = mc(False)
    try:
        cur = c.cursor()

        def st(name):
            cur.execute(f"SHOW SESSION STATUS LIKE '{name}'")
            return int(cur.fetchall()[0][1])
        names = ("Com_stmt_prepare", "Com_stmt_execute", "Com_stmt_close", "Com_select", "Questions")
        before = {n: st(n) for n in names}
        p = c.cursor(prepared=True)
        p.execute("SELECT name FROM items WHERE id = ?", (1,))
        p.fetchall()
        p.execute("SELECT name FROM items WHERE id = ?", (2,))
        p.fetchall()
        p.close()
        after = {n: st(n) for n in names}
        delta = {n: after[n] - before[n] for n in names}
        # the SHOW STATUS statements count as Com_show_status and Questions
        assert delta == {"Com_stmt_prepare": 1, "Com_stmt_execute": 2, "Com_stmt_close": 1, "Com_select": 2,
                         "Questions": 2 + len(names)}, (before, after)
    finally:
        c.close()


# --------------------------------------------------------------------------
# SQL PREPARE / EXECUTE / DEALLOCATE

def test_sql_prepare_execute_deallocate():
    c = h.root(database=DB)
    try:
        before = {n: status(c, n) for n in ("Com_prepare_sql", "Com_execute_sql", "Com_dealloc_sql",
                                           "Com_stmt_prepare", "Com_stmt_execute", "Com_select")}
        with c.cursor() as cur:
            cur.execute("PREPARE s1 FROM 'SELECT ? + ?, ?'")
            cur.execute("SET @a = 40, @b = 2, @c = 'x'")
            cur.execute("EXECUTE s1 USING @a, @b, @c")
            assert cur.fetchall() == ((42, "x"),)
            cur.execute("EXECUTE S1 USING @b, @b, @unset")  # names ignore case; unset is NULL
            assert cur.fetchall() == ((4, None),)
            # from a variable; a new PREPARE of a name replaces it
            cur.execute("SET @q = 'SELECT name FROM items WHERE id = ?'")
            cur.execute("INSERT INTO items (id, name) VALUES (8000, 'sqlps')")
            cur.execute("PREPARE s1 FROM @q")
            cur.execute("SET @id = 8000")
            cur.execute("EXECUTE s1 USING @id")
            assert cur.fetchall() == (("sqlps",),)
            cur.execute("PREPARE upd FROM 'UPDATE items SET name = ? WHERE id = ?'")
            cur.execute("SET @n = 'renamed'")
            cur.execute("EXECUTE upd USING @n, @id")
            assert cur.rowcount == 1
            cur.execute("EXECUTE s1 USING @id")
            assert cur.fetchall() == (("renamed",),)
            cur.execute("DEALLOCATE PREPARE s1")
            cur.execute("DROP PREPARE upd")
        after = {n: status(c, n) for n in before}
        assert after["Com_prepare_sql"] - before["Com_prepare_sql"] == 3, (before, after)
        assert after["Com_execute_sql"] - before["Com_execute_sql"] == 5, (before, after)
        assert after["Com_dealloc_sql"] - before["Com_dealloc_sql"] == 2, (before, after)
        assert after["Com_stmt_prepare"] - before["Com_stmt_prepare"] == 3, (before, after)
        assert after["Com_stmt_execute"] - before["Com_stmt_execute"] == 5, (before, after)
        assert after["Com_select"] - before["Com_select"] == 4, (before, after)
    finally:
        c.close()


def test_sql_prepare_errors():
    c = h.root(database=DB)
    try:
        e = h.expect_sql_error(c, "EXECUTE nosuch", 1243)
        assert e.args[1] == "Unknown prepared statement handler (nosuch) given to EXECUTE", e
        e = h.expect_sql_error(c, "DEALLOCATE PREPARE nosuch", 1243)
        assert e.args[1] == "Unknown prepared statement handler (nosuch) given to DEALLOCATE PREPARE", e
        h.query(c, "PREPARE two FROM 'SELECT ?, ?'")
        h.query(c, "SET @x = 1")
        e = h.expect_sql_error(c, "EXECUTE two USING @x", 1210)
        assert e.args[1] == "Incorrect arguments to EXECUTE", e
        h.expect_sql_error(c, "EXECUTE two", 1210)
        h.expect_sql_error(c, "EXECUTE two USING @x, @x, @x", 1210)
        assert h.query(c, "EXECUTE two USING @x, @x") == ((1, 1),)
        # a failed re-prepare leaves no statement of that name
        h.expect_sql_error(c, "PREPARE two FROM 'SELEC 1'", 1064)
        h.expect_sql_error(c, "EXECUTE two USING @x, @x", 1243)
        h.expect_sql_error(c, "PREPARE p FROM @never_set", 1064)  # NULL text
        h.expect_sql_error(c, "PREPARE p FROM 'EXECUTE two'", 1295)
        # a '?' outside a prepared statement is not bound
        h.expect_sql_error(c, "SELECT ?", (1064, 1210))
    finally:
        c.close()


def test_sql_and_protocol_statements_share_ids():
    c = PsConn()
    try:
        c.query("PREPARE a FROM 'SELECT 1'")
        sid, _, _ = c.prepare("SELECT 2")
        assert sid == 2, sid  # the SQL statement took id 1
        assert c.query("EXECUTE a") == [["1"]]
    finally:
        c.close()


def test_server_still_fine():
    h.assert_server_ok()


if __name__ == "__main__":
    h.main(globals())
