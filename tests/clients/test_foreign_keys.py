"""FOREIGN KEY constraints (issue 18) under concurrency, in the binlog and
across a crash; mysql-test/suite/tables/t/foreign_keys.test covers one
session's definitions and results, test_mariadb_replica.py the replica.

  * Lock waits: a child INSERT locks its parent row shared, so it waits for
    a transaction that deletes the parent (1205 with a 1 s
    innodb_lock_wait_timeout; with a long one it waits, and gets 1452 once
    the delete commits, or succeeds once it rolls back). The other way
    round, a DELETE or key UPDATE of a parent waits for a transaction that
    inserted a child of it (1205; 1451 once the insert commits).
  * The binlog, read by python-mysql-replication: as in MySQL 8.0 only the
    parent's row change is logged; the child and grandchild rows that
    ON DELETE CASCADE / ON UPDATE CASCADE change are not (a replica's engine
    cascades itself). Rows events of a session with foreign_key_checks=0
    carry NO_FOREIGN_KEY_CHECKS_F (0x2) and its Query events (BEGIN, DDL)
    OPTION_NO_FOREIGN_KEY_CHECKS (0x4000000) in flags2; other sessions'
    events carry neither.
  * SIGKILL during a cascading load (parent, child, grandchild; three
    autocommit threads): after the restart no row is an orphan, nothing
    acknowledged is lost or undone, and engine and binlog agree (the parent
    table equals the binlog's rows events replayed; the child tables equal
    the binlog's inserts less the rows whose ancestor the binlog deletes),
    and the keys still check and cascade.

Each test runs its own sluiced (--binlog-row-metadata=FULL: the library
takes column names from the Table_map)."""

import os
import random
import signal
import threading
import time

import pymysql

import harness as h

from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import QueryEvent
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

ER_LOCK_WAIT_TIMEOUT = 1205
ER_LOCK_DEADLOCK = 1213
ER_ROW_IS_REFERENCED = 1451
ER_NO_REFERENCED_ROW = 1452
NO_FOREIGN_KEY_CHECKS_F = 0x2                 # Rows_log_event flags
OPTION_NO_FOREIGN_KEY_CHECKS = 0x4000000      # Query_log_event flags2
ROW_EVENTS = [WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent]
CRASH_LOAD_SECONDS = 1.5
CRASH_THREADS = 3
_servers = h.PrivateServers(extra=["--binlog-row-metadata=FULL"])
_next_server_id = [700]


def teardown_module():
    _servers.kill_all()


def wait_executing(watcher, conn_id, sql):
    """Polls SHOW PROCESSLIST until connection conn_id is executing sql: the
    statement reached the server (and, with the lock held elsewhere, waits)."""
    def executing():
        return any(r[0] == conn_id and r[4] == "Query" and r[7] == sql for r in h.query(watcher, "SHOW PROCESSLIST"))
    h.bounded_poll(executing, rounds=100, interval=0.05, what=f"connection {conn_id} executing {sql!r}")


def blocked_statement(watcher, conn, sql):
    """Runs sql on conn in a thread and returns (thread, box) once it is
    seen waiting: executing, and still not done a moment later."""
    conn_id = h.scalar(conn, "SELECT CONNECTION_ID()")
    t, box = h.run_in_thread(lambda: h.query(conn, sql))
    wait_executing(watcher, conn_id, sql)
    t.join(timeout=0.3)
    assert t.is_alive(), f"{sql!r} did not wait for the other transaction: {box!r}"
    return t, box


def finished(t, box, what):
    t.join(timeout=20)
    assert not t.is_alive(), f"{what}: still waiting after the other transaction ended"
    return box


def expect_box_error(box, errno, what):
    e = box.get("error")
    assert e is not None and h.errno_of(e) == errno, f"{what}: expected error {errno}, got {box!r}"


def binlog_events(srv, only_events, schema):
    """Every event of only_events (in schema, for rows events) from the
    start of the first binlog file to the end of the last, as
    python-mysql-replication decodes it. The first file is named: without
    log_file the library starts at SHOW MASTER STATUS's file, which after a
    restart is a new one."""
    _next_server_id[0] += 1
    c = h.root(port=srv.port)
    try:
        first = h.query(c, "SHOW BINARY LOGS")[0][0]
    finally:
        h.close_quietly(c)
    stream = BinLogStreamReader(connection_settings=dict(host=h.HOST, port=srv.port, user="root", passwd="",
                                                         connect_timeout=10, read_timeout=60),
                                server_id=_next_server_id[0], blocking=False, only_events=only_events,
                                log_file=first, log_pos=4, resume_stream=True)
    got = []
    try:
        for ev in stream:
            if isinstance(ev, QueryEvent) or ev.schema == schema:
                got.append(ev)
    finally:
        stream.close()
    return got


def row_changes(ev):
    """A rows event as (table, kind, [(before, after)]) with rows as dicts."""
    if isinstance(ev, WriteRowsEvent):
        return ev.table, "write", [(None, dict(r["values"])) for r in ev.rows]
    if isinstance(ev, UpdateRowsEvent):
        return ev.table, "update", [(dict(r["before_values"]), dict(r["after_values"])) for r in ev.rows]
    return ev.table, "delete", [(dict(r["values"]), None) for r in ev.rows]


# --------------------------------------------------------------------------

def test_child_insert_waits_for_parent_writer():
    srv = _servers.start("fk-locks")
    a, b, w = h.root(port=srv.port), h.root(port=srv.port), h.root(port=srv.port)
    try:
        h.query(a, "CREATE DATABASE lw")
        h.query(a, "CREATE TABLE lw.p (id INT PRIMARY KEY)")
        h.query(a, "CREATE TABLE lw.c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES lw.p (id))")
        h.query(a, "INSERT INTO lw.p VALUES (1), (2), (3)")

        # A deletes parent 1 and holds it: B's child of 1 waits for A.
        h.query(a, "BEGIN")
        h.query(a, "DELETE FROM lw.p WHERE id = 1")
        h.query(b, "SET SESSION innodb_lock_wait_timeout = 1")
        h.expect_sql_error(b, "INSERT INTO lw.c VALUES (1, 1)", ER_LOCK_WAIT_TIMEOUT)
        # With time to wait, B waits until A commits, then finds no parent.
        h.query(b, "SET SESSION innodb_lock_wait_timeout = 30")
        t, box = blocked_statement(w, b, "INSERT INTO lw.c VALUES (1, 1)")
        h.query(a, "COMMIT")
        expect_box_error(finished(t, box, "child insert"), ER_NO_REFERENCED_ROW, "child of a deleted parent")

        # A delete that rolls back leaves the parent: the waiting child goes in.
        h.query(a, "BEGIN")
        h.query(a, "DELETE FROM lw.p WHERE id = 3")
        t, box = blocked_statement(w, b, "INSERT INTO lw.c VALUES (3, 3)")
        h.query(a, "ROLLBACK")
        box = finished(t, box, "child insert")
        assert "error" not in box, f"child of a parent whose delete rolled back: {box!r}"

        # The other way round: A's uncommitted child of parent 2 holds
        # parent 2 shared; B's DELETE and key UPDATE of it wait.
        h.query(a, "BEGIN")
        h.query(a, "INSERT INTO lw.c VALUES (2, 2)")
        h.query(b, "SET SESSION innodb_lock_wait_timeout = 1")
        h.expect_sql_error(b, "DELETE FROM lw.p WHERE id = 2", ER_LOCK_WAIT_TIMEOUT)
        h.expect_sql_error(b, "UPDATE lw.p SET id = 22 WHERE id = 2", ER_LOCK_WAIT_TIMEOUT)
        h.query(b, "SET SESSION innodb_lock_wait_timeout = 30")
        t, box = blocked_statement(w, b, "DELETE FROM lw.p WHERE id = 2")
        h.query(a, "COMMIT")
        expect_box_error(finished(t, box, "parent delete"), ER_ROW_IS_REFERENCED, "parent of a committed child")

        assert h.query(w, "SELECT id FROM lw.p ORDER BY id") == ((2,), (3,))
        assert h.query(w, "SELECT id, pid FROM lw.c ORDER BY id") == ((2, 2), (3, 3))
    finally:
        for conn in (a, b, w):
            h.close_quietly(conn)
    srv.terminate()


def test_cascades_not_in_binlog():
    srv = _servers.start("fk-binlog")
    c = h.root(port=srv.port)
    try:
        h.query(c, "CREATE DATABASE bc")
        h.query(c, "CREATE TABLE bc.p (id INT PRIMARY KEY, v VARCHAR(10))")
        h.query(c, "CREATE TABLE bc.c (id INT PRIMARY KEY, pid INT, "
                   "FOREIGN KEY (pid) REFERENCES bc.p (id) ON DELETE CASCADE ON UPDATE CASCADE)")
        h.query(c, "CREATE TABLE bc.g (id INT PRIMARY KEY, cid INT, "
                   "FOREIGN KEY (cid) REFERENCES bc.c (id) ON DELETE CASCADE)")
        h.query(c, "INSERT INTO bc.p VALUES (1, 'one'), (2, 'two'), (3, 'three')")
        h.query(c, "INSERT INTO bc.c VALUES (10, 1), (11, 1), (20, 2), (30, 3)")
        h.query(c, "INSERT INTO bc.g VALUES (100, 10), (200, 20)")
        # Cascades two levels down (c 10, 11 and g 100), and a key update.
        h.query(c, "DELETE FROM bc.p WHERE id = 1")
        h.query(c, "UPDATE bc.p SET id = 22 WHERE id = 2")
        assert h.query(c, "SELECT id, pid FROM bc.c ORDER BY id") == ((20, 22), (30, 3))
        assert h.query(c, "SELECT id, cid FROM bc.g ORDER BY id") == ((200, 20),)
        # foreign_key_checks=0: an orphan goes in, and a parent delete
        # cascades nothing (as InnoDB: the keys are not looked at at all).
        h.query(c, "SET foreign_key_checks = 0")
        h.query(c, "INSERT INTO bc.c VALUES (40, 99)")
        h.query(c, "DELETE FROM bc.p WHERE id = 3")
        h.query(c, "CREATE TABLE bc.late (id INT PRIMARY KEY, x INT, FOREIGN KEY (x) REFERENCES bc.nowhere (id))")
        h.query(c, "SET foreign_key_checks = 1")
        assert h.query(c, "SELECT id, pid FROM bc.c ORDER BY id") == ((20, 22), (30, 3), (40, 99))
        # And back on: checked and unflagged again.
        h.query(c, "DELETE FROM bc.p WHERE id = 22")
        assert h.query(c, "SELECT id, pid FROM bc.c ORDER BY id") == ((30, 3), (40, 99))
        assert h.query(c, "SELECT COUNT(*) FROM bc.g") == ((0,),)
    finally:
        h.close_quietly(c)

    events = binlog_events(srv, ROW_EVENTS + [QueryEvent], "bc")
    rows = [(row_changes(ev), bool(ev.flags & NO_FOREIGN_KEY_CHECKS_F)) for ev in events
            if not isinstance(ev, QueryEvent)]
    want = [
        (("p", "write", [(None, {"id": 1, "v": "one"}), (None, {"id": 2, "v": "two"}),
                         (None, {"id": 3, "v": "three"})]), False),
        (("c", "write", [(None, {"id": 10, "pid": 1}), (None, {"id": 11, "pid": 1}), (None, {"id": 20, "pid": 2}),
                         (None, {"id": 30, "pid": 3})]), False),
        (("g", "write", [(None, {"id": 100, "cid": 10}), (None, {"id": 200, "cid": 20})]), False),
        # The cascades to c and g are left to the replica's engine.
        (("p", "delete", [({"id": 1, "v": "one"}, None)]), False),
        (("p", "update", [({"id": 2, "v": "two"}, {"id": 22, "v": "two"})]), False),
        (("c", "write", [(None, {"id": 40, "pid": 99})]), True),
        (("p", "delete", [({"id": 3, "v": "three"}, None)]), True),
        (("p", "delete", [({"id": 22, "v": "two"}, None)]), False),
    ]
    assert rows == want, "rows events:\n  " + "\n  ".join(repr(r) for r in rows)

    # Query events: the BEGIN of each transaction and the DDL carry the
    # session's foreign_key_checks=0 in flags2, and only those.
    queries = [(ev.query, bool(getattr(ev, "flags2", 0) & OPTION_NO_FOREIGN_KEY_CHECKS)) for ev in events
               if isinstance(ev, QueryEvent) and ("bc." in ev.query or ev.query == "BEGIN")]
    late = "CREATE TABLE bc.late (id INT PRIMARY KEY, x INT, FOREIGN KEY (x) REFERENCES bc.nowhere (id))"
    assert [q for q, f in queries if f] == ["BEGIN", "BEGIN", late], queries
    srv.terminate()


# --------------------------------------------------------------------------
# SIGKILL during a cascading load

class Tree:
    """What the three tables hold: parents, child -> parent, grandchild ->
    child. delete_parent cascades as ON DELETE CASCADE does."""

    def __init__(self):
        self.p, self.c, self.g = set(), {}, {}

    def copy(self):
        t = Tree()
        t.p, t.c, t.g = set(self.p), dict(self.c), dict(self.g)
        return t

    def apply(self, op):
        kind, row = op[0], op[1]
        if kind == "p":
            self.p.add(row)
        elif kind == "c":
            self.c[row] = op[2]
        elif kind == "g":
            self.g[row] = op[2]
        else:  # "del": a parent, and its descendants with it
            self.p.discard(row)
            gone = {cid for cid, pid in self.c.items() if pid == row}
            self.c = {cid: pid for cid, pid in self.c.items() if cid not in gone}
            self.g = {gid: cid for gid, cid in self.g.items() if cid not in gone}

    def within(self, lo, hi):
        t = Tree()
        t.p = {i for i in self.p if lo <= i < hi}
        t.c = {i: v for i, v in self.c.items() if lo <= i < hi}
        t.g = {i: v for i, v in self.g.items() if lo <= i < hi}
        return t

    def key(self):
        return (sorted(self.p), sorted(self.c.items()), sorted(self.g.items()))


RANGE = 1_000_000  # each thread's ids: [n * RANGE, (n + 1) * RANGE)


class CascadeLoad:
    """CRASH_THREADS autocommit writers, each on its own ids (so every
    statement it sends is valid and its outcome known), inserting parents,
    children of its live parents, grandchildren of its live children, and
    deleting its parents (cascading). Per thread: the acknowledged
    statements in order, and the one in flight when the server died."""

    def __init__(self, port):
        self.port = port
        self.stop = False
        self.acked = [[] for _ in range(CRASH_THREADS)]
        self.pending = [None] * CRASH_THREADS
        self.refused = [[] for _ in range(CRASH_THREADS)]   # (op, errno): lock waits / deadlocks
        self.unexpected = []

    def next_op(self, rnd, tree, n, counter):
        base = n * RANGE
        roll = rnd.random()
        if not tree.p or roll < 0.3:
            return ("p", base + next(counter))
        if roll < 0.6:
            return ("c", base + next(counter), rnd.choice(sorted(tree.p)))
        if roll < 0.8 and tree.c:
            return ("g", base + next(counter), rnd.choice(sorted(tree.c)))
        return ("del", rnd.choice(sorted(tree.p)))

    def worker(self, n):
        rnd = random.Random(1000 + n)
        counter = iter(range(1, RANGE))
        tree = Tree()
        try:
            conn = h.root(port=self.port)
        except Exception:  # noqa: BLE001 - the server may already be gone
            return
        try:
            while not self.stop:
                op = self.next_op(rnd, tree, n, counter)
                self.pending[n] = op
                sql = {"p": "INSERT INTO cr.p VALUES (%s)", "c": "INSERT INTO cr.c VALUES (%s, %s)",
                       "g": "INSERT INTO cr.g VALUES (%s, %s)", "del": "DELETE FROM cr.p WHERE id = %s"}[op[0]]
                try:
                    h.query(conn, sql, op[1:])
                except pymysql.err.MySQLError as e:
                    errno = h.errno_of(e)
                    if errno in (ER_LOCK_WAIT_TIMEOUT, ER_LOCK_DEADLOCK):
                        # The statement rolled back whole; InnoDB may refuse
                        # the same for a gap lock near another thread's ids.
                        self.refused[n].append((op, errno))
                        self.pending[n] = None
                        continue
                    if errno is not None and errno < 2000:
                        self.unexpected.append((op, repr(e)))
                    raise
                self.pending[n] = None
                self.acked[n].append(op)
                tree.apply(op)
        except Exception:  # noqa: BLE001 - the kill ends every connection
            pass
        finally:
            h.close_quietly(conn)


def server_tree(conn):
    t = Tree()
    t.p = {r[0] for r in h.query(conn, "SELECT id FROM cr.p")}
    t.c = {r[0]: r[1] for r in h.query(conn, "SELECT id, pid FROM cr.c")}
    t.g = {r[0]: r[1] for r in h.query(conn, "SELECT id, cid FROM cr.g")}
    return t


def binlog_trees(srv):
    """From the binlog's rows events: the parent table replayed (writes,
    updates, deletes), and the child tables as their inserts less the rows
    whose parent (transitively) the binlog deletes, which the engine
    cascades without logging. Also the rows events on the child tables
    other than writes (none expected)."""
    replayed = Tree()
    deleted_parents = set()
    inserted_c, inserted_g = {}, {}
    other = []
    for ev in binlog_events(srv, ROW_EVENTS, "cr"):
        table, kind, rows = row_changes(ev)
        for before, after in rows:
            if table == "p":
                if before is not None:
                    replayed.p.discard(before["id"])
                    deleted_parents.add(before["id"])
                if after is not None:
                    replayed.p.add(after["id"])
            elif kind != "write":
                other.append((table, kind, before, after))
            elif table == "c":
                inserted_c[after["id"]] = after["pid"]
            else:
                inserted_g[after["id"]] = after["cid"]
    replayed.c = {i: pid for i, pid in inserted_c.items() if pid not in deleted_parents}
    replayed.g = {i: cid for i, cid in inserted_g.items() if cid in replayed.c}
    return replayed, other


def test_cascades_survive_sigkill():
    srv = _servers.start("fk-crash")
    c = h.root(port=srv.port)
    try:
        h.query(c, "CREATE DATABASE cr")
        h.query(c, "CREATE TABLE cr.p (id INT PRIMARY KEY)")
        h.query(c, "CREATE TABLE cr.c (id INT PRIMARY KEY, pid INT NOT NULL, "
                   "FOREIGN KEY (pid) REFERENCES cr.p (id) ON DELETE CASCADE)")
        h.query(c, "CREATE TABLE cr.g (id INT PRIMARY KEY, cid INT NOT NULL, "
                   "FOREIGN KEY (cid) REFERENCES cr.c (id) ON DELETE CASCADE)")
    finally:
        h.close_quietly(c)
    load = CascadeLoad(srv.port)
    threads = [threading.Thread(target=load.worker, args=(n,), daemon=True) for n in range(CRASH_THREADS)]
    for t in threads:
        t.start()
    time.sleep(CRASH_LOAD_SECONDS)
    os.kill(srv.proc.pid, signal.SIGKILL)  # mid-statement: nothing acknowledged may be lost
    srv.proc.wait(timeout=10)
    load.stop = True
    for t in threads:
        t.join(timeout=30)
        assert not t.is_alive(), "a load thread hung after the kill"
    assert not load.unexpected, f"statements refused before the kill: {load.unexpected[:5]}"
    acked = [op for ops in load.acked for op in ops]
    deletes = [op[1] for op in acked if op[0] == "del"]
    h.note(f"{len(acked)} statements acknowledged ({len(deletes)} parent deletes), "
           f"{sum(len(r) for r in load.refused)} refused with 1205/1213, "
           f"in flight: {[op for op in load.pending if op]}")
    assert deletes, "the load acknowledged no parent delete"

    srv2 = _servers.start("fk-crash-again", datadir=srv.datadir)
    c = h.root(port=srv2.port)
    try:
        # (a) No orphans at either level.
        orphans_c = h.scalar(c, "SELECT COUNT(*) FROM cr.c c LEFT JOIN cr.p p ON c.pid = p.id WHERE p.id IS NULL")
        orphans_g = h.scalar(c, "SELECT COUNT(*) FROM cr.g g LEFT JOIN cr.c c ON g.cid = c.id WHERE c.id IS NULL")
        assert (orphans_c, orphans_g) == (0, 0), f"orphans after the restart: child {orphans_c}, grandchild {orphans_g}"
        got = server_tree(c)

        # (b) Per thread (its ids are its own): every statement it had
        # acknowledged is there, and besides at most the one in flight.
        for n in range(CRASH_THREADS):
            done = Tree()
            for op in load.acked[n]:
                done.apply(op)
            deleted = {op[1] for op in load.acked[n] if op[0] == "del"}
            mine = got.within(n * RANGE, (n + 1) * RANGE)
            assert not (deleted & mine.p), f"thread {n}: acknowledged deletes undone: {sorted(deleted & mine.p)[:10]}"
            maybe_gone = set(deleted)
            if load.pending[n] and load.pending[n][0] == "del":
                maybe_gone.add(load.pending[n][1])
            for op in load.acked[n]:
                kind, row = op[0], op[1]
                if kind == "p" and row not in maybe_gone:
                    assert row in mine.p, f"thread {n}: acknowledged parent {row} lost"
                if kind == "c" and op[2] not in maybe_gone:
                    assert mine.c.get(row) == op[2], f"thread {n}: acknowledged child {op} lost"
                if kind == "g" and done.c.get(op[2]) is not None and done.c[op[2]] not in maybe_gone:
                    assert mine.g.get(row) == op[2], f"thread {n}: acknowledged grandchild {op} lost"
            candidates = [done.key()]
            if load.pending[n]:
                with_pending = done.copy()
                with_pending.apply(load.pending[n])
                candidates.append(with_pending.key())
            assert mine.key() in candidates, (
                f"thread {n}: the tables hold neither its acknowledged statements nor those and the one in "
                f"flight ({load.pending[n]}): server {mine.key()}, acknowledged {done.key()}")

        # (c) Engine and binlog agree.
        from_binlog, other = binlog_trees(srv2)
        assert not other, f"the binlog has rows events for the child tables other than inserts: {other[:5]}"
        for table, engine, binlog in (("parent", got.p, from_binlog.p), ("child", got.c, from_binlog.c),
                                      ("grandchild", got.g, from_binlog.g)):
            engine = set(engine.items()) if isinstance(engine, dict) else engine
            binlog = set(binlog.items()) if isinstance(binlog, dict) else binlog
            assert engine == binlog, (f"{table} table: only engine {sorted(engine - binlog)[:10]}, "
                                      f"only binlog {sorted(binlog - engine)[:10]}")

        # The keys survived the restart: still checked, still cascading.
        h.expect_sql_error(c, "INSERT INTO cr.c VALUES (-1, -1)", ER_NO_REFERENCED_ROW)
        h.query(c, "INSERT INTO cr.p VALUES (-1)")
        h.query(c, "INSERT INTO cr.c VALUES (-1, -1)")
        h.query(c, "INSERT INTO cr.g VALUES (-1, -1)")
        h.query(c, "DELETE FROM cr.p WHERE id = -1")
        assert h.query(c, "SELECT (SELECT COUNT(*) FROM cr.c WHERE id = -1), "
                          "(SELECT COUNT(*) FROM cr.g WHERE id = -1)") == ((0, 0),)
    finally:
        h.close_quietly(c)
    srv2.terminate()


if __name__ == "__main__":
    h.main(globals())
