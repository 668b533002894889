"""Privilege checks: replication commands (raw COM_REGISTER_SLAVE /
COM_BINLOG_DUMP packets), SET GLOBAL, SHUTDOWN, KILL, database access,
GRANT/REVOKE reflected by SHOW GRANTS, DROP USER."""

import struct

import pymysql

import harness as h

NOPRIV = ("np_user", "np_pw")     # no privileges at all
REPL = ("rp_user", "rp_pw")       # REPLICATION SLAVE
GRANTEE = ("gr_user", "gr_pw")    # GRANT/REVOKE target

_root = None


def setup_module():
    global _root
    _root = h.root()
    for u, _ in (NOPRIV, REPL, GRANTEE):
        h.query(_root, f"DROP USER IF EXISTS '{u}'@'%'")
    for u, pw in (NOPRIV, REPL, GRANTEE):
        h.query(_root, f"CREATE USER '{u}'@'%' IDENTIFIED WITH mysql_native_password BY '{pw}'")
    h.query(_root, f"GRANT REPLICATION SLAVE ON *.* TO '{REPL[0]}'@'%'")


def teardown_module():
    h.close_quietly(_root)


def register_slave_body(server_id, host=b"replica-host", user=b"", password=b"", port=3307):
    return (struct.pack("<I", server_id) + bytes([len(host)]) + host + bytes([len(user)]) + user
            + bytes([len(password)]) + password + struct.pack("<HII", port, 0, 0))


def binlog_dump_body(server_id, flags=0x0001, pos=4, fname=b""):
    return struct.pack("<IHI", pos, flags, server_id) + fname


def binlog_dump_gtid_body(server_id, flags=0x0001):
    gtid_set = struct.pack("<Q", 0)  # empty GTID set
    return (struct.pack("<HII", flags, server_id, 0) + struct.pack("<QI", 4, len(gtid_set))
            + gtid_set)


def expect_err_packet(pkt, errno, what):
    assert pkt[:1] == b"\xff", f"{what}: expected ERR {errno}, got {pkt[:60]!r}"
    code, state, msg = h.parse_err(pkt)
    assert code == errno, f"{what}: expected ERR {errno}, got {code} ({state}) {msg}"
    return code, state, msg


# ---------------------------------------------------------------- replication

def test_register_slave_without_privilege():
    c = h.raw_login(*NOPRIV)
    try:
        pkt = c.command(h.COM_REGISTER_SLAVE, register_slave_body(9001))
        _, state, msg = expect_err_packet(pkt, 1227, "COM_REGISTER_SLAVE without REPLICATION SLAVE")
        assert state == "42000", state
        assert "REPLICATION SLAVE" in msg, msg
        # the connection carries on, as in mysqld
        assert c.query("SELECT 1") == [["1"]]
    finally:
        c.close()


def test_binlog_dump_without_privilege():
    c = h.raw_login(*NOPRIV)
    try:
        pkt = c.command(h.COM_BINLOG_DUMP, binlog_dump_body(9002))
        _, _, msg = expect_err_packet(pkt, 1227, "COM_BINLOG_DUMP without REPLICATION SLAVE")
        assert "REPLICATION SLAVE" in msg, msg
        assert c.query("SELECT 1") == [["1"]]
    finally:
        c.close()


def test_binlog_dump_gtid_without_privilege():
    c = h.raw_login(*NOPRIV)
    try:
        pkt = c.command(h.COM_BINLOG_DUMP_GTID, binlog_dump_gtid_body(9003))
        expect_err_packet(pkt, 1227, "COM_BINLOG_DUMP_GTID without REPLICATION SLAVE")
    finally:
        c.close()


def test_binlog_dump_via_pymysql_without_privilege():
    """The same check, with the packet written through PyMySQL's connection."""
    conn = h.connect(*NOPRIV)
    try:
        conn._execute_command(h.COM_BINLOG_DUMP, binlog_dump_body(9004))
        e = h.expect_error(1227, conn._read_packet, what="COM_BINLOG_DUMP via PyMySQL")
        assert "REPLICATION SLAVE" in e.args[1], e.args
        assert h.scalar(conn, "SELECT 1") == 1
    finally:
        conn.close()


def test_register_slave_with_privilege():
    c = h.raw_login(*REPL)
    try:
        pkt = c.command(h.COM_REGISTER_SLAVE, register_slave_body(9005))
        assert pkt[:1] == b"\x00", f"COM_REGISTER_SLAVE with REPLICATION SLAVE: expected OK, got {pkt[:60]!r}"

        def listed():
            rows = h.query(_root, "SHOW REPLICAS")
            return [r for r in rows if int(r[0]) == 9005]
        rows = h.bounded_poll(listed, what="replica 9005 in SHOW REPLICAS")
        assert rows[0][1] == "replica-host" and int(rows[0][2]) == 3307, rows
        assert c.query("SELECT 1") == [["1"]]
    finally:
        c.close()
    # the entry goes away with the connection
    h.bounded_poll(lambda: not [r for r in h.query(_root, "SHOW REPLICAS") if int(r[0]) == 9005],
                   what="replica 9005 removed from SHOW REPLICAS")


def test_binlog_dump_with_privilege():
    c = h.raw_login(*REPL)
    try:
        c.send_packet(bytes([h.COM_BINLOG_DUMP]) + binlog_dump_body(9006), seq=0)
        try:
            pkt = c.read_packet()
        except h.Closed as e:
            raise AssertionError(f"connection closed without an answer: {e}")
        if pkt[:1] == b"\xff":
            code, _, msg = h.parse_err(pkt)
            assert code != 1227, f"REPLICATION SLAVE user refused: {msg}"
            h.note(f"COM_BINLOG_DUMP with privilege: ERR {code} {msg}")
        else:
            # an event (0x00 + event) or the non-blocking end (0xFE)
            assert pkt[:1] in (b"\x00", b"\xfe"), pkt[:40]
    finally:
        c.close()


def test_show_binary_logs_needs_privilege():
    c = h.connect(*NOPRIV)
    try:
        for sql in ("SHOW BINARY LOGS", "SHOW MASTER STATUS"):
            h.expect_sql_error(c, sql, 1227)
    finally:
        c.close()


# ---------------------------------------------------------------- admin statements

def test_set_global_without_privilege():
    c = h.connect(*NOPRIV)
    try:
        e = h.expect_sql_error(c, "SET GLOBAL max_connections = 100", 1227)
        assert "SYSTEM_VARIABLES_ADMIN" in e.args[1] or "SUPER" in e.args[1], e.args
        h.expect_sql_error(c, "SET @@global.wait_timeout = 100", 1227)
        h.expect_sql_error(c, "SET PERSIST max_connections = 100", 1227)
        # session variables need no privilege
        h.query(c, "SET SESSION wait_timeout = 100")
        assert h.scalar(c, "SELECT @@session.wait_timeout") == 100
    finally:
        c.close()
    assert h.scalar(_root, "SELECT @@global.max_connections") != 100


def test_shutdown_without_privilege():
    c = h.connect(*NOPRIV)
    try:
        e = h.expect_sql_error(c, "SHUTDOWN", 1227)
        assert "SHUTDOWN" in e.args[1], e.args
    finally:
        c.close()
    h.assert_server_ok()


def test_kill_other_users_thread_without_privilege():
    victim = h.root()
    c = h.connect(*NOPRIV)
    try:
        vid = victim.thread_id()
        e = h.expect_sql_error(c, f"KILL {vid}", 1095)
        assert str(vid) in e.args[1], e.args
        h.expect_sql_error(c, f"KILL QUERY {vid}", 1095)
        # COM_PROCESS_KILL too
        raw = h.raw_login(*NOPRIV)
        try:
            pkt = raw.command(0x0C, struct.pack("<I", vid))
            expect_err_packet(pkt, 1095, "COM_PROCESS_KILL of another user's thread")
        finally:
            raw.close()
        assert h.scalar(victim, "SELECT 1") == 1, "victim was killed anyway"
        # killing one's own other connection is allowed
        own = h.connect(*NOPRIV)
        try:
            h.query(c, f"KILL {own.thread_id()}")
            h.expect_error(h.LOST_CONNECTION_ERRNOS + (1927,), h.query, own, "SELECT 1",
                           what="query on a killed connection")
        finally:
            h.close_quietly(own)
    finally:
        c.close()
        victim.close()


# ---------------------------------------------------------------- databases

def test_init_db_mysql_without_privilege():
    c = h.raw_login(*NOPRIV)
    try:
        pkt = c.command(h.COM_INIT_DB, b"mysql")
        _, state, msg = expect_err_packet(pkt, 1044, "COM_INIT_DB mysql")
        assert state == "42000" and "'mysql'" in msg, (state, msg)
        assert c.query("SELECT DATABASE()") == [[None]]
    finally:
        c.close()
    c = h.connect(*NOPRIV)
    try:
        h.expect_error(1044, c.select_db, "mysql", what="PyMySQL select_db('mysql')")
        h.expect_sql_error(c, "USE mysql", 1044)
    finally:
        c.close()


def test_connect_with_db_mysql_without_privilege():
    h.expect_error(1044, h.connect, *NOPRIV, database="mysql", what="connect db=mysql")
    c = h.RawConn()
    try:
        e = h.expect_error((1044,), c.login, *NOPRIV, "mysql", what="raw connect db=mysql")
    finally:
        c.close()


def test_unknown_db_for_root():
    c = h.raw_login("root", "")
    try:
        pkt = c.command(h.COM_INIT_DB, b"no_such_db_xyz")
        _, state, msg = expect_err_packet(pkt, 1049, "COM_INIT_DB unknown db")
        assert state == "42000" and "no_such_db_xyz" in msg, (state, msg)
    finally:
        c.close()
    h.expect_error(1049, h.connect, "root", "", database="no_such_db_xyz", what="connect unknown db")
    c = h.root()
    try:
        h.expect_error(1049, c.select_db, "no_such_db_xyz", what="select_db unknown")
        h.expect_sql_error(c, "USE no_such_db_xyz", 1049)
        c.select_db("mysql")
        assert h.scalar(c, "SELECT DATABASE()") == "mysql"
    finally:
        c.close()


# ---------------------------------------------------------------- GRANT / REVOKE

def grants(user):
    return [r[0] for r in h.query(_root, f"SHOW GRANTS FOR '{user}'@'%'")]


def test_grant_revoke_show_grants():
    u = GRANTEE[0]
    assert grants(u) == [f"GRANT USAGE ON *.* TO `{u}`@`%`"], grants(u)
    h.query(_root, f"GRANT REPLICATION CLIENT, SELECT, REPLICATION SLAVE ON *.* TO '{u}'@'%'")
    assert grants(u) == [f"GRANT SELECT, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `{u}`@`%`"], grants(u)
    h.query(_root, f"GRANT SYSTEM_VARIABLES_ADMIN ON *.* TO '{u}'@'%'")
    assert grants(u) == [f"GRANT SELECT, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `{u}`@`%`",
                         f"GRANT SYSTEM_VARIABLES_ADMIN ON *.* TO `{u}`@`%`"], grants(u)
    h.query(_root, f"GRANT SELECT, INSERT ON db1.* TO '{u}'@'%'")
    assert f"GRANT SELECT, INSERT ON `db1`.* TO `{u}`@`%`" in grants(u), grants(u)
    # the user sees the same through SHOW GRANTS / SHOW GRANTS FOR CURRENT_USER()
    c = h.connect(*GRANTEE)
    try:
        mine = [r[0] for r in h.query(c, "SHOW GRANTS")]
        assert mine == grants(u), (mine, grants(u))
        mine = [r[0] for r in h.query(c, "SHOW GRANTS FOR CURRENT_USER()")]
        assert mine == grants(u), (mine, grants(u))
        # and the granted privileges work (new session)
        h.query(c, "SET GLOBAL wait_timeout = 28800")
    finally:
        c.close()
    h.query(_root, f"REVOKE SELECT ON *.* FROM '{u}'@'%'")
    h.query(_root, f"REVOKE INSERT ON db1.* FROM '{u}'@'%'")
    h.query(_root, f"REVOKE SYSTEM_VARIABLES_ADMIN ON *.* FROM '{u}'@'%'")
    assert grants(u) == [f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `{u}`@`%`",
                         f"GRANT SELECT ON `db1`.* TO `{u}`@`%`"], grants(u)
    c = h.connect(*GRANTEE)
    try:
        h.expect_sql_error(c, "SET GLOBAL wait_timeout = 28800", 1227)
    finally:
        c.close()
    h.query(_root, f"REVOKE ALL PRIVILEGES, GRANT OPTION FROM '{u}'@'%'")
    assert grants(u) == [f"GRANT USAGE ON *.* TO `{u}`@`%`"], grants(u)


def test_grant_replication_slave_enables_dump():
    u = GRANTEE[0]
    c = h.raw_login(*GRANTEE)
    try:
        expect_err_packet(c.command(h.COM_REGISTER_SLAVE, register_slave_body(9010)), 1227, "before GRANT")
    finally:
        c.close()
    h.query(_root, f"GRANT REPLICATION SLAVE ON *.* TO '{u}'@'%'")
    try:
        c = h.raw_login(*GRANTEE)
        try:
            pkt = c.command(h.COM_REGISTER_SLAVE, register_slave_body(9010))
            assert pkt[:1] == b"\x00", f"after GRANT REPLICATION SLAVE: {pkt[:60]!r}"
        finally:
            c.close()
    finally:
        h.query(_root, f"REVOKE REPLICATION SLAVE ON *.* FROM '{u}'@'%'")


def test_show_grants_for_unknown_user():
    h.expect_sql_error(_root, "SHOW GRANTS FOR 'no_such_user_q'@'%'", 1141)


def test_drop_user_then_login_fails():
    h.query(_root, "DROP USER IF EXISTS 'dropme'@'%'")
    h.query(_root, "CREATE USER 'dropme'@'%' IDENTIFIED WITH mysql_native_password BY 'dpw'")
    h.close_quietly(h.connect("dropme", "dpw"))
    h.query(_root, "DROP USER 'dropme'@'%'")
    h.expect_error(1045, h.connect, "dropme", "dpw", what="login after DROP USER")
    h.expect_sql_error(_root, "DROP USER 'dropme'@'%'", 1396)


def test_server_still_fine():
    h.assert_server_ok()


if __name__ == "__main__":
    h.main(globals())
