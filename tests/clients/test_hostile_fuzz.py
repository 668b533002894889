"""Issue 14, fuzzing: the COM_* bodies the fuzz targets drive (fuzz/), sent
to a real server. Each short or lying body gets its MySQL error (code and
SQLSTATE) and the connection goes on; afterwards other sessions and
committed rows are fine. The inputs the fuzzers found are replayed by
scripts/fuzz.sh replay (fuzz/regressions/)."""

import struct

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


if __name__ == "__main__":
    h.main(globals())
