"""Packets of 16 MiB and more: the client splits a long statement into
0xFFFFFF-byte chunks and sluiced reassembles it; a result row longer than
that is split by sluiced and reassembled by the client (protocol.md §1)."""

import harness as h

CHUNK = 0xFFFFFF


def big_conn():
    return h.root(max_allowed_packet=64 * 1024 * 1024)


def test_statement_longer_than_one_chunk():
    c = big_conn()
    try:
        payload = "x" * (CHUNK + 1000)
        assert h.query(c, "SELECT LENGTH(%s)", (payload,)) == ((CHUNK + 1000,),)
    finally:
        c.close()


def test_statement_of_exactly_one_chunk_needs_an_empty_terminator():
    # COM_QUERY byte + "SELECT LENGTH('" + x... + "')" == CHUNK bytes exactly.
    c = big_conn()
    try:
        head, tail = "SELECT LENGTH('", "')"
        n = CHUNK - 1 - len(head) - len(tail)
        assert h.scalar(c, head + "x" * n + tail) == n
    finally:
        c.close()


def test_result_row_longer_than_one_chunk():
    c = big_conn()
    try:
        for n in (CHUNK - 10, CHUNK + 5, 2 * CHUNK + 3):
            v = h.scalar(c, f"SELECT REPEAT('a', {n})")
            assert len(v) == n, (n, len(v))
        assert h.scalar(c, "SELECT 1") == 1  # the stream is still in step
    finally:
        c.close()


if __name__ == "__main__":
    h.main(globals())
