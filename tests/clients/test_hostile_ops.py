"""Issue 14, findings 6, 7 and 10: the error log, crash reports, ordinary
my.cnf files and the operator switches (read_only, super_read_only,
sql_log_bin, innodb_version). Every test runs against its own private
sluiced (they kill servers, set global switches, start with odd options),
never the shared one."""

import getpass
import os
import re
import signal
import time

import harness as h

_servers = []


def start(name, extra=(), argv=None, env=None):
    srv = h.Server(h.temp_dir(name), extra=extra, env=env)
    if argv is not None:
        srv.argv = lambda: argv(srv)
    _servers.append(srv)
    return srv.start()


def teardown_module():
    for srv in _servers:
        srv.kill()


def read_log(srv):
    with open(srv.log_error, errors="replace") as f:
        return f.read()


# --------------------------------------------------------------------------
# Finding 6: the error log is written through; a crash leaves a report.

def test_error_log_has_ready_line_at_once_and_after_kill9():
    srv = start("log-kill9")
    # No sleep, no flush: the line is in the file as soon as clients connect.
    text = read_log(srv)
    assert "ready for connections" in text, text
    c = h.root(port=srv.port)
    h.close_quietly(c)
    os.kill(srv.proc.pid, signal.SIGKILL)
    srv.wait_exit(10)
    text = read_log(srv)
    assert "ready for connections" in text, text
    assert "starting as process" in text, text


def test_statements_do_not_log():
    # Write-through costs a write(2) per line: fine because the hot path
    # logs nothing. 2000 statements (reads, writes, errors) add no line.
    srv = start("log-quiet")
    c = h.root(port=srv.port)
    try:
        h.query(c, "CREATE DATABASE q")
        h.query(c, "CREATE TABLE q.t (id INT PRIMARY KEY)")
        before = read_log(srv).count("\n")
        t0 = time.time()
        for i in range(500):
            h.query(c, f"INSERT INTO q.t VALUES ({i})")
            h.query(c, f"SELECT * FROM q.t WHERE id = {i}")
            h.query(c, "SELECT @@read_only, @@sql_log_bin")
            h.expect_sql_error(c, "SELECT * FROM q.nope", 1146)
        h.note(f"2000 statements in {time.time() - t0:.2f} s")
        assert read_log(srv).count("\n") == before, read_log(srv)[-2000:]
    finally:
        h.close_quietly(c)


def test_crash_report_on_sigsegv():
    srv = start("log-segv", env=h.own_crash_handler_env())
    os.kill(srv.proc.pid, signal.SIGSEGV)
    rc = srv.wait_exit(20)
    assert rc == -signal.SIGSEGV, f"sluiced exited with {rc}, not by SIGSEGV"
    text = read_log(srv)
    assert re.search(r"\d\d:\d\d:\d\d UTC - mysqld got signal 11 ;", text), text[-3000:]
    assert "Server version: 8.0.36" in text, text[-3000:]
    report = text[text.index("got signal 11"):]
    # backtrace_symbols_fd lines: binary(function+0xoff) [0xaddr]; at least
    # one names a function of sluiced's own (-rdynamic).
    names = re.findall(r"\((_Z\w+|main)\+0x[0-9a-f]+\)", report)
    assert names, report
    h.note(f"backtrace names {len(names)} functions, e.g. {names[0]}")


def test_crash_report_on_sigabrt():
    srv = start("log-abrt", env=h.own_crash_handler_env())
    os.kill(srv.proc.pid, signal.SIGABRT)
    rc = srv.wait_exit(20)
    assert rc == -signal.SIGABRT, f"sluiced exited with {rc}, not by SIGABRT"
    assert "mysqld got signal 6 ;" in read_log(srv)


# --------------------------------------------------------------------------
# Finding 7: an ordinary my.cnf starts; unknown names still abort.

IGNORED = ["innodb-log-file-size", "innodb-flush-method", "external-locking"]


def _cnf_server(name, body):
    d = h.temp_dir(name)
    cnf = d.rstrip("/") + ".cnf"
    with open(cnf, "w") as f:
        f.write(body)
    srv = h.Server(d)
    srv.argv = lambda: [h.SLUICED, f"--defaults-file={cnf}", f"--datadir={d}", f"--port={srv.port}",
                        f"--bind-address={h.HOST}", f"--log-error={srv.log_error}"]
    _servers.append(srv)
    return srv


def test_ordinary_my_cnf_starts_and_is_honoured():
    base = h.temp_dir("cnf-all")
    os.makedirs(base + "-tmp", exist_ok=True)
    sock = base + ".sock"
    pid_file = base + ".pid"
    srv = _cnf_server("cnf-all", f"""# a my.cnf as distributions ship them
[client]
port = 1
[mysqld]
character-set-server = latin1
collation-server = latin1_swedish_ci
sql-mode = "STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION"
transaction-isolation = READ-COMMITTED
skip-name-resolve
default-time-zone = '+02:00'
socket = {sock}
pid-file = {pid_file}
user = {getpass.getuser()}
basedir = /usr
tmpdir = {base}-tmp
innodb-log-file-size = 48M
innodb-flush-method = O_DIRECT
performance-schema = OFF
explicit_defaults_for_timestamp = ON
innodb-lock-wait-timeout = 7
skip-external-locking
loose-no-such-plugin-option = 1
""")
    srv.start()
    c = h.root(port=srv.port)
    try:
        row = h.query(c, "SELECT @@sql_mode, @@transaction_isolation, @@character_set_server, "
                         "@@collation_server, @@time_zone, @@innodb_lock_wait_timeout, "
                         "@@skip_name_resolve, @@explicit_defaults_for_timestamp, @@socket, @@pid_file, "
                         "@@tmpdir, @@basedir, @@performance_schema")[0]
        assert row == ("STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION", "READ-COMMITTED", "latin1",
                       "latin1_swedish_ci", "+02:00", 7, 1, 1, sock, pid_file, base + "-tmp", "/usr", 0), row
    finally:
        h.close_quietly(c)
    with open(pid_file) as f:
        assert int(f.read().strip()) == srv.proc.pid
    # The Unix socket speaks the protocol, and its clients are localhost.
    rc, out, err = h.run_cmd([h.MARIADB, "--no-defaults", "-S", sock, "-uroot", "--batch", "-N", "-e",
                              "SELECT CURRENT_USER(), USER() LIKE 'root@localhost'"], timeout=30)
    assert rc == 0, err
    assert out.split() == ["root@localhost", "1"], out
    text = read_log(srv)
    for name in IGNORED:
        lines = [l for l in text.splitlines() if f"option '{name}'" in l and "ignores" in l]
        assert len(lines) == 1, (name, lines, text)
        assert "[Warning]" in lines[0], lines[0]
    assert "unknown variable 'loose-no-such-plugin-option=1'" in text, text
    assert f"socket: '{sock}'" in text, text
    # A clean stop removes the pid file and the socket file.
    assert srv.terminate() == 0
    assert not os.path.exists(pid_file)
    assert not os.path.exists(sock)


def test_unknown_option_in_my_cnf_aborts():
    for bad in ("no-such-option = 1", "skip-no-such-thing", "query_cache_size = 0"):
        srv = _cnf_server("cnf-bad", f"[mysqld]\n{bad}\n")
        # Options are parsed before the error log opens: the abort is on stderr.
        rc, out, err = h.run_cmd(srv.argv(), timeout=30)
        assert rc != 0, bad
        text = out + err
        assert "unknown variable" in text and "Aborting" in text, (bad, text)


def test_loose_and_prefixed_options_on_the_command_line():
    srv = start("cnf-cmdline", extra=["--loose-sql-mode=ANSI_QUOTES", "--enable-read-only",
                                      "--maximum-sort-buffer-size=1M", "--loose-bogus-thing"])
    c = h.root(port=srv.port)
    try:
        assert h.query(c, "SELECT @@global.sql_mode, @@global.read_only") == (("ANSI_QUOTES", 1),)
    finally:
        h.close_quietly(c)
    text = read_log(srv)
    assert "unknown variable 'loose-bogus-thing'" in text, text
    assert "maximum-sort-buffer-size" in text, text


# --------------------------------------------------------------------------
# Finding 10: read_only, super_read_only, sql_log_bin, innodb_version.

def _setup_writer(port):
    c = h.root(port=port)
    h.query(c, "CREATE DATABASE ops")
    h.query(c, "CREATE TABLE ops.t (id INT PRIMARY KEY, v INT)")
    h.query(c, "CREATE USER 'w'@'%' IDENTIFIED BY 'pw'")
    h.query(c, "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP ON ops.* TO 'w'@'%'")
    return c


def test_read_only_and_super_read_only():
    srv = start("readonly")
    root = _setup_writer(srv.port)
    w = h.connect("w", "pw", port=srv.port)
    w2 = h.connect("w", "pw", port=srv.port)
    try:
        h.query(w, "INSERT INTO ops.t VALUES (1, 1)")
        # Only admins switch it, and it is global only.
        h.expect_sql_error(w, "SET GLOBAL read_only = ON", 1227)
        h.expect_sql_error(root, "SET SESSION read_only = ON", 1229)
        h.expect_sql_error(root, "SELECT @@session.read_only", 1238)
        # A transaction open when read_only comes on cannot commit its writes.
        h.query(w2, "BEGIN")
        h.query(w2, "INSERT INTO ops.t VALUES (50, 50)")
        h.query(root, "SET GLOBAL read_only = ON")
        assert h.scalar(root, "SELECT @@global.read_only") == 1
        e = h.expect_sql_error(w, "INSERT INTO ops.t VALUES (2, 2)", 1290)
        assert "--read-only option" in str(e), e
        h.expect_sql_error(w, "UPDATE ops.t SET v = 9", 1290)
        h.expect_sql_error(w, "CREATE TABLE ops.u (id INT PRIMARY KEY)", 1290)
        h.expect_sql_error(w2, "COMMIT", 1290)
        h.query(w2, "ROLLBACK")
        assert h.query(w, "SELECT id, v FROM ops.t") == ((1, 1),)
        # SUPER / CONNECTION_ADMIN still writes under read_only.
        h.query(root, "INSERT INTO ops.t VALUES (3, 3)")
        # super_read_only stops everyone, and turns read_only on.
        h.query(root, "SET GLOBAL read_only = OFF")
        h.query(root, "SET GLOBAL super_read_only = ON")
        assert h.query(root, "SELECT @@global.read_only, @@global.super_read_only") == ((1, 1),)
        e = h.expect_sql_error(root, "INSERT INTO ops.t VALUES (4, 4)", 1290)
        assert "--super-read-only option" in str(e), e
        h.expect_sql_error(root, "CREATE TABLE ops.v (id INT PRIMARY KEY)", 1290)
        h.expect_sql_error(root, "DROP DATABASE ops", 1290)
        h.expect_sql_error(root, "CREATE USER 'x'@'%'", 1290)
        h.expect_sql_error(root, "GRANT SELECT ON ops.* TO 'w'@'%'", 1290)
        h.expect_sql_error(w, "INSERT INTO ops.t VALUES (5, 5)", 1290)
        # Reads and the replication-facing statements go on.
        assert h.query(w, "SELECT COUNT(*) FROM ops.t") == ((2,),)
        assert len(h.query(root, "SHOW MASTER STATUS")) == 1
        assert len(h.query(root, "SHOW BINLOG EVENTS")) > 0
        assert len(h.query(root, "SHOW VARIABLES LIKE '%read_only'")) >= 3
        # read_only OFF turns super_read_only off too.
        h.query(root, "SET GLOBAL read_only = OFF")
        assert h.query(root, "SELECT @@global.read_only, @@global.super_read_only") == ((0, 0),)
        h.query(w, "INSERT INTO ops.t VALUES (6, 6)")
        # A session holding FLUSH TABLES WITH READ LOCK may set it (HA tools
        # do FTWRL, read_only=ON, UNLOCK TABLES).
        h.query(root, "FLUSH TABLES WITH READ LOCK")
        h.query(root, "SET GLOBAL read_only = ON")
        h.query(root, "UNLOCK TABLES")
        h.expect_sql_error(w, "INSERT INTO ops.t VALUES (7, 7)", 1290)
        h.query(root, "SET GLOBAL read_only = OFF")
        h.query(w, "INSERT INTO ops.t VALUES (7, 7)")
        assert h.query(root, "SELECT id FROM ops.t ORDER BY id") == ((1,), (3,), (6,), (7,))
    finally:
        for c in (w, w2, root):
            h.close_quietly(c)
    h.assert_server_ok(srv.port)


def test_read_only_from_the_command_line():
    srv = start("readonly-start", extra=["--super-read-only=ON"])
    c = h.root(port=srv.port)
    try:
        assert h.query(c, "SELECT @@read_only, @@super_read_only") == ((1, 1),)
        h.expect_sql_error(c, "CREATE DATABASE nope", 1290)
        h.query(c, "SET GLOBAL super_read_only = OFF")
        h.query(c, "CREATE DATABASE yes")  # read_only still ON, root has SUPER
    finally:
        h.close_quietly(c)


def _master_status(c):
    rows = h.query(c, "SHOW MASTER STATUS")
    return rows[0][0], rows[0][1], rows[0][4]


def test_sql_log_bin():
    srv = start("sqllogbin")
    root = _setup_writer(srv.port)
    w = h.connect("w", "pw", port=srv.port)
    other = h.root(port=srv.port)
    try:
        assert h.scalar(root, "SELECT @@sql_log_bin") == 1
        e = h.expect_sql_error(root, "SET GLOBAL sql_log_bin = 0", 1228)
        assert "is a SESSION variable and can't be used with SET GLOBAL" in str(e), e
        h.expect_sql_error(root, "SELECT @@global.sql_log_bin", 1238)
        h.expect_sql_error(w, "SET sql_log_bin = 0", 1227)
        h.query(root, "BEGIN")
        h.query(root, "INSERT INTO ops.t VALUES (100, 100)")
        h.expect_sql_error(root, "SET sql_log_bin = 0", 1694)
        h.query(root, "ROLLBACK")

        before = _master_status(root)
        h.query(root, "SET sql_log_bin = 0")
        assert h.scalar(root, "SELECT @@sql_log_bin") == 0
        h.query(root, "INSERT INTO ops.t VALUES (1, 1)")
        h.query(root, "BEGIN")
        h.query(root, "UPDATE ops.t SET v = 2 WHERE id = 1")
        h.query(root, "COMMIT")
        h.query(root, "CREATE TABLE ops.hidden (id INT PRIMARY KEY)")
        h.query(root, "DROP TABLE ops.hidden")
        after = _master_status(root)
        assert after == before, (before, after)
        events = h.query(root, f"SHOW BINLOG EVENTS IN '{before[0]}' FROM {before[1]}")
        assert events == (), events
        # The changes themselves are committed.
        assert h.query(other, "SELECT v FROM ops.t WHERE id = 1") == ((2,),)
        # Another session is logged meanwhile.
        h.query(other, "INSERT INTO ops.t VALUES (2, 2)")
        mid = _master_status(root)
        assert mid[1] > before[1] and mid[2] != before[2], (before, mid)
        # Back on: logged again.
        h.query(root, "SET sql_log_bin = 1")
        h.query(root, "INSERT INTO ops.t VALUES (3, 3)")
        end = _master_status(root)
        assert end[1] > mid[1], (mid, end)
        infos = " ".join(str(r[5]) for r in h.query(root, f"SHOW BINLOG EVENTS IN '{before[0]}' FROM {before[1]}"))
        assert "hidden" not in infos, infos
    finally:
        for c in (w, other, root):
            h.close_quietly(c)
    h.assert_server_ok(srv.port)


def test_innodb_version():
    srv = start("innodbver")
    c = h.root(port=srv.port)
    try:
        assert h.scalar(c, "SELECT @@innodb_version") == "8.0.36"
        h.expect_sql_error(c, "SET GLOBAL innodb_version = '9.9.9'", 1238)
        assert h.query(c, "SHOW VARIABLES LIKE 'innodb_version'") == (("innodb_version", "8.0.36"),)
    finally:
        h.close_quietly(c)


if __name__ == "__main__":
    h.main(globals())
