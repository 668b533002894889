"""Tests that need their own sluiced (never the shared one): the SHUTDOWN
statement (also with binlog dumps streaming), persistence across a SIGTERM
restart, and --initialize."""

import os
import struct
import threading
import time

import pymysql

import harness as h

_servers = []
_init = {}  # state shared by the --initialize tests


def start(name, datadir=None, extra=()):
    srv = h.Server(datadir or h.temp_dir(name), extra=extra)
    _servers.append(srv)
    return srv.start()


def teardown_module():
    for srv in _servers:
        srv.kill()


def test_shutdown_statement():
    srv = start("shutdown")
    bystander = h.root(port=srv.port)
    c = h.root(port=srv.port)
    try:
        assert h.scalar(c, "SELECT 1") == 1
        try:
            h.query(c, "SHUTDOWN")  # mysqld answers OK, then shuts down
        except pymysql.err.OperationalError as e:
            assert e.args[0] in h.LOST_CONNECTION_ERRNOS, e
            h.note(f"SHUTDOWN: connection lost instead of OK ({e.args})")
        rc = srv.wait_exit(30)
        assert rc == 0, f"sluiced exited with {rc} after SHUTDOWN; log:\n{srv.log_tail()}"
        h.expect_error(h.LOST_CONNECTION_ERRNOS, h.query, bystander, "SELECT 1",
                       what="other session after SHUTDOWN")
        h.expect_error((2003,), h.root, port=srv.port, what="connect after SHUTDOWN")
    finally:
        h.close_quietly(c)
        h.close_quietly(bystander)
        srv.kill()


def test_shutdown_with_dump_readers_attached():
    """SHUTDOWN while binlog dumps stream: three readers caught up and
    waiting at the end of the log, and one that reads nothing (its dump
    thread blocked writing to a full socket). The server tells every dump to
    stop, joins the dump threads (they are the worker pool's, joined before
    the binlog closes) and exits 0, promptly: well within the 10 s it gives
    sessions to end."""
    srv = start("shutdown-dumps")
    c = h.root(port=srv.port)
    readers = []
    drained = []
    try:
        h.query(c, "CREATE DATABASE d")
        h.query(c, "CREATE TABLE d.t (id INT PRIMARY KEY, v LONGTEXT)")
        chunk = "x" * 3500  # rows stay on their page
        for i in range(48):  # ~8 MB of binlog: more than a stalled reader's socket buffers take
            rows = ", ".join(f"({i * 50 + j}, '{chunk}')" for j in range(50))
            h.query(c, f"INSERT INTO d.t VALUES {rows}")

        def dump(server_id):
            r = h.RawConn(port=srv.port, timeout=30)
            r.login("root", "")
            r.query("SET @master_binlog_checksum='NONE'")
            r.send_packet(bytes([h.COM_BINLOG_DUMP]) + struct.pack("<IHI", 4, 0, server_id) + b"binlog.000001",
                          seq=0)
            readers.append(r)
            return r

        def drain(r):
            try:
                while True:
                    r.read_packet(check_seq=False)
            except Exception:  # noqa: BLE001 - the server closed the connection
                drained.append(r)

        threads = []
        for sid in (701, 702, 703):
            t = threading.Thread(target=drain, args=(dump(sid),), daemon=True)
            t.start()
            threads.append(t)
        dump(704)  # never read

        def states():
            return [str(r[6]) for r in h.query(c, "SHOW PROCESSLIST") if str(r[4]).startswith("Binlog Dump")]

        h.bounded_poll(lambda: len(states()) == 4 and sum("waiting for more updates" in s for s in states()) == 3,
                       rounds=300, what="three dumps caught up and one stalled")
        h.note(f"dump states before SHUTDOWN: {states()}")
        started = time.monotonic()
        try:
            h.query(c, "SHUTDOWN")
        except pymysql.err.OperationalError as e:
            assert e.args[0] in h.LOST_CONNECTION_ERRNOS, e
        rc = srv.wait_exit(30)
        elapsed = time.monotonic() - started
        h.note(f"SHUTDOWN with 4 dumps attached: exited in {elapsed:.2f} s")
        assert rc == 0, f"sluiced exited with {rc} after SHUTDOWN with dumps attached; log:\n{srv.log_tail()}"
        assert elapsed < 8, f"SHUTDOWN with dumps attached took {elapsed:.1f} s; log:\n{srv.log_tail()}"
        assert "Shutdown complete" in srv.log_tail(), srv.log_tail()
        for t in threads:
            t.join(10)
        assert len(drained) == 3, "every reading reader sees its connection end"
    finally:
        for r in readers:
            r.close()
        h.close_quietly(c)
        srv.kill()


def test_shutdown_privilege_grantable():
    srv = start("shutdown-priv")
    try:
        r = h.root(port=srv.port)
        h.query(r, "CREATE USER 'sd'@'%' IDENTIFIED WITH mysql_native_password BY 'sdpw'")
        u = h.connect("sd", "sdpw", port=srv.port)
        h.expect_sql_error(u, "SHUTDOWN", 1227)
        h.close_quietly(u)
        h.query(r, "GRANT SHUTDOWN ON *.* TO 'sd'@'%'")
        h.close_quietly(r)
        u = h.connect("sd", "sdpw", port=srv.port)
        try:
            h.query(u, "SHUTDOWN")
        except pymysql.err.OperationalError as e:
            assert e.args[0] in h.LOST_CONNECTION_ERRNOS, e
        finally:
            h.close_quietly(u)
        assert srv.wait_exit(30) == 0
    finally:
        srv.kill()


def test_restart_persistence():
    datadir = h.temp_dir("restart")
    srv = start("restart", datadir)
    r = h.root(port=srv.port)
    try:
        h.query(r, "CREATE USER 'p'@'%' IDENTIFIED WITH mysql_native_password BY 'ppw'")
        h.query(r, "CREATE USER 'q'@'%' IDENTIFIED BY 'qpw'")  # default: caching_sha2_password
        h.query(r, "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'p'@'%'")
        h.query(r, "GRANT SELECT ON db1.* TO 'p'@'%'")
        h.query(r, "GRANT SYSTEM_VARIABLES_ADMIN ON *.* TO 'q'@'%'")
        h.query(r, "SET PERSIST max_connections = 77")
        h.query(r, "SET GLOBAL wait_timeout = 999")  # not persisted
        assert h.scalar(r, "SELECT @@global.max_connections") == 77
        grants_p = h.query(r, "SHOW GRANTS FOR 'p'@'%'")
        grants_q = h.query(r, "SHOW GRANTS FOR 'q'@'%'")
        uuid = h.scalar(r, "SELECT @@server_uuid")
        q = h.connect("q", "qpw", port=srv.port)
        key_before = q.server_public_key
        q.close()
    finally:
        r.close()
    rc = srv.terminate(10)
    assert rc == 0, f"exit code after SIGTERM: {rc}; log:\n{srv.log_tail()}"
    if not os.path.exists(os.path.join(datadir, "mysqld-auto.cnf")):
        h.note("no mysqld-auto.cnf in the datadir (MySQL keeps SET PERSIST values there)")

    srv2 = start("restart", datadir)
    srv2.log_error = srv.log_error
    r = h.root(port=srv2.port)
    try:
        assert h.scalar(r, "SELECT @@server_uuid") == uuid, "server_uuid changed across restart"
        assert h.scalar(r, "SELECT @@global.max_connections") == 77
        rows = dict(h.query(r, "SHOW GLOBAL VARIABLES LIKE 'max_connections'"))
        assert rows == {"max_connections": "77"}, rows
        assert h.scalar(r, "SELECT @@global.wait_timeout") == 28800, "SET GLOBAL survived a restart"
        assert h.query(r, "SHOW GRANTS FOR 'p'@'%'") == grants_p
        assert h.query(r, "SHOW GRANTS FOR 'q'@'%'") == grants_q
    finally:
        r.close()
    p = h.connect("p", "ppw", port=srv2.port)
    try:
        assert h.scalar(p, "SELECT CURRENT_USER()") == "p@%"
    finally:
        p.close()
    h.expect_error(1045, h.connect, "p", "wrong", srv2.port, what="p with a wrong password")
    # the sha2 cache does not survive a restart: RSA exchange again, same key
    q = h.connect("q", "qpw", port=srv2.port)
    try:
        assert q.server_public_key, "caching_sha2 cache survived the restart"
        assert q.server_public_key == key_before, "RSA key pair changed across restart"
    finally:
        q.close()
    q = h.connect("q", "qpw", port=srv2.port, tls=True, datadir=datadir)
    q.close()
    assert srv2.terminate(10) == 0


def test_initialize():
    datadir = h.temp_dir("init")
    log = datadir + ".err"
    rc, out, err = h.run_cmd([h.SLUICED, "--initialize", f"--datadir={datadir}", f"--log-error={log}"],
                             timeout=120)
    assert rc == 0, f"--initialize exited {rc}: {out} {err}"
    with open(log, errors="replace") as f:
        text = f.read()
    m = h.TEMP_PASSWORD_RE.search(text)
    assert m, f"no temporary password line in the log:\n{text}"
    password = m.group(1)
    assert len(password) >= 8, password
    for f in ("ca.pem", "server-cert.pem", "server-key.pem", "public_key.pem", "private_key.pem"):
        assert os.path.exists(os.path.join(datadir, f)), f"--initialize did not create {f}"
    # a second --initialize on a non-empty datadir is refused
    rc2, out2, err2 = h.run_cmd([h.SLUICED, "--initialize", f"--datadir={datadir}",
                                 f"--log-error={datadir}.err2"], timeout=120)
    assert rc2 != 0, "--initialize succeeded on a non-empty datadir"

    srv = start("init", datadir)
    _init.update(srv=srv, datadir=datadir, password=password)
    h.expect_error(1045, h.connect, "root", "", srv.port, what="root without the temporary password")
    flag = pymysql.constants.CLIENT.HANDLE_EXPIRED_PASSWORDS
    # plain TCP: caching_sha2_password full authentication through RSA
    c = h.connect("root", password, port=srv.port, client_flag=flag)
    try:
        assert c.server_public_key, "no RSA key exchange for root@localhost"
        assert c.get_server_info().endswith("-sluice")
    finally:
        c.close()
    # TLS
    c = h.connect("root", password, port=srv.port, tls=True, datadir=datadir, client_flag=flag)
    c.close()


def test_initialize_password_is_expired():
    """MySQL's --initialize marks root's temporary password expired: a client
    without CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS is refused with 1862; one with
    it logs in, every statement but ALTER USER / SET PASSWORD fails with 1820."""
    assert _init, "test_initialize did not get that far"
    srv, datadir, password = _init["srv"], _init["datadir"], _init["password"]
    h.expect_error(1862, h.connect, "root", password, srv.port, True, datadir=datadir,
                   what="expired password, client without CAN_HANDLE_EXPIRED_PASSWORDS")
    flag = pymysql.constants.CLIENT.HANDLE_EXPIRED_PASSWORDS
    c = h.connect("root", password, port=srv.port, tls=True, datadir=datadir, client_flag=flag)
    try:
        h.expect_sql_error(c, "SELECT 1", 1820)
        h.query(c, "ALTER USER USER() IDENTIFIED BY 'new-root-pw'")
        assert h.scalar(c, "SELECT 1") == 1
    finally:
        c.close()
    c = h.connect("root", "new-root-pw", port=srv.port, tls=True, datadir=datadir)
    c.close()


def test_initialize_insecure():
    datadir = h.temp_dir("init-insecure")
    log = datadir + ".err"
    rc, out, err = h.run_cmd([h.SLUICED, "--initialize-insecure", f"--datadir={datadir}",
                              f"--log-error={log}"], timeout=120)
    assert rc == 0, f"--initialize-insecure exited {rc}: {out} {err}"
    srv = start("init-insecure", datadir)
    try:
        c = h.root(port=srv.port)
        try:
            assert h.scalar(c, "SELECT CURRENT_USER()") == "root@localhost"
        finally:
            c.close()
    finally:
        assert srv.terminate(10) == 0


if __name__ == "__main__":
    h.main(globals())
