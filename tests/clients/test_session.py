"""Session behaviour: user and system variables, their errors, SHOW
VARIABLES / STATUS / PROCESSLIST, KILL and KILL QUERY. (SHUTDOWN has its own
file with a private server.)"""

import threading

import harness as h

TRADITIONAL = ("STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
               "ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_ENGINE_SUBSTITUTION")
DEFAULT_SQL_MODE = ("ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
                    "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION")

_root = None


def setup_module():
    global _root
    _root = h.root()


def teardown_module():
    h.close_quietly(_root)


def processlist(conn):
    """SHOW PROCESSLIST rows as dicts."""
    with conn.cursor() as cur:
        cur.execute("SHOW PROCESSLIST")
        cols = [d[0] for d in cur.description]
        return cols, [dict(zip(cols, r)) for r in cur.fetchall()]


# ---------------------------------------------------------------- variables

def test_user_variables():
    c = h.root()
    try:
        h.query(c, "SET @x = 5")
        assert h.query(c, "SELECT @x") == ((5,),)
        h.query(c, "SET @s = 'abc', @n = NULL, @y = @x + 1")
        assert h.query(c, "SELECT @s, @n, @y, @never_set") == (("abc", None, 6, None),)
        # user variables are per session
        other = h.root()
        try:
            assert h.query(other, "SELECT @x") == ((None,),)
        finally:
            other.close()
    finally:
        c.close()


def test_sql_mode_traditional():
    c = h.root()
    try:
        h.query(c, "SET SESSION sql_mode = 'TRADITIONAL'")
        assert h.scalar(c, "SELECT @@sql_mode") == TRADITIONAL, h.scalar(c, "SELECT @@sql_mode")
        assert h.scalar(c, "SELECT @@session.sql_mode") == TRADITIONAL
        assert h.scalar(c, "SELECT @@global.sql_mode") == DEFAULT_SQL_MODE, \
            h.scalar(c, "SELECT @@global.sql_mode")
        h.query(c, "SET sql_mode = ''")
        assert h.scalar(c, "SELECT @@sql_mode") == ""
        h.query(c, "SET sql_mode = DEFAULT")
        assert h.scalar(c, "SELECT @@sql_mode") == DEFAULT_SQL_MODE
        h.expect_sql_error(c, "SET sql_mode = 'NOT_A_MODE'", 1231)
    finally:
        c.close()


def test_unknown_variable_1193():
    c = h.root()
    try:
        for sql in ("SET GLOBAL no_such_var_x = 1", "SET SESSION no_such_var_x = 1",
                    "SET no_such_var_x = 1", "SELECT @@no_such_var_x"):
            e = h.expect_sql_error(c, sql, 1193)
            assert "Unknown system variable 'no_such_var_x'" in e.args[1], (sql, e.args)
        # what MySQL replicas probe for the semisync plugin
        h.expect_sql_error(c, "SELECT @@global.rpl_semi_sync_master_enabled", 1193)
    finally:
        c.close()


def test_read_only_variable_1238():
    c = h.root()
    try:
        for sql in ("SET @@version = 'x'", "SET GLOBAL version = 'x'", "SET SESSION version = 'x'",
                    "SET GLOBAL server_uuid = 'x'"):
            e = h.expect_sql_error(c, sql, 1238)
            assert "is a read only variable" in e.args[1], (sql, e.args)
        assert h.scalar(c, "SELECT @@version").endswith("-sluice")
    finally:
        c.close()


def test_global_only_variable_1229():
    c = h.root()
    try:
        for sql in ("SET SESSION server_id = 2", "SET server_id = 2", "SET @@session.server_id = 2",
                    "SET SESSION max_connections = 10"):
            e = h.expect_sql_error(c, sql, 1229)
            assert "is a GLOBAL variable and should be set with SET GLOBAL" in e.args[1], (sql, e.args)
        # reading the session scope of a global-only variable: 1238
        e = h.expect_sql_error(c, "SELECT @@session.server_id", 1238)
        assert "is a GLOBAL variable" in e.args[1], e.args
        assert h.scalar(c, "SELECT @@server_id") == h.scalar(c, "SELECT @@global.server_id")
    finally:
        c.close()


def test_session_only_variable_1228():
    c = h.root()
    try:
        e = h.expect_sql_error(c, "SET GLOBAL timestamp = 1", 1228)
        assert "is a SESSION variable and can't be used with SET GLOBAL" in e.args[1], e.args
        e = h.expect_sql_error(c, "SELECT @@global.timestamp", 1238)
        assert "is a SESSION variable" in e.args[1], e.args
    finally:
        c.close()


def test_wrong_value_1231():
    c = h.root()
    try:
        e = h.expect_sql_error(c, "SET autocommit = 'maybe'", 1231)
        assert "Variable 'autocommit' can't be set to the value of 'maybe'" in e.args[1], e.args
        h.expect_sql_error(c, "SET autocommit = 2", 1231)
        h.query(c, "SET autocommit = 0")
        assert h.scalar(c, "SELECT @@autocommit") == 0
        h.query(c, "SET autocommit = ON")
        assert h.scalar(c, "SELECT @@autocommit") == 1
    finally:
        c.close()


def test_wrong_type_1232():
    c = h.root()
    try:
        e = h.expect_sql_error(c, "SET sql_select_limit = 'abc'", 1232)
        assert "Incorrect argument type to variable 'sql_select_limit'" in e.args[1], e.args
        h.expect_sql_error(c, "SET GLOBAL max_connections = 'abc'", 1232)
        h.expect_sql_error(c, "SET SESSION wait_timeout = 1.5e0", 1232)
    finally:
        c.close()


def test_max_allowed_packet_session_read_only_1621():
    c = h.root()
    try:
        e = h.expect_sql_error(c, "SET SESSION max_allowed_packet = 1024", 1621)
        assert "SESSION variable 'max_allowed_packet' is read-only" in e.args[1], e.args
    finally:
        c.close()


def test_set_global_affects_new_sessions_only():
    old = h.scalar(_root, "SELECT @@global.wait_timeout")
    before = h.root()
    try:
        h.query(_root, "SET GLOBAL wait_timeout = 12345")
        try:
            assert h.scalar(_root, "SELECT @@global.wait_timeout") == 12345
            assert h.scalar(before, "SELECT @@session.wait_timeout") == old
            after = h.root()
            try:
                assert h.scalar(after, "SELECT @@session.wait_timeout") == 12345
                assert h.scalar(after, "SELECT @@wait_timeout") == 12345
            finally:
                after.close()
        finally:
            h.query(_root, f"SET GLOBAL wait_timeout = {int(old)}")
    finally:
        before.close()


def test_set_names():
    c = h.root()
    try:
        h.query(c, "SET NAMES latin1")
        assert h.query(c, "SELECT @@character_set_client, @@character_set_connection, "
                          "@@character_set_results") == (("latin1", "latin1", "latin1"),)
        h.query(c, "SET NAMES utf8mb4 COLLATE utf8mb4_0900_ai_ci")
        assert h.scalar(c, "SELECT @@collation_connection") == "utf8mb4_0900_ai_ci"
    finally:
        c.close()


# ---------------------------------------------------------------- SHOW

def test_show_variables_like_version():
    with _root.cursor() as cur:
        cur.execute("SHOW VARIABLES LIKE 'version%'")
        cols = [d[0] for d in cur.description]
        rows = cur.fetchall()
    assert cols == ["Variable_name", "Value"], cols
    names = [r[0] for r in rows]
    assert "version" in names and "version_comment" in names, names
    assert all(n.startswith("version") for n in names), names
    assert names == sorted(names), f"SHOW VARIABLES not sorted by name: {names}"
    d = dict(rows)
    assert d["version"].endswith("-sluice"), d["version"]
    assert d["version"] == h.scalar(_root, "SELECT @@version")


def test_show_variables_where():
    rows = h.query(_root, "SHOW VARIABLES WHERE Variable_name IN ('server_id','port')")
    d = dict(rows)
    assert sorted(d) == ["port", "server_id"], rows
    assert int(d["port"]) == h.PORT, d
    assert int(d["server_id"]) == h.scalar(_root, "SELECT @@global.server_id"), d
    assert h.query(_root, "SHOW GLOBAL VARIABLES WHERE Variable_name = 'no_such'") == ()


def test_show_global_status_questions():
    def questions(scope):
        rows = h.query(_root, f"SHOW {scope} STATUS LIKE 'Questions'")
        assert len(rows) == 1 and rows[0][0] == "Questions", rows
        return int(rows[0][1])
    g0, s0 = questions("GLOBAL"), questions("SESSION")
    for _ in range(3):
        h.query(_root, "SELECT 1")
    g1, s1 = questions("GLOBAL"), questions("SESSION")
    assert g1 >= g0 + 3, (g0, g1)
    assert s1 >= s0 + 3, (s0, s1)
    assert g1 >= s1, (g1, s1)


def test_show_processlist():
    a = h.root()
    b = h.connect("root", "")
    try:
        cols, rows = processlist(a)
        assert cols == ["Id", "User", "Host", "db", "Command", "Time", "State", "Info"], cols
        by_id = {int(r["Id"]): r for r in rows}
        assert a.thread_id() in by_id and b.thread_id() in by_id, (a.thread_id(), b.thread_id(), by_id)
        me = by_id[a.thread_id()]
        assert me["User"] == "root" and me["Command"] == "Query", me
        assert me["Info"] == "SHOW PROCESSLIST", me
        assert me["Host"].split(":")[0] in ("localhost", "127.0.0.1"), me
        other = by_id[b.thread_id()]
        assert other["Command"] == "Sleep" and other["Info"] is None, other
        h.query(b, "USE mysql")
        _, rows = processlist(a)
        assert {int(r["Id"]): r for r in rows}[b.thread_id()]["db"] == "mysql"
    finally:
        a.close()
        b.close()


# ---------------------------------------------------------------- KILL

def test_kill_connection():
    a = h.root()
    b = h.root()
    try:
        aid = a.thread_id()
        h.query(b, f"KILL {aid}")
        h.expect_error(h.LOST_CONNECTION_ERRNOS + (1927,), h.query, a, "SELECT 1",
                       what="query on a killed connection")
        h.bounded_poll(lambda: aid not in [int(r["Id"]) for r in processlist(b)[1]],
                       what=f"connection {aid} gone from SHOW PROCESSLIST")
        assert h.scalar(b, "SELECT 1") == 1
        # KILL CONNECTION syntax, and an unknown id
        a2 = h.root()
        h.query(b, f"KILL CONNECTION {a2.thread_id()}")
        h.expect_error(h.LOST_CONNECTION_ERRNOS + (1927,), h.query, a2, "SELECT 1")
        h.close_quietly(a2)
        e = h.expect_sql_error(b, "KILL 987654321", 1094)
        assert "Unknown thread id: 987654321" in e.args[1], e.args
    finally:
        h.close_quietly(a)
        b.close()


def test_kill_query_interrupts_sleep():
    a = h.root()
    b = h.root()
    try:
        aid = a.thread_id()
        result = {}

        def run():
            try:
                result["rows"] = h.query(a, "SELECT SLEEP(30)")
            except Exception as e:  # noqa: BLE001
                result["error"] = e

        t = threading.Thread(target=run, daemon=True)
        t.start()

        def running():
            for r in processlist(b)[1]:
                if int(r["Id"]) == aid and r["Command"] == "Query" and "SLEEP" in (r["Info"] or "").upper():
                    return r
            return None
        h.bounded_poll(running, rounds=100, interval=0.1, what="SELECT SLEEP(30) visible in processlist")
        h.query(b, f"KILL QUERY {aid}")
        t.join(25)
        assert not t.is_alive(), "SELECT SLEEP(30) still running 25 s after KILL QUERY"
        # MySQL: when SLEEP() is the only thing the interrupted query does, it
        # returns 1 and the query no error.
        assert "error" not in result, f"KILL QUERY made SELECT SLEEP(30) fail: {result.get('error')!r}"
        assert result["rows"] == ((1,),), result
        # the connection itself survives, and the kill does not carry over
        assert h.scalar(a, "SELECT 1") == 1
        assert h.scalar(a, "SELECT SLEEP(0)") == 0
    finally:
        a.close()
        b.close()


def test_kill_query_own_and_unknown():
    c = h.root()
    try:
        h.expect_sql_error(c, "KILL QUERY 987654321", 1094)
        # KILL QUERY of one's own connection: 1317, the connection stays
        h.expect_sql_error(c, f"KILL QUERY {c.thread_id()}", 1317)
        assert h.scalar(c, "SELECT 1") == 1
    finally:
        c.close()


def test_server_still_fine():
    h.assert_server_ok()


if __name__ == "__main__":
    h.main(globals())
