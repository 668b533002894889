"""Issue 14, fuzzing: the COM_* bodies the fuzz targets drive (fuzz/), sent
to a real server. Each short or lying body gets its MySQL error (code and
SQLSTATE) and the connection goes on; afterwards other sessions and
committed rows are fine. The inputs the fuzzers found are replayed by
scripts/fuzz.sh replay (fuzz/regressions/)."""

import os
import struct
import zlib

import harness as h

COM_FIELD_LIST = 0x04
COM_PROCESS_KILL = 0x0C
COM_PING = 0x0E
COM_BINLOG_DUMP_GTID = 0x1E
COM_REGISTER_SLAVE = 0x15
COM_STMT_PREPARE = 0x16
COM_STMT_EXECUTE = 0x17
COM_STMT_CLOSE = 0x19
COM_STMT_RESET = 0x1A
COM_SET_OPTION = 0x1B

_root = None
_keeper = None


def setup_module():
    global _root, _keeper
    _root = h.root()
    h.query(_root, "CREATE DATABASE IF NOT EXISTS hostile_fuzz")
    h.query(_root, "DROP TABLE IF EXISTS hostile_fuzz.t")
    h.query(_root, "CREATE TABLE hostile_fuzz.t (id INT PRIMARY KEY, v VARCHAR(10))")
    h.query(_root, "INSERT INTO hostile_fuzz.t VALUES (1, 'one'), (2, 'two')")
    _keeper = h.root()
    assert h.scalar(_keeper, "SELECT COUNT(*) FROM hostile_fuzz.t") == 2


def teardown_module():
    if _root is not None:
        try:
            h.query(_root, "DROP DATABASE IF EXISTS hostile_fuzz")
        except Exception:  # noqa: BLE001
            pass
    h.close_quietly(_keeper)
    h.close_quietly(_root)


def expect_err(c, cmd, body, code, sqlstate):
    pkt = c.command(cmd, body)
    assert pkt[:1] == b"\xff", f"command 0x{cmd:02x} {body!r}: expected ERR {code}, got {pkt[:40]!r}"
    got, state, msg = h.parse_err(pkt)
    assert (got, state) == (code, sqlstate), f"command 0x{cmd:02x} {body!r}: ERR {got} ({state}) {msg}"
    return msg


def still_answers(c):
    assert c.command(COM_PING)[:1] == b"\x00", "COM_PING after the probe"


def committed_rows_intact():
    assert h.query(_keeper, "SELECT id, v FROM hostile_fuzz.t ORDER BY id") == ((1, "one"), (2, "two"))
    h.assert_server_ok()


def test_short_process_kill_is_malformed():
    c = h.raw_login("root")
    try:
        for body in (b"", b"\x01", b"\x01\x00\x00"):
            expect_err(c, COM_PROCESS_KILL, body, 1835, "HY000")
            still_answers(c)
    finally:
        c.close()
    committed_rows_intact()


def test_set_option_short_or_unknown_is_unknown_command():
    c = h.raw_login("root")
    try:
        for body in (b"", b"\x00", b"\x02\x00", b"\xff\xff"):
            expect_err(c, COM_SET_OPTION, body, 1047, "08S01")
            still_answers(c)
    finally:
        c.close()
    committed_rows_intact()


def test_register_slave_lengths_past_the_end():
    c = h.raw_login("root")
    try:
        for body in (b"", b"\x02\x00\x00\x00", b"\x02\x00\x00\x00\xffab",
                     b"\x02\x00\x00\x00\x01h\x01u\x05pw", b"\x02\x00\x00\x00\x00\x00\x00\xea"):
            expect_err(c, COM_REGISTER_SLAVE, body, 1835, "HY000")
            still_answers(c)
    finally:
        c.close()
    committed_rows_intact()


def test_stmt_reset_and_close_short_bodies():
    c = h.raw_login("root")
    try:
        expect_err(c, COM_STMT_RESET, b"\x01\x00", 1835, "HY000")
        # COM_STMT_CLOSE has no reply, also when its body is short: the
        # next command is answered as usual.
        c.send_packet(bytes([COM_STMT_CLOSE]) + b"\x01", seq=0)
        still_answers(c)
    finally:
        c.close()
    committed_rows_intact()


def test_stmt_execute_with_lying_parameter_block():
    c = h.raw_login("root")
    try:
        ok = c.command(COM_STMT_PREPARE, b"SELECT ?, ?")
        assert ok[:1] == b"\x00", f"prepare: {ok[:40]!r}"
        sid, ncols, nparams = struct.unpack_from("<IHH", ok, 1)
        assert nparams == 2, ok
        # Drain the parameter and column definitions, each block with its EOF.
        for n in (nparams, ncols):
            for _ in range(n + 1 if n else 0):
                c.read_packet()
        head = struct.pack("<IBI", sid, 0, 1)
        for block in (b"", b"\x00", b"\x00\x01\xfd\x00", b"\x00\x01\x0f\x00\x0f\x00\xfc\xff\xff",
                      b"\x00\x01\x0c\x00\x0a\x00\x0b", b"\x00\x01\xf6\x00\x0f\x00\xfe\xff\xff\xff\xff\xff\xff\xff\xff"):
            expect_err(c, COM_STMT_EXECUTE, head + block, 1210, "HY000")
            still_answers(c)
    finally:
        c.close()
    committed_rows_intact()


def test_field_list_without_nul():
    c = h.raw_login("root")
    try:
        msg = expect_err(c, COM_FIELD_LIST, b"no_such_table", 1146, "42S02")
        assert "no_such_table" in msg, msg
        still_answers(c)
    finally:
        c.close()
    committed_rows_intact()


def test_binlog_dump_gtid_with_a_lying_gtid_set():
    head = struct.pack("<HII", 0, 99, 0) + struct.pack("<Q", 4)
    bodies = (
        head + struct.pack("<I", 100) + b"short",                        # set size past the end
        head + struct.pack("<I", 8) + struct.pack("<Q", 2 ** 60),         # n_sids far too large
        head + struct.pack("<I", 32) + struct.pack("<Q", 1) + b"\x11" * 16 + struct.pack("<Q", 2 ** 62),
        # one interval [5, 1): end before start
        head + struct.pack("<I", 48) + struct.pack("<Q", 1) + b"\x11" * 16 + struct.pack("<QQQ", 1, 5, 1),
    )
    for body in bodies:
        c = h.raw_login("root")
        try:
            expect_err(c, COM_BINLOG_DUMP_GTID, body, 1835, "HY000")
            still_answers(c)
        finally:
            c.close()
    committed_rows_intact()


# ---------------------------------------------------------------- fuzz findings

def test_from_unixtime_after_2262():
    # fuzz/regressions/sql/from_unixtime_past_2262: the conversion went
    # through a nanosecond time_point, which overflows after 2262.
    c = h.root()
    try:
        h.query(c, "SET time_zone = '+00:00'")
        rows = h.query(c, "SELECT CAST(FROM_UNIXTIME(14474360881) AS CHAR), "
                          "CAST(FROM_UNIXTIME(32536771199.5) AS CHAR), FROM_UNIXTIME(32536771200), "
                          "FROM_UNIXTIME(14474360881, '%Y')")
        assert list(rows[0]) == ["2428-09-03 07:48:01", "3001-01-18 23:59:59.5", None, "2428"], rows
    finally:
        h.close_quietly(c)
    committed_rows_intact()


def test_huge_intervals_are_null():
    # fuzz/regressions/sql/interval_minute_second_overflow: an interval count
    # that fits 64 bits overflowed when turned into microseconds.
    c = h.root()
    try:
        rows = h.query(c, "SELECT DATE_ADD('2003-01-01 03:59:59', INTERVAL '02233720368547758:12' MINUTE_SECOND), "
                          "'2003-01-01' + INTERVAL 3999999999999 HOUR, "
                          "CAST(DATE_ADD('2003-01-01', INTERVAL '-1:30' MINUTE_SECOND) AS CHAR)")
        assert list(rows[0]) == [None, None, "2002-12-31 23:58:30"], rows
    finally:
        h.close_quietly(c)
    committed_rows_intact()


def _event(type_code, payload):
    """A v4 event with a CRC32, as binlog/ writes them."""
    size = 19 + len(payload) + 4
    head = struct.pack("<IBIIIH", 0, type_code, 1, size, 0, 0)
    body = head + payload
    return body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)


def test_sluice_binlog_rows_event_without_columns_ends():
    # fuzz/regressions/binlog/rows_event_empty_column_bitmap: a Write_rows
    # event whose column bitmap names no column had rows of zero bytes, and
    # the decoder read the rest of the event as such rows forever.
    tool = os.path.join(h.REPO, "build", "bin", "sluice-binlog")
    if not os.path.exists(tool):
        h.note(f"{tool} not built: skipped")
        return
    fd_payload = struct.pack("<H", 4) + b"8.0.36-sluice".ljust(50, b"\0") + struct.pack("<IB", 0, 19) + \
        bytes([0] * 41) + b"\x01"
    table_map = struct.pack("<Q", 2)[:6] + b"\x01\x00" + b"\x02fz\x00" + b"\x04nopk\x00" + b"\x02\x03\x0f" + \
        b"\x02\x14\x00" + b"\x03"
    rows = struct.pack("<Q", 2)[:6] + b"\x01\x00" + b"\x02\x00" + b"\x02" + b"\x00" + b"\x01\x02\x03\x04\x05"
    data = b"\xfebin" + _event(15, fd_payload) + _event(19, table_map) + _event(30, rows)
    path = os.path.join(h.TMPDIR, f"hostile-fuzz-{os.getpid()}.000001")
    with open(path, "wb") as f:
        f.write(data)
    try:
        rc, out, err = h.run_cmd([tool, "-vv", path], timeout=30)
        assert rc != 0, f"sluice-binlog accepted the event: {out[-400:]}"
        assert "row image of no columns" in out + err, (out[-400:], err[-400:])
    finally:
        os.remove(path)


if __name__ == "__main__":
    h.main(globals())
