#!/usr/bin/env python3
"""Many concurrent binlog dump readers in one process (a tool, not a test;
used by test_many_readers.py and bench/dump_readers.sh).

Why not 100 mariadb-binlog processes: on 2 cores, 100 processes (each with
its own libmariadb stack) compete with the server far more than one
selector loop does; test_dump_readers.py covers mariadb-binlog itself.

Each reader logs in with harness.RawConn (mysql_native_password), sends what
mariadb-binlog sends before its dump (SET @master_binlog_checksum='NONE',
SET @mariadb_slave_capability=4), then COM_BINLOG_DUMP (file, pos, flags 0 =
blocking, i.e. --stop-never, server_id = --server-id-base + index: readers
with one server_id would evict each other as MySQL's zombie-dump rule says)
and writes what it receives as mariadb-binlog --raw does: one file per
binlog file in its own directory (<dir>/r<index>/binlog.NNNNNN), the magic
then every event as sent, except artificial Rotate and Heartbeat events; a
real Rotate ends the file. All readers share one selector loop; each recv
batch is written with one write(2), so a copy on disk is never behind what
was received by more than one batch.

  binlog_readers.py --port P --user U --password PW --count N --dir D
                    [--index-base 0] [--server-id-base 1000]
                    [--file binlog.000001] [--pos 4] [--status FILE]

Runs until SIGTERM/SIGINT. --status (default <dir>/status.json) is
rewritten (atomically) about twice a second and at exit:
{"count", "connected", "streaming", "ended", "errors": [...],
 "events", "bytes", "pid", "final"}. Exit status 0 when no reader failed.
"""

import argparse
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as h  # noqa: E402

MAGIC = b"\xfebin"
ROTATE_EVENT = 4
HEARTBEAT_EVENT = 27
HEARTBEAT_LOG_EVENT_V2 = 41
LOG_EVENT_ARTIFICIAL_F = 0x20


class Reader:
    def __init__(self, index, server_id, outdir):
        self.index = index
        self.server_id = server_id
        self.outdir = outdir
        self.conn = None
        self.sock = None
        self.buf = bytearray()
        self.partial = bytearray()   # payload of a packet split in 16 MiB parts
        self.fh = None
        self.name = None
        self.events = 0
        self.bytes = 0
        self.error = None
        self.ended = False
        self.pending = None           # the next file's name, after a real Rotate

    def start(self, args, checksum_sql):
        os.makedirs(self.outdir, exist_ok=True)
        c = h.RawConn(port=args.port, timeout=30)
        self.conn = c
        c.login(args.user, args.password)
        for sql in checksum_sql:
            c.query(sql)
        body = struct.pack("<IHI", args.pos, 0, self.server_id) + args.file.encode()
        c.send_packet(bytes([h.COM_BINLOG_DUMP]) + body, seq=0)
        self.sock = c.sock
        self.sock.setblocking(False)

    def open_file(self, name):
        if self.fh is not None:
            self.fh.close()
        self.name = name
        self.pending = None
        self.fh = open(os.path.join(self.outdir, name), "wb", buffering=0)
        self.fh.write(MAGIC)

    def close_file(self):
        if self.fh is not None:
            self.fh.close()
            self.fh = None

    def fail(self, msg):
        if self.error is None:
            self.error = f"reader {self.index} (server_id {self.server_id}): {msg}"
            print(self.error, file=sys.stderr, flush=True)

    def on_readable(self):
        """Reads what is there; returns False when the reader is finished."""
        try:
            data = self.sock.recv(1 << 20)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError as e:
            self.fail(f"recv: {e}")
            return False
        if not data:
            if not self.ended:
                self.fail(f"the server closed the connection (after {self.events} events, file {self.name})")
            return False
        self.buf += data
        out = []
        buf = self.buf
        pos = 0
        n = len(buf)
        ok = True
        while n - pos >= 4:
            length = buf[pos] | (buf[pos + 1] << 8) | (buf[pos + 2] << 16)
            if n - pos - 4 < length:
                break
            payload = buf[pos + 4:pos + 4 + length]
            pos += 4 + length
            if length == 0xFFFFFF or self.partial:
                self.partial += payload
                if length == 0xFFFFFF:
                    continue
                payload, self.partial = self.partial, bytearray()
            ok = self.on_packet(payload, out)
            if not ok:
                break
        del buf[:pos]
        if out and self.fh is not None:
            self.fh.write(b"".join(out))
        return ok

    def on_packet(self, p, out):
        head = p[0] if p else None
        if head == 0x00 and len(p) >= 20:
            ev = p[1:]
            typ = ev[4]
            self.events += 1
            self.bytes += len(ev)
            if typ == HEARTBEAT_EVENT or typ == HEARTBEAT_LOG_EVENT_V2:
                return True
            if typ == ROTATE_EVENT:
                flags = ev[17] | (ev[18] << 8)
                # Rotate body: position (8), the next file's name (no NUL), [CRC32]
                # The first artificial Rotate of a dump carries a CRC32 only
                # when the reader announced CRC32 (MySQL's rule); tell by the
                # CRC itself.
                body_end = len(ev)
                if len(ev) > 27 + 4 and zlib.crc32(ev[:-4]) == struct.unpack_from("<I", ev, len(ev) - 4)[0]:
                    body_end -= 4
                name = bytes(ev[19 + 8:body_end]).decode("latin1")
                if flags & LOG_EVENT_ARTIFICIAL_F:
                    if name != self.name:
                        if out and self.fh is not None:
                            self.fh.write(b"".join(out))
                            out.clear()
                        self.open_file(name)
                    return True
                out.append(bytes(ev))
                if self.fh is not None:
                    self.fh.write(b"".join(out))
                    out.clear()
                self.close_file()
                self.pending = name
                return True
            if self.fh is None:
                if self.pending is None:
                    self.fail(f"event type {typ} before any Rotate")
                    return False
                self.open_file(self.pending)
            out.append(bytes(ev))
            return True
        if head == 0xFE and len(p) < 9:
            self.ended = True
            return False
        if head == 0xFF:
            code, state, msg = h.parse_err(bytes(p))
            self.fail(f"ERR {code} ({state}): {msg}")
            return False
        self.fail(f"unexpected packet {bytes(p[:20])!r}")
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="root")
    ap.add_argument("--password", default="")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--index-base", type=int, default=0)
    ap.add_argument("--server-id-base", type=int, default=1000)
    ap.add_argument("--file", default="binlog.000001")
    ap.add_argument("--pos", type=int, default=4)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--status")
    args = ap.parse_args()
    status_path = args.status or os.path.join(args.dir, "status.json")
    os.makedirs(args.dir, exist_ok=True)

    stop = {"flag": False}

    def on_signal(signum, frame):  # noqa: ARG001
        stop["flag"] = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    readers = []
    errors = []

    checksum_sql = ["SET @master_binlog_checksum='NONE'", "SET @mariadb_slave_capability=4"]

    sel = selectors.DefaultSelector()
    for i in range(args.index_base, args.index_base + args.count):
        r = Reader(i, args.server_id_base + i, os.path.join(args.dir, "r%03d" % i))
        try:
            r.start(args, checksum_sql)
        except Exception as e:  # noqa: BLE001
            r.fail(f"connect/dump: {e!r}")
            errors.append(r.error)
            continue
        readers.append(r)
        sel.register(r.sock, selectors.EVENT_READ, r)

    def write_status(final=False):
        st = {"pid": os.getpid(), "count": args.count, "connected": len(readers),
              "streaming": sum(1 for r in readers if r.events > 0 and r.error is None and not r.ended),
              "ended": sum(1 for r in readers if r.ended),
              "errors": errors + [r.error for r in readers if r.error],
              "events": sum(r.events for r in readers), "bytes": sum(r.bytes for r in readers),
              "final": final}
        tmp = status_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(st, f)
        os.replace(tmp, status_path)
        return st

    write_status()
    last_status = time.monotonic()
    active = len(readers)
    while not stop["flag"] and active > 0:
        for key, _ in sel.select(timeout=0.2):
            r = key.data
            if not r.on_readable():
                sel.unregister(r.sock)
                r.close_file()
                active -= 1
        now = time.monotonic()
        if now - last_status >= 0.5:
            write_status()
            last_status = now
    # Without a stop request the loop ends when every reader failed or ended;
    # keep the status for whoever waits, until told to stop.
    while not stop["flag"]:
        time.sleep(0.2)
    for r in readers:
        r.close_file()
        try:
            r.sock.close()
        except OSError:
            pass
    st = write_status(final=True)
    print(json.dumps({k: st[k] for k in ("count", "connected", "events", "bytes")}), flush=True)
    sys.exit(1 if st["errors"] else 0)


if __name__ == "__main__":
    main()
