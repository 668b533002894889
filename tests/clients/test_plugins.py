"""Runtime plugins (issue 15, the loader): INSTALL / UNINSTALL PLUGIN with
MySQL's errors and privileges, the plugin's variables and status before,
during and after, SHOW PLUGINS / INFORMATION_SCHEMA.PLUGINS / mysql.plugin,
a restart keeping the plugin (and a SET PERSIST value of its variable),
--plugin-load-add at start (a missing library and a wrong ABI logged and
skipped) with loose- options as the plugin variables' start-up values, the after_commit hook counting commits exactly, and 200
INSTALL/UNINSTALL cycles with file descriptors and mapped copies of the
library flat. Uses plugins/example (build/plugin/sluice_example_plugin.so,
the default plugin_dir beside build/bin/sluiced)."""

import os
import struct

import pymysql

import harness as h

LIB = "sluice_example_plugin.so"
_servers = h.PrivateServers()


def teardown_module():
    c = h.root()
    try:
        for name in ("sluice_example", "sluice_example_two"):
            try:
                h.query(c, f"UNINSTALL PLUGIN {name}")
            except pymysql.err.MySQLError:
                pass
        h.query(c, "DROP USER IF EXISTS 'plug'@'%'")
        h.query(c, "DROP DATABASE IF EXISTS plugtest")
    finally:
        h.close_quietly(c)
    _servers.kill_all()


def plugins(c):
    return {r[0]: r for r in h.query(c, "SHOW PLUGINS")}


def status(c, name):
    rows = h.query(c, f"SHOW GLOBAL STATUS LIKE '{name}'")
    return rows[0][1] if rows else None


def test_variables_unknown_before_install():
    c = h.root()
    try:
        e = h.expect_sql_error(c, "SELECT @@global.sluice_example_enabled", 1193)
        assert e.args[1] == "Unknown system variable 'sluice_example_enabled'", e.args
        h.expect_sql_error(c, "SET GLOBAL sluice_example_limit = 3", 1193)
        assert h.query(c, "SHOW VARIABLES LIKE 'sluice_example%'") == ()
        assert status(c, "Sluice_example_after_commits") is None
    finally:
        h.close_quietly(c)


def test_install_errors():
    c = h.root()
    try:
        e = h.expect_sql_error(c, f"INSTALL PLUGIN sluice_example SONAME '../plugin/{LIB}'", 1124)
        assert e.args[1] == "No paths allowed for shared library", e.args
        e = h.expect_sql_error(c, "INSTALL PLUGIN sluice_example SONAME 'no_such_library.so'", 1126)
        assert "Can't open shared library '" in e.args[1] and "No such file" in e.args[1], e.args
        h.expect_sql_error(c, f"INSTALL PLUGIN no_such_plugin SONAME '{LIB}'", 1127)
        e = h.expect_sql_error(c, "INSTALL PLUGIN sluice_wrong_abi SONAME 'sluice_wrong_abi_plugin.so'", 1126)
        assert "plugin ABI 2.0, the server has 1.3" in e.args[1], e.args
        h.expect_sql_error(c, f"INSTALL PLUGIN InnoDB SONAME '{LIB}'", 1125)
        e = h.expect_sql_error(c, "UNINSTALL PLUGIN sluice_example", 1305)
        assert e.args[1] == "PLUGIN sluice_example does not exist", e.args
        h.expect_sql_error(c, "UNINSTALL PLUGIN InnoDB", 1619)
        assert "sluice_example" not in plugins(c)
    finally:
        h.close_quietly(c)


def test_install_privileges():
    r = h.root()
    u = None
    try:
        h.query(r, "CREATE USER 'plug'@'%' IDENTIFIED WITH mysql_native_password BY 'pw'")
        u = h.connect("plug", "pw")
        e = h.expect_sql_error(u, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'", 1142)
        assert e.args[1].startswith("INSERT command denied"), e.args
        h.close_quietly(u)
        h.query(r, "GRANT INSERT ON *.* TO 'plug'@'%'")
        u = h.connect("plug", "pw")
        h.query(u, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'")
        e = h.expect_sql_error(u, "UNINSTALL PLUGIN sluice_example", 1142)
        assert e.args[1].startswith("DELETE command denied"), e.args
        h.close_quietly(u)
        h.query(r, "GRANT DELETE ON *.* TO 'plug'@'%'")
        u = h.connect("plug", "pw")
        h.query(u, "UNINSTALL PLUGIN sluice_example")
    finally:
        h.close_quietly(u)
        h.query(r, "DROP USER IF EXISTS 'plug'@'%'")
        h.close_quietly(r)


def test_install_round_trip():
    c = h.root()
    try:
        h.query(c, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'")
        e = h.expect_sql_error(c, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'", 1125)
        assert e.args[1] == "Function 'sluice_example' already exists", e.args
        assert h.scalar(c, "SELECT @@global.sluice_example_enabled") == 0
        assert h.scalar(c, "SELECT @@global.sluice_example_limit") == 10
        rows = h.query(c, "SHOW VARIABLES LIKE 'sluice_example%'")
        assert [r[0] for r in rows] == ["sluice_example_enabled", "sluice_example_limit",
                                        "sluice_example_old_limit", "sluice_example_refuse_uninstall"], rows
        h.query(c, "SET GLOBAL sluice_example_limit = 20")
        assert h.scalar(c, "SELECT @@global.sluice_example_limit") == 20
        assert status(c, "Sluice_example_limit") == "20"
        h.expect_sql_error(c, "SET GLOBAL sluice_example_limit = 13", 1231)  # the plugin's check
        h.expect_sql_error(c, "SET GLOBAL sluice_example_limit = 'abc'", 1232)
        h.expect_sql_error(c, "SET SESSION sluice_example_limit = 5", 1229)
        h.query(c, "SET GLOBAL sluice_example_limit = 5000")  # clamped, warning 1292
        assert h.scalar(c, "SELECT @@global.sluice_example_limit") == 1000
        h.query(c, "SET GLOBAL sluice_example_enabled = ON")
        assert status(c, "Sluice_example_enabled") == "ON"
        # An old name (alias) of the variable and of the status variable.
        assert h.scalar(c, "SELECT @@global.sluice_example_old_limit") == 1000
        assert status(c, "Sluice_example_old_limit") == "1000"

        p = plugins(c)
        assert p["sluice_example"][1:] == ("ACTIVE", "REPLICATION", LIB, "GPL"), p["sluice_example"]
        for builtin in ("binlog", "mysql_native_password", "caching_sha2_password", "InnoDB"):
            assert p[builtin][1] == "ACTIVE" and p[builtin][3] is None, p[builtin]
        row = h.query(c, "SELECT PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_STATUS, PLUGIN_LIBRARY, PLUGIN_AUTHOR "
                         "FROM INFORMATION_SCHEMA.PLUGINS WHERE PLUGIN_NAME = 'sluice_example'")
        assert row == (("sluice_example", "1.0", "ACTIVE", LIB, "sluice"),), row
        assert h.scalar(c, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.PLUGINS WHERE PLUGIN_LIBRARY IS NULL") >= 4
        assert h.query(c, "SELECT name, dl FROM mysql.plugin") == (("sluice_example", LIB),)

        h.query(c, "UNINSTALL PLUGIN sluice_example")
        h.expect_sql_error(c, "SELECT @@global.sluice_example_enabled", 1193)
        h.expect_sql_error(c, "SET GLOBAL sluice_example_enabled = OFF", 1193)
        h.expect_sql_error(c, "SELECT @@global.sluice_example_old_limit", 1193)
        assert h.query(c, "SHOW VARIABLES LIKE 'sluice_example%'") == ()
        assert status(c, "Sluice_example_limit") is None
        assert "sluice_example" not in plugins(c)
        assert h.query(c, "SELECT name, dl FROM mysql.plugin") == ()
        # A new INSTALL starts from the defaults again.
        h.query(c, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'")
        assert h.scalar(c, "SELECT @@global.sluice_example_limit") == 10
        h.query(c, "UNINSTALL PLUGIN sluice_example")
    finally:
        h.close_quietly(c)


def test_check_uninstall_refuses():
    c = h.root()
    try:
        h.query(c, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'")
        h.query(c, "SET GLOBAL sluice_example_refuse_uninstall = ON")
        e = h.expect_sql_error(c, "UNINSTALL PLUGIN sluice_example", 1883)
        assert "cannot be uninstalled now" in e.args[1], e.args
        assert h.scalar(c, "SELECT @@global.sluice_example_limit") == 10  # still there
        h.query(c, "SET GLOBAL sluice_example_refuse_uninstall = OFF")
        h.query(c, "UNINSTALL PLUGIN sluice_example")
    finally:
        h.close_quietly(c)


def test_after_commit_counts_commits_exactly():
    c = h.root()
    try:
        h.query(c, "CREATE DATABASE IF NOT EXISTS plugtest")
        h.query(c, "CREATE TABLE IF NOT EXISTS plugtest.t (id INT PRIMARY KEY, v INT)")
        h.query(c, "DELETE FROM plugtest.t")
        h.query(c, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'")
        assert status(c, "Sluice_example_after_commits") == "0"
        for i in range(25):
            h.query(c, f"INSERT INTO plugtest.t VALUES ({i}, {i})")
        h.query(c, "BEGIN")
        for i in range(100, 103):
            h.query(c, f"INSERT INTO plugtest.t VALUES ({i}, {i})")
        h.query(c, "COMMIT")
        h.query(c, "BEGIN")
        h.query(c, "INSERT INTO plugtest.t VALUES (200, 200)")
        h.query(c, "ROLLBACK")
        assert status(c, "Sluice_example_after_commits") == "26"
        h.query(c, "UNINSTALL PLUGIN sluice_example")
        h.query(c, "INSERT INTO plugtest.t VALUES (300, 300)")  # no hook left, no crash
        h.query(c, "DROP DATABASE plugtest")
    finally:
        h.close_quietly(c)


def test_restart_keeps_plugin_and_persisted_value():
    srv = _servers.start("plugins-restart")
    c = h.root(port=srv.port)
    try:
        h.query(c, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'")
        h.query(c, "SET PERSIST sluice_example_limit = 77")
        h.close_quietly(c)
        assert srv.terminate() == 0
        srv.extra.append("--loose-sluice_example_limit=5")  # SET PERSIST wins over it
        srv.start()
        c = h.root(port=srv.port)
        assert plugins(c)["sluice_example"][1] == "ACTIVE"
        assert h.scalar(c, "SELECT @@global.sluice_example_limit") == 77
        assert status(c, "Sluice_example_limit") == "77"
        h.query(c, "UNINSTALL PLUGIN sluice_example")
        h.close_quietly(c)
        assert srv.terminate() == 0
        srv.start()
        c = h.root(port=srv.port)
        assert "sluice_example" not in plugins(c)
        h.expect_sql_error(c, "SELECT @@global.sluice_example_limit", 1193)
    finally:
        h.close_quietly(c)
        srv.kill()


def test_plugin_load_add_at_start():
    srv = _servers.start("plugins-load", extra=[
        f"--plugin-load-add={LIB}",
        "--plugin-load-add=missing=missing_library.so;sluice_wrong_abi=sluice_wrong_abi_plugin.so",
        "--loose-sluice-example-limit=55", "--loose-sluice_example_enabled"])
    c = h.root(port=srv.port)
    try:
        p = plugins(c)
        assert p["sluice_example"][1] == "ACTIVE" and p["sluice_example_two"][1] == "ACTIVE", p
        assert "missing" not in p and "sluice_wrong_abi" not in p
        # loose- options are the plugin's start-up values
        assert h.scalar(c, "SELECT @@global.sluice_example_limit") == 55
        assert h.scalar(c, "SELECT @@global.sluice_example_enabled") == 1
        assert status(c, "Sluice_example_enabled") == "ON"
        assert h.query(c, "SELECT name FROM mysql.plugin") == ()  # not recorded
        log = srv.log_tail(200)
        assert "missing_library.so" in log and "plugin ABI 2.0" in log, log
    finally:
        h.close_quietly(c)
        srv.kill()


def _fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def _mapped(pid):
    with open(f"/proc/{pid}/maps") as f:
        return sum(1 for line in f if LIB in line)


def test_repeated_install_uninstall_flat():
    srv = _servers.start("plugins-cycles")
    c = h.root(port=srv.port)
    try:
        pid = srv.proc.pid
        h.query(c, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'")
        h.query(c, "UNINSTALL PLUGIN sluice_example")
        fds, maps = _fd_count(pid), _mapped(pid)
        for _ in range(200):
            h.query(c, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'")
            h.query(c, "UNINSTALL PLUGIN sluice_example")
        fds2, maps2 = _fd_count(pid), _mapped(pid)
        h.note(f"200 cycles: fds {fds} -> {fds2}, mappings of {LIB} {maps} -> {maps2}")
        assert fds2 <= fds + 2, (fds, fds2)
        assert maps == 0 and maps2 == 0, (maps, maps2)  # dlclose()d at each UNINSTALL
        h.expect_sql_error(c, "SELECT @@global.sluice_example_limit", 1193)
    finally:
        h.close_quietly(c)
        srv.kill()


def test_uninstall_while_dumps_stream():
    """Plain readers are never observed; a reader the plugin observes keeps
    the library mapped after UNINSTALL until it disconnects; commits and
    readers go on throughout, and cycles with readers attached are fine."""
    srv = _servers.start("plugins-dumps")
    c = h.root(port=srv.port)
    readers = []

    def dump(server_id, observe=False):
        r = h.RawConn(port=srv.port, timeout=30)
        r.login("root", "")
        r.query("SET @master_binlog_checksum='NONE'")
        if observe:
            r.query("SET @sluice_example_observe = 1")
        r.send_packet(bytes([h.COM_BINLOG_DUMP]) + struct.pack("<IHI", 4, 0, server_id) + b"binlog.000001", seq=0)
        readers.append(r)
        return r

    try:
        pid = srv.proc.pid
        h.query(c, "CREATE DATABASE d")
        h.query(c, "CREATE TABLE d.t (id INT PRIMARY KEY)")
        h.query(c, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'")
        dump(601)
        dump(602)
        observed = dump(603, observe=True)
        h.bounded_poll(lambda: status(c, "Sluice_example_transmit_starts") == "3", what="three transmit_starts")
        assert status(c, "Sluice_example_observed_dumps") == "1"
        h.query(c, "INSERT INTO d.t VALUES (1)")
        h.query(c, "UNINSTALL PLUGIN sluice_example")
        assert _mapped(pid) > 0  # the observed reader still holds it (not the plain ones)
        for i in range(2, 12):
            h.query(c, f"INSERT INTO d.t VALUES ({i})")
        observed.close()
        readers.remove(observed)
        n = [100]

        def unmapped():
            n[0] += 1
            h.query(c, f"INSERT INTO d.t VALUES ({n[0]})")  # the dump thread notices the close on a send
            return _mapped(pid) == 0

        h.bounded_poll(unmapped, what="library closed once the observed reader left")
        for _ in range(20):
            h.query(c, f"INSTALL PLUGIN sluice_example SONAME '{LIB}'")
            n[0] += 1
            h.query(c, f"INSERT INTO d.t VALUES ({n[0]})")
            h.query(c, "UNINSTALL PLUGIN sluice_example")
        assert _mapped(pid) == 0
        for r in readers:  # the plain readers still stream
            r.sock.settimeout(10)
            assert r.sock.recv(65536), "a plain reader got nothing"
        h.assert_server_ok(port=srv.port)
    finally:
        for r in readers:
            r.close()
        h.close_quietly(c)
        srv.kill()


if __name__ == "__main__":
    h.main(globals())
