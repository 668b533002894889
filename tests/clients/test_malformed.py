"""Malformed input from a raw-socket client. For every probe the server must
answer with an ERR packet or close the connection (never hang, never accept),
and afterwards a fresh PyMySQL connection still works. A PyMySQL connection
opened before the first probe must still answer at the end."""

import random
import socket
import struct

import harness as h

USER = ("mal_user", "mal_pw")
_root = None
_keeper = None  # open across every probe


def setup_module():
    global _root, _keeper
    _root = h.root()
    h.query(_root, f"DROP USER IF EXISTS '{USER[0]}'@'%'")
    h.query(_root, f"CREATE USER '{USER[0]}'@'%' IDENTIFIED WITH mysql_native_password BY '{USER[1]}'")
    _keeper = h.root()
    assert h.scalar(_keeper, "SELECT 1") == 1


def teardown_module():
    h.close_quietly(_keeper)
    h.close_quietly(_root)


def full_response(c):
    """A valid HandshakeResponse41 for USER (needs the greeting read)."""
    return c.handshake_response(USER[0], h.native_scramble(USER[1], c.scramble))


def end_of_connection(c, what):
    """Half-closes our side, then expects ERR or EOF from the server."""
    try:
        c.sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    return c.expect_err_or_close(what)


def after_probe():
    h.assert_server_ok()


# ---------------------------------------------------------------- connection phase

def test_truncated_handshake_response():
    probe = h.RawConn()
    probe.read_greeting()
    full = full_response(probe)
    probe.close()
    lengths = [0, 1, 2, 3, 4, 8, 9, 31, 33, len(USER[0]) + 33, len(USER[0]) + 34,
               len(USER[0]) + 40, len(full) - 1]
    for n in lengths:
        c = h.RawConn()
        try:
            c.read_greeting()
            payload = full_response(c)[:n]
            c.send_packet(payload)  # complete frame, truncated content
            kind, code, msg = c.expect_err_or_close(f"truncated response ({n} bytes)")
            if kind == "err":
                assert code in (1043, 1045, 1835, 1158), f"truncated response ({n} bytes): ERR {code} {msg}"
        finally:
            c.close()
    after_probe()


def test_header_longer_than_payload_then_close():
    # during the handshake
    for claimed, sent in ((100, 10), (0xFFFFFF, 50), (5000, 0)):
        c = h.RawConn()
        try:
            c.read_greeting()
            c.send_raw(struct.pack("<I", claimed)[:3] + b"\x01" + b"x" * sent)
            end_of_connection(c, f"header {claimed}, {sent} bytes, then close")
        finally:
            c.close()
    # after authentication
    c = h.raw_login(*USER)
    try:
        c.send_raw(struct.pack("<I", 1000)[:3] + b"\x00" + b"\x03SELECT 1")
        end_of_connection(c, "command header 1000, 9 bytes, then close")
    finally:
        c.close()
    after_probe()


def test_random_bytes_before_auth():
    rng = random.Random(20240611)
    for rnd in range(24):
        c = h.RawConn()
        try:
            c.read_greeting()
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
            if rnd % 2 == 0:
                # unframed garbage, then our side closes
                c.send_raw(data)
                end_of_connection(c, f"random bytes round {rnd}")
            else:
                # a well-framed packet of garbage; clear CLIENT_SSL so the
                # server does not start a TLS handshake and wait for it
                data = bytearray(data)
                if len(data) >= 2:
                    data[1] &= ~0x08
                c.send_packet(bytes(data))
                c.expect_err_or_close(f"random framed packet round {rnd}")
        finally:
            c.close()
    after_probe()


def test_random_commands_after_auth():
    rng = random.Random(4242)
    # command bytes whose reply is a single OK/ERR packet (or a close)
    commands = [0x02, 0x03, 0x0C, 0x0E, 0x12, 0x15, 0x16, 0x17, 0x1A, 0x1E] + \
               list(range(0x40, 0x100, 0x17))
    for rnd in range(30):
        c = h.raw_login(*USER)
        try:
            cmd = rng.choice(commands)
            body = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
            c.send_packet(bytes([cmd]) + body, seq=0)
            try:
                pkt = c.read_packet()
            except h.Closed:
                continue
            assert pkt[:1] in (b"\x00", b"\xff"), \
                f"command 0x{cmd:02x} with random body: unexpected reply {pkt[:40]!r}"
            # the connection carries on
            pkt = c.command(h.COM_PING)
            assert pkt[:1] == b"\x00", f"COM_PING after 0x{cmd:02x}: {pkt[:40]!r}"
        finally:
            c.close()
    after_probe()


def test_command_before_authentication():
    for seq in (1, 0):
        c = h.RawConn()
        try:
            c.read_greeting()
            c.send_packet(b"\x03SELECT 1", seq=seq)
            kind, code, msg = c.expect_err_or_close(f"COM_QUERY as first packet (seq {seq})")
            if kind == "err":
                assert code in (1043, 1156, 1835), f"COM_QUERY before auth: ERR {code} {msg}"
        finally:
            c.close()
    # COM_QUIT / COM_PING as the handshake response
    for payload in (b"\x01", b"\x0e"):
        c = h.RawConn()
        try:
            c.read_greeting()
            c.send_packet(payload)
            c.expect_err_or_close(f"command 0x{payload[0]:02x} as handshake response")
        finally:
            c.close()
    after_probe()


def test_ssl_request_then_garbage():
    c = h.RawConn()
    try:
        c.read_greeting()
        assert c.server_caps & h.CLIENT_SSL, "server does not offer TLS"
        ssl_request = struct.pack("<IIB", h.RAW_CAPS | h.CLIENT_SSL, 1 << 24, 255) + b"\0" * 23
        c.send_packet(ssl_request)
        c.send_raw(b"this is not a TLS ClientHello" * 4)
        end_of_connection(c, "garbage instead of TLS ClientHello")
    finally:
        c.close()
    after_probe()


def test_wrong_sequence_id_in_handshake():
    c = h.RawConn()
    try:
        c.read_greeting()
        c.send_packet(full_response(c), seq=5)
        kind, code, msg = c.expect_err_or_close("handshake response with seq 5")
        if kind == "err":
            assert code in (1156, 1043), f"seq 5 response: ERR {code} {msg}"
    finally:
        c.close()
    after_probe()


def test_wrong_sequence_id_after_auth():
    c = h.raw_login(*USER)
    try:
        c.send_packet(b"\x03SELECT 1", seq=7)
        kind, code, msg = c.expect_err_or_close("COM_QUERY with seq 7")
        if kind == "err":
            assert code == 1156, f"out-of-order packet: ERR {code} {msg} (MySQL: 1156)"
    finally:
        c.close()
    after_probe()


# ---------------------------------------------------------------- command phase

def test_unknown_command_continues():
    c = h.raw_login(*USER)
    try:
        pkt = c.command(0x60)
        assert pkt[:1] == b"\xff", f"command 0x60: expected ERR 1047, got {pkt[:40]!r}"
        code, state, msg = h.parse_err(pkt)
        assert code == 1047 and state == "08S01", (code, state, msg)
        assert c.query("SELECT 1") == [["1"]]
        pkt = c.command(0xFF, b"junk")
        assert h.parse_err(pkt)[0] == 1047
        assert c.query("SELECT 2") == [["2"]]
    finally:
        c.close()
    after_probe()


def test_invalid_sql_continues():
    c = h.raw_login(*USER)
    try:
        for sql in ("SELEKT 1", "SELECT (", "SELECT 'unterminated", "\x00\x01\x02", ")"):
            try:
                c.query(sql)
            except h.ServerError as e:
                assert e.errno == 1064 and e.sqlstate == "42000", f"{sql!r}: {e}"
            else:
                raise AssertionError(f"{sql!r} did not fail")
            assert c.query("SELECT 1") == [["1"]]
    finally:
        c.close()
    conn = h.connect(*USER)
    try:
        h.expect_sql_error(conn, "SELEKT 1", 1064)
        assert h.scalar(conn, "SELECT 1") == 1
    finally:
        conn.close()
    after_probe()


def test_empty_packet_after_auth():
    c = h.raw_login(*USER)
    try:
        c.send_packet(b"", seq=0)
        kind, code, msg = c.expect_err_or_close("empty command packet")
        if kind == "err":
            assert c.query("SELECT 1") == [["1"]]
    finally:
        c.close()
    after_probe()


def test_oversized_packet():
    original = h.scalar(_root, "SELECT @@global.max_allowed_packet")
    h.query(_root, "SET GLOBAL max_allowed_packet = 1024*1024")
    try:
        # the session value is read-only and taken at connect
        c = h.raw_login(*USER)
        try:
            assert c.query("SELECT @@session.max_allowed_packet") == [["1048576"]]
            big = b"\x03SELECT '" + b"a" * (2 * 1024 * 1024) + b"'"
            try:
                c.send_packet(big, seq=0)
            except h.Closed:
                pass  # the server may close while we are still sending
            kind, code, msg = c.expect_err_or_close("2 MiB COM_QUERY over max_allowed_packet")
            if kind == "err":
                assert code == 1153, f"oversized packet: ERR {code} {msg} (MySQL: 1153)"
        finally:
            c.close()
        # the same through PyMySQL; a query under the limit still works
        conn = h.connect(*USER)
        try:
            assert len(h.scalar(conn, "SELECT '" + "b" * (512 * 1024) + "'")) == 512 * 1024
            h.expect_error((1153,) + h.LOST_CONNECTION_ERRNOS, h.query, conn,
                           "SELECT '" + "a" * (2 * 1024 * 1024) + "'", what="PyMySQL 2 MiB query")
        finally:
            h.close_quietly(conn)
    finally:
        h.query(_root, f"SET GLOBAL max_allowed_packet = {int(original)}")
    after_probe()


def test_many_bad_connections_in_a_row():
    """Short-lived bad connections must not leak sessions."""
    for i in range(40):
        c = h.RawConn()
        try:
            c.read_greeting()
            if i % 2:
                c.send_packet(b"\xff" * 40)
            c.close()
        finally:
            c.close()
    after_probe()

    def settled():
        rows = h.query(_root, "SHOW PROCESSLIST")
        return len(rows) < 20 and rows
    h.bounded_poll(settled, what="processlist to drop the bad connections")


def test_zz_keeper_connection_survived():
    assert h.scalar(_keeper, "SELECT 1") == 1
    assert h.scalar(_keeper, "SELECT CONNECTION_ID()") == _keeper.thread_id()


if __name__ == "__main__":
    h.main(globals())
