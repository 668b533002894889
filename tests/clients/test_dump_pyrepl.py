"""The binlog dump (COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID) read by
python-mysql-replication 1.0.17 (pip mysql-replication), the library of
many Python CDC tools: by position (non-blocking to the end and blocking
while rows are written), from a mid-file position across a rotation, and by
GTID set (auto_position), with only Write/Update/DeleteRowsEvent. Every
row's values are compared with the model in cdc_model.py (a table with
many column types and NULLs). The server runs with
--binlog-row-metadata=FULL: the library takes column names, signedness and
ENUM values from the Table_map metadata.

What the library sends before it streams (clients.md) is answered by the
server or the library raises: SET NAMES utf8, SET AUTOCOMMIT = 0, SHOW
GLOBAL VARIABLES LIKE 'BINLOG_CHECKSUM', SET @master_binlog_checksum=
@@global.binlog_checksum, SET @slave_uuid/@replica_uuid, SET
@master_heartbeat_period, SET @mariadb_slave_capability=4, COM_REGISTER_SLAVE
(report_slave), and on its control connection (database
information_schema) SHOW VARIABLES LIKE 'BINLOG_ROW_METADATA'.

Each test runs its own sluiced."""

import threading

import cdc_model as m
import harness as h

from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import GtidEvent, RotateEvent
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

ROW_EVENTS = [WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent]
READ_TIMEOUT = 30  # seconds; a dump that stops sending fails the read instead of hanging
_servers = h.PrivateServers(extra=["--binlog-row-metadata=FULL"])
_next_server_id = [300]
start = _servers.start


def teardown_module():
    _servers.kill_all()


def settings(srv):
    return dict(host=h.HOST, port=srv.port, user="root", passwd="",
                connect_timeout=10, read_timeout=READ_TIMEOUT)


def reader(srv, **kw):
    _next_server_id[0] += 1
    kw.setdefault("only_events", ROW_EVENTS)
    return BinLogStreamReader(connection_settings=settings(srv), server_id=_next_server_id[0], **kw)


def flatten(ev):
    """A rows event as model changes (kind, before, after)."""
    assert (ev.schema, ev.table) == (m.SCHEMA, m.TABLE), (ev.schema, ev.table)
    out = []
    for r in ev.rows:
        if isinstance(ev, WriteRowsEvent):
            out.append(("write", None, dict(r["values"])))
        elif isinstance(ev, UpdateRowsEvent):
            out.append(("update", dict(r["before_values"]), dict(r["after_values"])))
        else:
            out.append(("delete", dict(r["values"]), None))
    return out



def read_all(stream, what):
    """Every row change of a non-blocking stream (it ends at the server's EOF)."""
    got = []
    try:
        for ev in stream:
            got += flatten(ev)
    finally:
        stream.close()
    return got


def read_n(stream, n, what):
    """The first n row changes of a blocking stream."""
    got = []
    for ev in stream:
        got += flatten(ev)
        if len(got) >= n:
            return got
    raise AssertionError(f"{what}: the stream ended after {len(got)} of {n} row changes")


def dump_threads(conn):
    return [r for r in h.query(conn, "SHOW PROCESSLIST") if str(r[4]).startswith("Binlog Dump")]


def wait_no_dump(conn, what):
    """The dump connection ends once its reader has gone. A dump waiting at
    the end of the log notices a closed socket only when a send fails
    (MySQL's do the same: 'zombie' dump threads), and the first send after
    the close usually succeeds (the kernel takes it; the peer's reset comes
    back after): when it is still listed after a while, commits are made,
    one per poll, until a send fails (the dump may send several in one)."""
    try:
        h.bounded_poll(lambda: not dump_threads(conn), rounds=30, interval=0.1, what="")
        return
    except AssertionError:
        h.note(f"{what}: the dump connection outlived its reader until the next event: {dump_threads(conn)!r}")
    h.query(conn, "CREATE TABLE IF NOT EXISTS cdc.nudge (id INT)")

    def nudged_and_gone():
        if not dump_threads(conn):
            return True
        h.query(conn, "INSERT INTO cdc.nudge VALUES (1)")
        return False

    h.bounded_poll(nudged_and_gone, rounds=100, interval=0.1,
                   what=f"{what}: the dump connection ends after the reader closed and events were written")


def test_setup_queries_answered():
    """The statements python-mysql-replication runs before a dump, each
    answered as MySQL 8.0 answers them (checked directly, so a wrong
    answer is named here rather than as a library error)."""
    srv = start("pyrepl-setup")
    c = h.root(port=srv.port)
    try:
        h.query(c, "SET NAMES utf8")
        h.query(c, "SET AUTOCOMMIT = 0")
        assert h.query(c, "SHOW GLOBAL VARIABLES LIKE 'BINLOG_CHECKSUM'") == (("binlog_checksum", "CRC32"),)
        h.query(c, "SET @master_binlog_checksum= @@global.binlog_checksum")
        assert h.scalar(c, "SELECT @master_binlog_checksum") == "CRC32"
        h.query(c, "SET @mariadb_slave_capability=4")
        h.query(c, "SET @slave_uuid = %s, @replica_uuid = %s", ("d0c2b0de-5a1e-11ef-8000-000000000001",) * 2)
        h.query(c, "SET @master_heartbeat_period = %s", (1000000000,))
        status = h.query(c, "SHOW BINARY LOG STATUS")
        assert len(status) == 1 and status[0][0] == "binlog.000001", status
        assert h.query(c, "SHOW MASTER STATUS") == status
        ctl = h.root(port=srv.port, database="information_schema")
        try:
            assert h.query(ctl, "SHOW VARIABLES LIKE 'BINLOG_ROW_METADATA'") == (("binlog_row_metadata", "FULL"),)
        finally:
            h.close_quietly(ctl)
        assert "MariaDB" not in h.scalar(c, "SELECT VERSION()")
    finally:
        h.close_quietly(c)
        srv.terminate()


def test_position_nonblocking():
    """From binlog.000001:4 to the end (BINLOG_DUMP_NON_BLOCK: the server
    ends with EOF), and from a mid-file position (resume_stream) across a
    FLUSH BINARY LOGS."""
    srv = start("pyrepl-pos")
    conn = h.root(port=srv.port)
    try:
        w = m.Workload(conn)
        w.create()
        a = w.phase(1, 12)
        mid_file, mid_pos = w.master_status()
        b1 = w.phase(20, 8)
        w.flush()
        b2 = w.phase(40, 8)

        got = read_all(reader(srv, log_file="binlog.000001", log_pos=4, blocking=False), "from binlog.000001:4")
        m.compare(got, a + b1 + b2, "from binlog.000001:4")

        got = read_all(reader(srv, log_file=mid_file, log_pos=mid_pos, resume_stream=True, blocking=False),
                       f"from {mid_file}:{mid_pos}")
        m.compare(got, b1 + b2, f"from {mid_file}:{mid_pos}")

        # Rotations are seen: the second file starts with a Rotate to binlog.000002.
        stream = reader(srv, log_file="binlog.000001", log_pos=4, blocking=False, only_events=[RotateEvent])
        try:
            names = [ev.next_binlog for ev in stream]
        finally:
            stream.close()
        assert "binlog.000002" in names, names
        wait_no_dump(conn, "non-blocking")
    finally:
        h.close_quietly(conn)
        srv.terminate()


def test_position_blocking_follows_writes():
    """A blocking dump (flags 0) with report_slave (COM_REGISTER_SLAVE),
    slave_uuid and slave_heartbeat: it sends what is there, then waits and
    sends the rows written while it is connected, across a rotation."""
    srv = start("pyrepl-block")
    conn = h.root(port=srv.port)
    stream = None
    try:
        w = m.Workload(conn)
        w.create()
        a = w.phase(1, 10)
        stream = reader(srv, log_file="binlog.000001", log_pos=4, resume_stream=True, blocking=True,
                        report_slave="pyrepl-host", slave_uuid="d0c2b0de-5a1e-11ef-8000-0000000000aa",
                        slave_heartbeat=1)
        got = read_n(stream, len(a), "existing rows")
        m.compare(got, a, "blocking, existing rows")
        sid = _next_server_id[0]
        hosts = h.bounded_poll(lambda: [r for r in h.query(conn, "SHOW SLAVE HOSTS") if int(r[0]) == sid],
                               rounds=50, what="SHOW SLAVE HOSTS lists the registered reader")
        assert hosts[0][1] == "pyrepl-host", hosts
        dumps = dump_threads(conn)
        assert [r[4] for r in dumps] == ["Binlog Dump"], f"SHOW PROCESSLIST while a dump runs: {dumps!r}"

        # Written while the reader waits at the end of the log.
        b = w.phase(30, 6)
        w.flush()
        b += w.phase(50, 6)
        got = read_n(stream, len(b), "rows written while streaming")
        m.compare(got, b, "blocking, rows written while streaming")
    finally:
        if stream is not None:
            stream.close()
        try:
            wait_no_dump(conn, "blocking")
        finally:
            h.close_quietly(conn)
            srv.terminate()


def test_gtid_auto_position():
    """COM_BINLOG_DUMP_GTID (auto_position): the transactions in the given
    set are skipped, the rest are sent; with blocking=True the rows
    committed afterwards follow."""
    srv = start("pyrepl-gtid")
    conn = h.root(port=srv.port)
    stream = None
    try:
        w = m.Workload(conn)
        w.create()
        after_ddl = w.gtid_executed()
        a = w.phase(1, 10)
        ga = w.gtid_executed()
        w.flush()
        b = w.phase(20, 10)
        gb = w.gtid_executed()
        uuid = h.scalar(conn, "SELECT @@server_uuid")
        last_a = int(ga.rsplit("-", 1)[1])

        got = read_all(reader(srv, auto_position=after_ddl, blocking=False), f"auto_position={after_ddl}")
        m.compare(got, a + b, f"auto_position={after_ddl}")

        stream = reader(srv, auto_position=ga, blocking=False, only_events=ROW_EVENTS + [GtidEvent])
        got, gtids = [], []
        try:
            for ev in stream:
                if isinstance(ev, GtidEvent):
                    gtids.append(ev.gtid)
                else:
                    got += flatten(ev)
        finally:
            stream.close()
        m.compare(got, b, f"auto_position={ga}")
        assert gtids, "no GTID event after the given set"
        for g in gtids:
            sid, gno = g.rsplit(":", 1)
            assert sid == uuid and int(gno) > last_a, f"{g} is in {ga}, it must be skipped (all: {gtids})"

        # Everything is in the set: nothing until new commits, then those,
        # written by a second thread once the dump waits (the stream is only
        # touched by this thread: PyMySQL connections are not thread-safe).
        want_c = m.phase_changes(70, 5)
        written, errors = [], []

        def writer():
            c2 = None
            try:
                c2 = h.root(port=srv.port)
                h.bounded_poll(lambda: dump_threads(c2), rounds=100,
                               what="the GTID dump is connected (SHOW PROCESSLIST: Binlog Dump GTID)")
                w2 = m.Workload(c2)
                w2.state, w2.version = dict(w.state), dict(w.version)
                written.extend(w2.phase(70, 5))
            except BaseException as e:  # noqa: BLE001
                errors.append(e)
            finally:
                h.close_quietly(c2)

        stream = reader(srv, auto_position=gb, blocking=True)
        t = threading.Thread(target=writer, daemon=True)
        t.start()
        try:
            got = read_n(stream, len(want_c), f"auto_position={gb}, blocking")
        finally:
            t.join(60)
        assert not errors, f"writer: {errors[0]!r}"
        assert written == want_c
        m.compare(got, want_c, f"auto_position={gb}, blocking")
    finally:
        if stream is not None:
            stream.close()
        try:
            wait_no_dump(conn, "gtid")
        finally:
            h.close_quietly(conn)
            srv.terminate()


if __name__ == "__main__":
    h.main(globals())
