"""The row model shared by the binlog-reader tests (test_dump_readers.py,
test_dump_pyrepl.py): one table with many column types, a deterministic
row for every id (extremes in row 1, NULLs in every row with id % 4 == 2),
the SQL that writes it, and what each reader library is expected to decode
from a correct MySQL 8.0 row event (FULL row image; metadata FULL where the
library needs column names)."""

import datetime
from decimal import Decimal

SCHEMA = "cdc"
TABLE = "types"
ENUM_VALUES = ("small", "medium", "large")

CREATE_TABLE = f"""CREATE TABLE {SCHEMA}.{TABLE} (
  id INT NOT NULL PRIMARY KEY,
  i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED,
  de DECIMAL(12,3), vc VARCHAR(64), tx TEXT, bl BLOB,
  dt DATETIME(6), da DATE, tm TIME, ts TIMESTAMP NULL, db DOUBLE,
  en ENUM('small','medium','large'))"""

COLUMNS = ("id", "i", "iu", "bi", "bu", "de", "vc", "tx", "bl", "dt", "da", "tm", "ts", "db", "en")


def row(n, version=0):
    """The row with id n as Python values (version > 0: the row after that
    many UPDATEs). TIME as a timedelta, TIMESTAMP as a naive UTC datetime."""
    v = version
    if n % 4 == 2:
        r = dict.fromkeys(COLUMNS)
        r["id"] = n
        if v:
            r["vc"] = f"updated {v}"
        return r
    if n == 1 and v == 0:
        return {
            "id": 1, "i": -2147483648, "iu": 4294967295,
            "bi": -9223372036854775808, "bu": 18446744073709551615,
            "de": Decimal("-999999999.999"), "vc": "row 1 ünïcødé €", "tx": "x" * 300 + "\n\t'\"\\",
            "bl": b"\x00\xff\x01'\"\\", "dt": datetime.datetime(9999, 12, 31, 23, 59, 59, 999999),
            "da": datetime.date(1000, 1, 1), "tm": -datetime.timedelta(hours=838, minutes=59, seconds=59),
            "ts": datetime.datetime(2038, 1, 19, 3, 14, 7), "db": -2.2250738585072014e-308,
            "en": "large",
        }
    sign = -1 if n % 2 else 1
    tm = datetime.timedelta(hours=n % 100, minutes=n % 60, seconds=(n * 7) % 60)
    if n % 3 == 0:
        tm = -tm
    return {
        "id": n,
        "i": sign * (n * 7919 + v),
        "iu": n * 100003 + v,
        "bi": sign * (n * 10 ** 12 + 7 + v),
        "bu": n * 10 ** 15 + 3 + v,
        "de": (Decimal(n * 1234567 + v) / 1000).quantize(Decimal("0.001")) * sign,
        "vc": "" if n % 5 == 0 else f"row {n}.{v} ünïcødé",
        "tx": ("text %d " % n) * (n % 7 + 1),
        "bl": bytes([n % 256, 0, 255]) + bytes(range(n % 40)),
        "dt": datetime.datetime(2024, 1, 1) + datetime.timedelta(days=n, seconds=n * 37 + v, microseconds=n * 1001),
        "da": datetime.date(2024, 2, 29) + datetime.timedelta(days=n + v),
        "tm": tm,
        "ts": datetime.datetime(2024, 1, 1) + datetime.timedelta(hours=n, seconds=v),
        "db": n * 1.5 - 0.125 + v,
        "en": ENUM_VALUES[(n + v) % 3],
    }


def time_literal(td):
    """A TIME literal ('-838:59:59') for a timedelta of whole seconds."""
    total = int(td.total_seconds())
    sign = "-" if total < 0 else ""
    total = abs(total)
    return "%s%02d:%02d:%02d" % (sign, total // 3600, total // 60 % 60, total % 60)


def sql_args(r):
    """The row's values as PyMySQL arguments, in COLUMNS order (TIME as a
    literal string: PyMySQL's timedelta escaping mangles negative values)."""
    out = []
    for c in COLUMNS:
        val = r[c]
        if c == "tm" and val is not None:
            val = time_literal(val)
        out.append(val)
    return out


INSERT = (f"INSERT INTO {SCHEMA}.{TABLE} ({', '.join(COLUMNS)}) VALUES ("
          + ", ".join(["%s"] * len(COLUMNS)) + ")")
UPDATE = (f"UPDATE {SCHEMA}.{TABLE} SET " + ", ".join(f"{c} = %s" for c in COLUMNS[1:])
          + " WHERE id = %s")
DELETE = f"DELETE FROM {SCHEMA}.{TABLE} WHERE id = %s"


# --------------------------------------------------------------------------
# What go-mysql (tests/clients/go/binlogreader) prints for a row.

def go_expected(r):
    """The JSON values binlogreader prints for model row r, in COLUMNS order."""
    out = []
    for c in COLUMNS:
        v = r[c]
        if v is None:
            out.append(None)
        elif c == "de":
            out.append(v)  # compared as Decimal (go prints trailing zeros trimmed)
        elif c == "bl":
            out.append(v)  # compared as bytes
        elif c == "dt":
            out.append(v.strftime("%Y-%m-%d %H:%M:%S.%f"))
        elif c == "da":
            out.append(v.strftime("%Y-%m-%d"))
        elif c == "tm":
            out.append(time_literal(v))
        elif c == "ts":
            out.append(v.strftime("%Y-%m-%d %H:%M:%S"))
        elif c == "en":
            out.append(ENUM_VALUES.index(v) + 1)  # go-mysql gives the ENUM index
        else:
            out.append(v)
    return out


def go_normalise(values):
    """binlogreader's JSON values -> comparable with go_expected."""
    out = []
    for c, v in zip(COLUMNS, values):
        if v is None:
            out.append(None)
        elif c == "de":
            out.append(Decimal(v))
        elif c == "bl":
            out.append(bytes.fromhex(v["hex"]) if isinstance(v, dict) else v.encode())
        else:
            out.append(v)
    return out


# --------------------------------------------------------------------------
# A workload that records what it changed

class Workload:
    """Writes rows through a PyMySQL connection (autocommit on) and records
    every row change in order as ("write", None, after), ("update", before,
    after) or ("delete", before, None). With conn=None it only records (to
    know beforehand how many row changes a phase makes)."""

    def __init__(self, conn):
        self.conn = conn
        self.state = {}
        self.changes = []
        self.version = {}
        self._exec("SET time_zone = '+00:00'")  # the model's TIMESTAMPs are UTC

    def _exec(self, sql, args=None, many=False):
        if self.conn is None:
            return None
        with self.conn.cursor() as cur:
            if many:
                cur.executemany(sql, args)
            else:
                cur.execute(sql, args)
            return cur.fetchall()

    def create(self):
        self._exec(f"CREATE DATABASE IF NOT EXISTS {SCHEMA}")
        self._exec(CREATE_TABLE)

    def insert(self, *ns):
        """One INSERT statement for all ns (one rows event with several rows)."""
        rows = [row(n) for n in ns]
        if len(rows) == 1:
            self._exec(INSERT, sql_args(rows[0]))
        else:
            self._exec(INSERT, [sql_args(r) for r in rows], many=True)
        for r in rows:
            self.state[r["id"]] = r
            self.version[r["id"]] = 0
            self.changes.append(("write", None, r))

    def update(self, n):
        v = self.version[n] + 1
        after = row(n, v)
        self._exec(UPDATE, sql_args(after)[1:] + [n])
        self.changes.append(("update", self.state[n], after))
        self.state[n] = after
        self.version[n] = v

    def set_vc(self, ns, text):
        """One UPDATE statement changing vc of several rows."""
        ns = sorted(ns)
        self._exec(f"UPDATE {SCHEMA}.{TABLE} SET vc = %s WHERE id IN ("
                   + ", ".join(str(n) for n in ns) + ")", (text,))
        for n in ns:
            before = self.state[n]
            after = dict(before, vc=text)
            if before == after:
                continue  # MySQL logs no row for an unchanged row
            self.changes.append(("update", before, after))
            self.state[n] = after

    def delete(self, n):
        self._exec(DELETE, (n,))
        self.changes.append(("delete", self.state.pop(n), None))

    def begin(self):
        self._exec("BEGIN")

    def commit(self):
        self._exec("COMMIT")

    def gtid_executed(self):
        return self._exec("SELECT @@GLOBAL.gtid_executed")[0][0].replace("\n", "")

    def master_status(self):
        r = self._exec("SHOW MASTER STATUS")[0]
        return r[0], int(r[1])

    def flush(self):
        self._exec("FLUSH BINARY LOGS")

    def phase(self, first, count):
        """A mixed phase over ids first..first+count-1 (ids not used before):
        single and multi-row INSERTs, an explicit transaction with UPDATEs, a
        DELETE and an INSERT, a multi-row UPDATE, single UPDATEs and DELETEs.
        Returns its row changes."""
        ids = list(range(first, first + count))
        start = len(self.changes)
        half = max(1, len(ids) // 2)
        for n in ids[:half]:
            self.insert(n)
        if len(ids) > half:
            self.insert(*ids[half:])
        self.begin()
        for n in ids[::3]:
            self.update(n)
        self.delete(ids[-1])
        self.insert(ids[-1])
        self.commit()
        self.set_vc(ids[1::4], f"bulk {first}")
        for n in ids[::5]:
            self.update(n)
        for n in ids[2::6]:
            self.delete(n)
        return self.changes[start:]


def phase_changes(first, count):
    """The row changes Workload.phase(first, count) will make on fresh ids."""
    return Workload(None).phase(first, count)


def compare(got, want, what):
    """Decoded row changes equal the ones written, in order (the first
    difference named)."""
    assert len(got) == len(want), (f"{what}: {len(got)} row changes decoded, {len(want)} written;\n"
                                   f"first got {got[:2]!r}\nfirst want {want[:2]!r}")
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"{what}: change #{i} differs:\n got  {g!r}\n want {w!r}"
