"""Commands a client sends before it has read the replies to earlier ones,
and commands that arrive in pieces. A worker reads a connection's commands
through a buffer, with one recv(2) each (Session::NextCommandOnWorker): what
it reads beyond the command it runs must reach whoever reads next (the
worker again, the connection's coroutine for COM_QUIT, a large or split
packet, or a dump), in order, and nothing may be lost or read twice."""

import socket
import struct
import time

import harness as h


def frame(payload, seq=0):
    return struct.pack("<I", len(payload))[:3] + bytes([seq]) + payload


def query_frame(sql):
    return frame(bytes([h.COM_QUERY]) + sql.encode())


def expect_closed(c, what):
    """The server's next act on `c` is to close it."""
    try:
        pkt = c.read_packet(check_seq=False)
    except h.Closed:
        return
    raise AssertionError(f"{what}: {pkt[:40]!r}")


def login():
    c = h.raw_login("root")
    # The first command is read by the connection's coroutine; the ones
    # after it by the worker that ran it.
    assert c.query("SELECT 0") == [["0"]]
    return c


def test_pipelined_queries_are_answered_in_order():
    c = login()
    try:
        n = 200
        c.send_raw(b"".join(query_frame(f"SELECT {i}") for i in range(n)))
        for i in range(n):
            assert c.read_result() == [[str(i)]], i
        assert c.query("SELECT 'after'") == [["after"]]
    finally:
        c.close()


def test_pipelined_errors_and_pings_keep_the_stream_in_step():
    c = login()
    try:
        data = query_frame("SELEKT 1") + frame(bytes([h.COM_PING])) + query_frame("SELECT 2")
        data += frame(bytes([0x60])) + query_frame("SELECT 3")
        c.send_raw(data)
        try:
            c.read_result()
        except h.ServerError as e:
            assert e.errno == 1064, e
        else:
            raise AssertionError("SELEKT 1 did not fail")
        assert c.read_result()[:1] == b"\x00"  # COM_PING: OK
        assert c.read_result() == [["2"]]
        try:
            c.read_result()
        except h.ServerError as e:
            assert e.errno == 1047, e
        else:
            raise AssertionError("command 0x60 did not fail")
        assert c.read_result() == [["3"]]
    finally:
        c.close()


def test_pipelined_quit_ends_the_connection_after_the_reply():
    c = login()
    try:
        c.send_raw(query_frame("SELECT 1") + frame(bytes([h.COM_QUIT])) + query_frame("SELECT 2"))
        assert c.read_result() == [["1"]]
        expect_closed(c, "a command after COM_QUIT was answered")
    finally:
        c.close()
    h.assert_server_ok()


def test_large_command_behind_a_small_one():
    # Larger than what a worker reads at a time (16 KiB): the worker reads
    # the rest of it, or leaves what it has to the coroutine.
    c = login()
    try:
        for size in (16 << 10, 100 << 10, 1 << 20):
            big = "x" * size
            c.send_raw(query_frame("SELECT 1") + query_frame(f"SELECT LENGTH('{big}')") + query_frame("SELECT 3"))
            assert c.read_result() == [["1"]]
            assert c.read_result() == [[str(size)]], size
            assert c.read_result() == [["3"]]
    finally:
        c.close()


def test_command_split_across_writes():
    # Pieces that arrive within the worker's wait, and pieces that arrive
    # after it has handed the connection back (part of the command read).
    c = login()
    try:
        for pause in (0.0, 0.005, 0.2):
            for cut in (1, 3, 4, 5, 12):
                data = query_frame(f"SELECT 'split at {cut}'")
                c.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                c.send_raw(data[:cut])
                time.sleep(pause)
                c.send_raw(data[cut:])
                assert c.read_result() == [[f"split at {cut}"]], (pause, cut)
            # A second command in the same write as the end of the first.
            data = query_frame("SELECT 'a'") + query_frame("SELECT 'b'")
            c.send_raw(data[:7])
            time.sleep(pause)
            c.send_raw(data[7:])
            assert c.read_result() == [["a"]]
            assert c.read_result() == [["b"]]
    finally:
        c.close()


def test_pipelined_binlog_dump():
    c = login()
    try:
        assert c.query("SET @master_binlog_checksum = 'CRC32'")[:1] == b"\x00"
        rows = c.query("SHOW MASTER STATUS")
        file, pos = rows[0][0], int(rows[0][1])
        dump = bytes([h.COM_BINLOG_DUMP]) + struct.pack("<IHI", 4, 1, 0) + file.encode()  # NON_BLOCK
        c.send_raw(query_frame("SELECT 1") + frame(dump))
        assert c.read_result() == [["1"]]
        c.seq = 1
        events = 0
        while True:
            pkt = c.read_packet(check_seq=False)
            if pkt[:1] == b"\xfe" and len(pkt) < 9:
                break
            assert pkt[:1] == b"\x00", pkt[:40]
            events += 1
        assert events >= 3, events  # fake Rotate, Format_description, the file's events
        assert pos >= 4
    finally:
        c.close()
    h.assert_server_ok()


def expect_error_then_close(c, errno):
    try:
        c.read_result()
    except h.ServerError as e:
        assert e.errno == errno, e
    else:
        raise AssertionError(f"expected error {errno}")
    expect_closed(c, "the connection stayed open after KILL of itself")


def test_pipelined_kill_of_itself_answers_then_closes():
    """KILL CONNECTION_ID() behind another command in one write: the worker
    that ran SELECT 1 reads the KILL and runs it; its ERR 1317 must still go
    out before the connection closes, as it does when KILL comes alone."""
    c = login()
    try:
        c.send_raw(query_frame("SELECT 1") + query_frame("KILL CONNECTION_ID()") + query_frame("SELECT 2"))
        assert c.read_result() == [["1"]]
        expect_error_then_close(c, 1317)
    finally:
        c.close()


def test_kill_of_itself_after_a_reply_on_the_worker():
    """The same, sent after the first reply was read: the worker that
    answered SELECT 1 is still waiting for the next command when KILL comes."""
    c = login()
    try:
        assert c.query("SELECT 1") == [["1"]]
        c.send_raw(query_frame("KILL CONNECTION_ID()"))
        expect_error_then_close(c, 1317)
    finally:
        c.close()


if __name__ == "__main__":
    h.main(globals())
