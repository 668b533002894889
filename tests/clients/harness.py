"""Tiny test harness for the client scripts (no pytest).

A test file defines functions named test_* (and optionally setup_module /
teardown_module) and ends with::

    if __name__ == "__main__":
        harness.main(globals())

main() runs the tests in definition order, prints "[ pass ] file::name" or
"[ FAIL ] file::name" plus the traceback, then one line
"RESULT <passed> <failed>", and exits non-zero when anything failed.

The file also holds what several tests share: the connection settings taken
from the environment (SLUICE_PORT, SLUICE_DATADIR, set by run.sh), PyMySQL
helpers, a raw-socket MySQL protocol client, and helpers that start and stop
a private sluiced (for the shutdown / restart tests).

Everything here is bounded: sockets have timeouts, subprocesses have
timeouts, and every polling loop has a maximum number of rounds.
"""

import hashlib
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback

import pymysql

HOST = "127.0.0.1"
PORT = int(os.environ.get("SLUICE_PORT", os.environ.get("PORT", "3306")))
DATADIR = os.environ.get("SLUICE_DATADIR", os.environ.get("DATADIR", ""))
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# The go-mysql reader (tests/clients/go/binlogreader; test_dump_readers.py
# says when it is not built).
BINLOGREADER = os.environ.get("BINLOGREADER", os.path.join(REPO, "tests", "clients", "go", "bin", "binlogreader"))
SLUICED = os.environ.get("SLUICED", os.path.join(REPO, "build", "bin", "sluiced"))
TMPDIR = os.environ.get("SLUICE_TMP", "/tmp")
MARIADB = os.environ.get("MARIADB", "mariadb")
TIMEOUT = 10  # seconds for every socket operation

# PyMySQL error numbers for "the connection is gone" (client-side CR_* codes).
CR_SERVER_GONE = 2006
CR_SERVER_LOST = 2013
LOST_CONNECTION_ERRNOS = (CR_SERVER_GONE, CR_SERVER_LOST)


# --------------------------------------------------------------------------
# Output helpers

def note(msg):
    """An informational line in the test output (never a pass/fail)."""
    print("    note: " + str(msg), flush=True)



def pyrepl_rows(port, server_id, schema, read_timeout=60):
    """The row images python-mysql-replication decodes from the start of
    the binlog for `schema`'s writes and updates, as far as the binlog goes
    now: [(kind, before, after)], kind "write" (before None) or "update",
    rows as dicts of column name to value (they need
    --binlog-row-metadata=FULL for the names)."""
    from pymysqlreplication import BinLogStreamReader
    from pymysqlreplication.row_event import UpdateRowsEvent, WriteRowsEvent
    stream = BinLogStreamReader(connection_settings=dict(host=HOST, port=port, user="root", passwd="",
                                                         connect_timeout=10, read_timeout=read_timeout),
                                server_id=server_id, blocking=False, only_events=[WriteRowsEvent, UpdateRowsEvent],
                                only_schemas=[schema])
    out = []
    try:
        for ev in stream:
            for r in ev.rows:
                if isinstance(ev, WriteRowsEvent):
                    out.append(("write", None, r["values"]))
                else:
                    out.append(("update", r["before_values"], r["after_values"]))
    finally:
        stream.close()
    return out


def go_mysql_rows(port, server_id, rows, table, timeout=60):
    """The row images go-mysql decodes from the first binlog file, reading
    until `rows` row events have come: [(kind, values)] for `table`, kind
    "write" / "update" / "delete", values one row's column values (JSON
    from binlogreader: DECIMAL as a string, bytes as text). None when
    binlogreader was not built: the caller notes that it skipped."""
    if not os.access(BINLOGREADER, os.X_OK):
        note(f"SKIPPED: {BINLOGREADER} was not built (test_dump_readers.py says why)")
        return None
    import json
    p = subprocess.run([BINLOGREADER, f"-port={port}", f"-server-id={server_id}", "-mode=pos",
                        "-file=binlog.000001", "-pos=4", f"-rows={rows}", f"-timeout={timeout}s"],
                       capture_output=True, text=True, timeout=timeout + 60)
    assert p.returncode == 0, p.stderr[-3000:]
    out = []
    for line in p.stdout.splitlines():
        ln = json.loads(line)
        if "rows" not in ln or ln.get("done") or ln.get("table") != table:
            continue
        for values in ln["values"]:
            out.append((ln["rows"], values))
    return out

def main(namespace):
    fname = os.path.basename(namespace.get("__file__", sys.argv[0]))
    tests = [(name, fn) for name, fn in namespace.items()
             if name.startswith("test_") and callable(fn)]
    passed = failed = 0
    setup = namespace.get("setup_module")
    teardown = namespace.get("teardown_module")
    setup_ok = True
    if setup is not None:
        try:
            setup()
        except BaseException:  # noqa: BLE001 - report everything
            setup_ok = False
            print(f"[ FAIL ] {fname}::setup_module", flush=True)
            traceback.print_exc(file=sys.stdout)
            failed += 1
    for name, fn in tests:
        if not setup_ok:
            print(f"[ FAIL ] {fname}::{name} (setup_module failed)", flush=True)
            failed += 1
            continue
        try:
            fn()
        except BaseException:  # noqa: BLE001 - report everything
            print(f"[ FAIL ] {fname}::{name}", flush=True)
            traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
            failed += 1
        else:
            print(f"[ pass ] {fname}::{name}", flush=True)
            passed += 1
    if teardown is not None:
        try:
            teardown()
        except BaseException:  # noqa: BLE001
            print(f"[ FAIL ] {fname}::teardown_module", flush=True)
            traceback.print_exc(file=sys.stdout)
            failed += 1
    print(f"RESULT {passed} {failed}", flush=True)
    sys.stdout.flush()
    os._exit(0 if failed == 0 else 1)  # do not wait on stray threads


# --------------------------------------------------------------------------
# PyMySQL helpers

def connect(user="root", password="", port=None, tls=False, database=None, **kw):
    """A PyMySQL connection; tls=True verifies the server certificate
    against DATADIR/ca.pem (host name not checked: MySQL's generated
    certificate names no host)."""
    datadir = kw.pop("datadir", DATADIR)
    args = dict(host=HOST, port=port or PORT, user=user, password=password,
                connect_timeout=TIMEOUT, read_timeout=60, write_timeout=60,
                autocommit=True)
    if database is not None:
        args["database"] = database
    if tls is True:
        args["ssl"] = {"ca": os.path.join(datadir, "ca.pem"),
                       "check_hostname": False}
    elif tls:
        args["ssl"] = tls  # a dict given by the caller
    else:
        args["ssl_disabled"] = True
    args.update(kw)
    return pymysql.connect(**args)


def root(**kw):
    return connect("root", "", **kw)


def query(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def scalar(conn, sql):
    rows = query(conn, sql)
    assert len(rows) == 1 and len(rows[0]) == 1, f"{sql!r}: expected one value, got {rows!r}"
    return rows[0][0]


def errno_of(exc):
    if isinstance(exc, pymysql.err.MySQLError) and exc.args and isinstance(exc.args[0], int):
        return exc.args[0]
    # mysql.connector errors
    n = getattr(exc, "errno", None)
    return n


def expect_error(errnos, fn, *args, what=None, **kwargs):
    """Calls fn(*args, **kwargs) and asserts it raises a MySQL error with one
    of errnos; returns the exception."""
    if isinstance(errnos, int):
        errnos = (errnos,)
    try:
        result = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001
        n = errno_of(e)
        assert n in errnos, f"{what or fn}: expected error {errnos}, got {type(e).__name__} {e!r}"
        return e
    raise AssertionError(f"{what or fn}: expected error {errnos}, but it succeeded: {result!r}")


def expect_sql_error(conn, sql, errnos):
    return expect_error(errnos, query, conn, sql, what=sql)


def close_quietly(conn):
    if conn is None:
        return
    try:
        conn.close()
    except Exception:  # noqa: BLE001
        pass


def assert_server_ok(port=None):
    """A fresh connection as root still works."""
    c = root(port=port)
    try:
        assert scalar(c, "SELECT 1") == 1
    finally:
        close_quietly(c)


def bounded_poll(predicate, rounds=100, interval=0.1, what="condition"):
    """Calls predicate() up to `rounds` times; returns its first truthy value."""
    last = None
    for _ in range(rounds):
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"{what} not reached after {rounds} polls (last: {last!r})")


# --------------------------------------------------------------------------
# Raw protocol client

CLIENT_LONG_PASSWORD = 0x1
CLIENT_LONG_FLAG = 0x4
CLIENT_CONNECT_WITH_DB = 0x8
CLIENT_PROTOCOL_41 = 0x200
CLIENT_SSL = 0x800
CLIENT_TRANSACTIONS = 0x2000
CLIENT_SECURE_CONNECTION = 0x8000
CLIENT_MULTI_RESULTS = 0x20000
CLIENT_PLUGIN_AUTH = 0x80000
CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 0x200000
CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS = 0x400000

RAW_CAPS = (CLIENT_LONG_PASSWORD | CLIENT_LONG_FLAG | CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS
            | CLIENT_SECURE_CONNECTION | CLIENT_MULTI_RESULTS | CLIENT_PLUGIN_AUTH)

COM_QUIT = 0x01
COM_INIT_DB = 0x02
COM_QUERY = 0x03
COM_PING = 0x0E
COM_BINLOG_DUMP = 0x12
COM_REGISTER_SLAVE = 0x15
COM_BINLOG_DUMP_GTID = 0x1E


class Closed(Exception):
    """The server closed the connection (EOF or reset)."""


class ServerError(Exception):
    def __init__(self, errno, sqlstate, message):
        super().__init__(f"ERR {errno} ({sqlstate}): {message}")
        self.errno = errno
        self.sqlstate = sqlstate
        self.message = message


def parse_err(payload):
    assert payload[:1] == b"\xff", f"not an ERR packet: {payload[:40]!r}"
    code = struct.unpack("<H", payload[1:3])[0]
    if payload[3:4] == b"#":
        return code, payload[4:9].decode(), payload[9:].decode(errors="replace")
    return code, "", payload[3:].decode(errors="replace")


def native_scramble(password, scramble):
    if not password:
        return b""
    p = password.encode() if isinstance(password, str) else password
    h1 = hashlib.sha1(p).digest()
    h2 = hashlib.sha1(h1).digest()
    h3 = hashlib.sha1(scramble + h2).digest()
    return bytes(a ^ b for a, b in zip(h1, h3))


def sha2_scramble(password, scramble):
    if not password:
        return b""
    p = password.encode() if isinstance(password, str) else password
    h1 = hashlib.sha256(p).digest()
    h2 = hashlib.sha256(h1).digest()
    h3 = hashlib.sha256(h2 + scramble).digest()
    return bytes(a ^ b for a, b in zip(h1, h3))


def lenenc_int(data, pos):
    b = data[pos]
    if b < 0xFB:
        return b, pos + 1
    if b == 0xFB:
        return None, pos + 1
    if b == 0xFC:
        return struct.unpack("<H", data[pos + 1:pos + 3])[0], pos + 3
    if b == 0xFD:
        return int.from_bytes(data[pos + 1:pos + 4], "little"), pos + 4
    return struct.unpack("<Q", data[pos + 1:pos + 9])[0], pos + 9


def lenenc_str(data, pos):
    n, pos = lenenc_int(data, pos)
    if n is None:
        return None, pos
    return data[pos:pos + n], pos + n


class RawConn:
    """A minimal, strict MySQL protocol client over a plain socket."""

    def __init__(self, port=None, timeout=TIMEOUT):
        self.sock = socket.create_connection((HOST, port or PORT), timeout=timeout)
        self.sock.settimeout(timeout)
        self.seq = 0
        self.greeting = None
        self.scramble = b""
        self.server_caps = 0
        self.connection_id = None
        self.server_version = None
        self.auth_plugin = None

    # ---- framing
    def _recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            try:
                chunk = self.sock.recv(n - len(buf))
            except (ConnectionResetError, BrokenPipeError) as e:
                raise Closed(str(e)) from e
            except socket.timeout as e:
                raise AssertionError(
                    f"server did not answer within {TIMEOUT} s (hang); had {len(buf)}/{n} bytes") from e
            if not chunk:
                raise Closed(f"EOF after {len(buf)}/{n} bytes")
            buf += chunk
        return buf

    def read_packet(self, check_seq=True):
        payload = b""
        while True:
            hdr = self._recv_exact(4)
            length = hdr[0] | (hdr[1] << 8) | (hdr[2] << 16)
            seq = hdr[3]
            if check_seq:
                assert seq == self.seq, f"server sent sequence id {seq}, expected {self.seq}"
            self.seq = (seq + 1) % 256
            payload += self._recv_exact(length)
            if length < 0xFFFFFF:
                return payload

    def send_raw(self, data):
        try:
            self.sock.sendall(data)
        except (ConnectionResetError, BrokenPipeError) as e:
            raise Closed(str(e)) from e

    def send_packet(self, payload, seq=None):
        if seq is not None:
            self.seq = seq
        self.send_raw(struct.pack("<I", len(payload))[:3] + bytes([self.seq]) + payload)
        self.seq = (self.seq + 1) % 256

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    # ---- connection phase
    def read_greeting(self):
        g = self.read_packet()
        if g[:1] == b"\xff":
            raise ServerError(*parse_err(g))
        assert g[0] == 10, f"protocol version {g[0]}"
        end = g.index(b"\0", 1)
        self.server_version = g[1:end].decode()
        pos = end + 1
        self.connection_id = struct.unpack("<I", g[pos:pos + 4])[0]
        pos += 4
        part1 = g[pos:pos + 8]
        pos += 9
        caps_lo = struct.unpack("<H", g[pos:pos + 2])[0]
        pos += 2
        pos += 1  # charset
        pos += 2  # status
        caps_hi = struct.unpack("<H", g[pos:pos + 2])[0]
        pos += 2
        self.server_caps = caps_lo | (caps_hi << 16)
        auth_len = g[pos]
        pos += 1 + 10
        n2 = max(13, auth_len - 8)
        part2 = g[pos:pos + n2]
        pos += n2
        self.scramble = part1 + part2[:12]
        rest = g[pos:]
        self.auth_plugin = rest.split(b"\0", 1)[0].decode()
        self.greeting = g
        return g

    def handshake_response(self, user, auth, db=None, plugin="mysql_native_password", caps=None):
        caps = RAW_CAPS if caps is None else caps
        if db is not None:
            caps |= CLIENT_CONNECT_WITH_DB
        out = struct.pack("<IIB", caps, 16 * 1024 * 1024, 255) + b"\0" * 23
        out += user.encode() + b"\0"
        out += bytes([len(auth)]) + auth
        if db is not None:
            out += db.encode() + b"\0"
        out += plugin.encode() + b"\0"
        return out

    def login(self, user, password="", db=None, caps=None):
        """Authenticates with mysql_native_password (following an auth
        switch to either built-in plugin). Returns the OK payload; raises
        ServerError on ERR."""
        if self.greeting is None:
            self.read_greeting()
        auth = native_scramble(password, self.scramble)
        self.send_packet(self.handshake_response(user, auth, db, caps=caps))
        for _ in range(5):
            pkt = self.read_packet()
            if pkt[:1] == b"\x00":
                return pkt
            if pkt[:1] == b"\xff":
                raise ServerError(*parse_err(pkt))
            if pkt[:1] == b"\xfe":  # AuthSwitchRequest
                end = pkt.index(b"\0", 1)
                plugin = pkt[1:end].decode()
                data = pkt[end + 1:].rstrip(b"\0")[:20]
                if plugin == "mysql_native_password":
                    self.send_packet(native_scramble(password, data))
                elif plugin == "caching_sha2_password":
                    self.send_packet(sha2_scramble(password, data))
                else:
                    raise AssertionError(f"unexpected auth switch to {plugin}")
                continue
            if pkt[:2] == b"\x01\x03":  # caching_sha2 fast auth success, OK follows
                continue
            raise AssertionError(f"unexpected packet during auth: {pkt[:40]!r}")
        raise AssertionError("authentication did not finish in 5 packets")

    # ---- command phase
    def command(self, cmd, body=b""):
        """Sends a command (seq 0) and returns the first response packet."""
        self.send_packet(bytes([cmd]) + body, seq=0)
        return self.read_packet()

    def query(self, sql):
        """COM_QUERY; returns rows (list of lists of str/None) or the OK payload.
        Raises ServerError on ERR."""
        self.send_packet(bytes([COM_QUERY]) + sql.encode(), seq=0)
        return self.read_result()

    def read_result(self):
        """Reads one command's response: rows, or the OK payload. Raises
        ServerError on ERR. (With query() split from it, a test can send
        several commands before reading their responses.)"""
        self.seq = 1
        first = self.read_packet()
        if first[:1] == b"\xff":
            raise ServerError(*parse_err(first))
        if first[:1] == b"\x00":
            return first
        ncols, _ = lenenc_int(first, 0)
        for _ in range(ncols):
            self.read_packet()
        eof = self.read_packet()
        assert eof[:1] == b"\xfe", f"expected EOF after column definitions, got {eof[:20]!r}"
        rows = []
        for _ in range(1000000):
            pkt = self.read_packet()
            if pkt[:1] == b"\xfe" and len(pkt) < 9:
                return rows
            if pkt[:1] == b"\xff":
                raise ServerError(*parse_err(pkt))
            row, pos = [], 0
            for _ in range(ncols):
                v, pos = lenenc_str(pkt, pos)
                row.append(None if v is None else v.decode())
            rows.append(row)
        raise AssertionError("resultset too long")

    def expect_err_or_close(self, what):
        """Reads until an ERR packet or EOF. Returns ('err', errno, msg) or
        ('closed', None, reason). Fails on anything else (e.g. OK)."""
        try:
            pkt = self.read_packet(check_seq=False)
        except Closed as e:
            return ("closed", None, str(e))
        if pkt[:1] == b"\xff":
            code, state, msg = parse_err(pkt)
            return ("err", code, msg)
        raise AssertionError(f"{what}: expected ERR or close, got packet {pkt[:60]!r}")


def raw_login(user, password="", db=None, port=None):
    c = RawConn(port=port)
    c.login(user, password, db)
    return c


# --------------------------------------------------------------------------
# Private servers (shutdown / restart / initialize tests)

def local_listener(backlog=8):
    """A socket listening on HOST at a free port (a test's proxy)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((HOST, 0))
    s.listen(backlog)
    return s


def server_send_queue(server_port, client_port):
    """Bytes a server on HOST:server_port has queued on its end of the
    connection from client_port, unsent or unacknowledged (tx_queue in
    /proc/net/tcp, what ss shows as Send-Q); 0 when there is no such
    connection."""
    local, remote = f":{server_port:04X}", f":{client_port:04X}"
    with open("/proc/net/tcp") as f:
        for line in f.read().splitlines()[1:]:
            fields = line.split()
            if fields[1].endswith(local) and fields[2].endswith(remote):
                return int(fields[4].split(":")[0], 16)
    return 0


def thread_stats(pid):
    """(name, stat fields after the name) of each thread of process pid,
    from /proc/PID/task/*; fields[0] is the state (field 3 of proc(5)).
    A thread that ends while being read is left out."""
    out = []
    task_dir = f"/proc/{pid}/task"
    for tid in os.listdir(task_dir):
        try:
            with open(f"{task_dir}/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"{task_dir}/{tid}/stat") as f:
                out.append((name, f.read().rsplit(")", 1)[1].split()))
        except OSError:
            pass
    return out


def free_port():
    s = socket.socket()
    try:
        s.bind((HOST, 0))
        return s.getsockname()[1]
    finally:
        s.close()


def own_crash_handler_env():
    """The environment for a sluiced that a test crashes on purpose (kill
    -SEGV, -ABRT): under a sanitizer build (scripts/sanitize.sh) the
    sanitizer must leave those signals to sluiced's own crash report."""
    env = dict(os.environ)
    for var in ("ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"):
        if env.get(var):
            env[var] += ":handle_segv=0:handle_abort=0:handle_sigbus=0"
    return env


class Server:
    """A private sluiced process on its own port and datadir."""

    def __init__(self, datadir, port=None, log_error=None, extra=(), env=None):
        self.datadir = datadir
        self.env = env  # None: this process's environment
        self.port = port or free_port()
        self.log_error = log_error or os.path.join(os.path.dirname(datadir.rstrip("/")),
                                                   os.path.basename(datadir.rstrip("/")) + ".err")
        self.extra = list(extra)
        self.proc = None

    def argv(self):
        return [SLUICED, f"--datadir={self.datadir}", f"--port={self.port}",
                f"--bind-address={HOST}", f"--log-error={self.log_error}"] + self.extra

    def start(self, wait=True, password="", tls=False):
        self.stdout = open(self.log_error + ".stdout", "ab")
        self.proc = subprocess.Popen(self.argv(), stdout=self.stdout, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=self.env)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, rounds=150):
        """Waits (at most ~30 s) until a TCP connection gets a greeting."""
        last = None
        for _ in range(rounds):
            if self.proc.poll() is not None:
                raise AssertionError(f"sluiced exited with {self.proc.returncode} during start; "
                                     f"log tail:\n{self.log_tail()}")
            try:
                c = RawConn(port=self.port, timeout=2)
                try:
                    c.read_greeting()
                    return
                finally:
                    c.close()
            except Exception as e:  # noqa: BLE001
                last = e
            time.sleep(0.2)
        raise AssertionError(f"sluiced on port {self.port} not ready: {last!r}; log tail:\n{self.log_tail()}")

    def log_tail(self, n=30):
        try:
            with open(self.log_error, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError as e:
            return f"(no log: {e})"

    def wait_exit(self, timeout=30):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"sluiced (pid {self.proc.pid}) did not exit within {timeout} s")

    def terminate(self, timeout=10):
        """SIGTERM, wait up to timeout, then SIGKILL. Returns the exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            raise AssertionError(f"sluiced did not stop within {timeout} s of SIGTERM (killed)")

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass


class PrivateServers:
    """The private sluiceds one test file starts (each on its own port and
    datadir, with `extra` options), all killed by kill_all() at teardown."""

    def __init__(self, extra=()):
        self.extra = list(extra)
        self.servers = []

    def start(self, name, extra=(), datadir=None):
        srv = Server(datadir or temp_dir(name), extra=self.extra + list(extra))
        self.servers.append(srv)
        return srv.start()

    def kill_all(self):
        for srv in self.servers:
            srv.kill()


def temp_dir(name):
    base = os.path.join(TMPDIR, "private")
    os.makedirs(base, exist_ok=True)
    path = os.path.join(base, f"{name}-{os.getpid()}-{int(time.time() * 1000) % 100000000}")
    return path


def run_cmd(argv, timeout=60, input=None):
    """Runs a command; returns (rc, stdout, stderr) as text."""
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, input=input)
    return p.returncode, p.stdout, p.stderr


def mariadb_cli(sql, user="root", password=None, port=None, extra=()):
    argv = [MARIADB, "--no-defaults", f"-h{HOST}", f"-P{port or PORT}", f"-u{user}"]
    if password is not None:
        argv.append(f"-p{password}")
    argv += list(extra) + ["--batch", "-e", sql]
    return run_cmd(argv, timeout=60)


TEMP_PASSWORD_RE = re.compile(r"A temporary password is generated for root@localhost: (\S+)")


def run_workers(n, fn, timeout=120):
    """Runs fn(k) for k in range(n), each on a thread of its own, all at
    once; waits up to `timeout` seconds for each and returns the exceptions
    they raised (empty: all went through)."""
    errors = []

    def body(k):
        try:
            fn(k)
        except Exception as e:  # noqa: BLE001 - reported by the caller
            errors.append(e)
    threads = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    return errors


def run_in_thread(fn):
    """Starts fn() in a thread; returns (thread, box) where box gets
    'result' or 'error' (the exception)."""
    box = {}

    def body():
        try:
            box["result"] = fn()
        except Exception as e:  # noqa: BLE001 - reported by the caller
            box["error"] = e
    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t, box
