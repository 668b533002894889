"""Issue 14, findings 8 and 9: privilege filtering on SHOW and
INFORMATION_SCHEMA, and the `mysql` schema.

Finding 8 (information leak): an account without privileges on database
`secret` ran SHOW TABLES FROM secret and saw its tables. Every SHOW path now
checks the account's privileges before it looks at what exists (1044 for a
database, 1142 for a table, whether or not it exists), SHOW DATABASES and
INFORMATION_SCHEMA list only what the account has some privilege in, SHOW
GRANTS FOR another account needs SELECT on mysql, SHOW PROCESSLIST shows
only one's own threads without PROCESS.

Finding 9: SHOW DATABASES listed `mysql` but SHOW TABLES FROM mysql gave 1049,
so mariadb-dump --all-databases failed. `mysql` now has mysql.user, mysql.db,
mysql.tables_priv (read-only views of the account table, SELECT on mysql
needed) and the empty log tables general_log / slow_log; every write there
is refused (1036 read-only, 1044 for new tables), and a dump of every
database loads into a fresh sluiced with the same rows."""

import hashlib

import harness as h

SECRET = "secret"
OPEN = "hp_open"
NONE_USER = ("hp_none", "hp_none_pw")      # no privileges at all
OPEN_USER = ("hp_opener", "hp_open_pw")    # SELECT ON hp_open.*
MYSQL_USER = ("hp_mysql", "hp_mysql_pw")   # SELECT ON mysql.*
DUMP_DBS = ("hp_dump_a", "hp_dump_b")

_root = None
_servers = h.PrivateServers()


def setup_module():
    global _root
    _root = h.root()
    for db in (SECRET, OPEN) + DUMP_DBS:
        h.query(_root, f"DROP DATABASE IF EXISTS {db}")
    h.query(_root, f"CREATE DATABASE {SECRET}")
    h.query(_root, f"CREATE TABLE {SECRET}.t (id INT PRIMARY KEY, v VARCHAR(20), KEY v_k (v))")
    h.query(_root, f"CREATE TABLE {SECRET}.payroll (id INT PRIMARY KEY, salary INT)")
    h.query(_root, f"INSERT INTO {SECRET}.t VALUES (1, 'alpha'), (2, 'beta')")
    h.query(_root, f"INSERT INTO {SECRET}.payroll VALUES (1, 100000)")
    h.query(_root, f"CREATE DATABASE {OPEN}")
    h.query(_root, f"CREATE TABLE {OPEN}.pub (id INT PRIMARY KEY, v VARCHAR(20))")
    h.query(_root, f"INSERT INTO {OPEN}.pub VALUES (1, 'one')")
    for u, pw in (NONE_USER, OPEN_USER, MYSQL_USER):
        h.query(_root, f"DROP USER IF EXISTS '{u}'@'%'")
        h.query(_root, f"CREATE USER '{u}'@'%' IDENTIFIED WITH mysql_native_password BY '{pw}'")
    h.query(_root, f"GRANT SELECT ON {OPEN}.* TO '{OPEN_USER[0]}'@'%'")
    h.query(_root, f"GRANT SELECT ON mysql.* TO '{MYSQL_USER[0]}'@'%'")


def teardown_module():
    _servers.kill_all()
    try:
        for db in (SECRET, OPEN) + DUMP_DBS:
            h.query(_root, f"DROP DATABASE IF EXISTS {db}")
        for u, _ in (NONE_USER, OPEN_USER, MYSQL_USER):
            h.query(_root, f"DROP USER IF EXISTS '{u}'@'%'")
    finally:
        h.close_quietly(_root)


def as_user(user):
    return h.connect(user[0], user[1])


def secret_intact():
    """The server answers and root still sees secret's rows unchanged."""
    h.assert_server_ok()
    assert h.query(_root, f"SELECT * FROM {SECRET}.t ORDER BY id") == ((1, "alpha"), (2, "beta"))
    assert h.query(_root, f"SELECT * FROM {SECRET}.payroll") == ((1, 100000),)


def expect_denied(conn, sql, errno):
    e = h.expect_sql_error(conn, sql, [errno])
    # The message names the account and what the statement named, never
    # other contents of the database.
    assert "payroll" not in str(e) or "payroll" in sql, (sql, e)
    return e


# ---------------------------------------------------------------- finding 8

def test_issue14_show_tables_of_a_database_without_privilege_is_1044():
    c = as_user(NONE_USER)
    try:
        e = expect_denied(c, f"SHOW TABLES FROM {SECRET}", 1044)
        assert f"to database '{SECRET}'" in str(e) and NONE_USER[0] in str(e), e
        expect_denied(c, f"SHOW FULL TABLES FROM {SECRET}", 1044)
        expect_denied(c, f"SHOW TABLES FROM {SECRET} LIKE 'pay%'", 1044)
        expect_denied(c, f"SHOW TABLE STATUS FROM {SECRET}", 1044)
        expect_denied(c, f"SHOW CREATE DATABASE {SECRET}", 1044)
        expect_denied(c, f"USE {SECRET}", 1044)
        # A database that does not exist answers the same: nothing to learn.
        expect_denied(c, "SHOW TABLES FROM hp_no_such_db", 1044)
        expect_denied(c, "SHOW CREATE DATABASE hp_no_such_db", 1044)
        # Own session still fine.
        assert h.scalar(c, "SELECT 1") == 1
    finally:
        h.close_quietly(c)
    secret_intact()


def test_issue14_show_on_a_table_without_privilege_is_1142():
    c = as_user(NONE_USER)
    try:
        for sql in (f"SHOW COLUMNS FROM {SECRET}.t", f"SHOW FULL COLUMNS FROM t FROM {SECRET}",
                    f"DESCRIBE {SECRET}.t", f"DESC {SECRET}.payroll", f"SHOW CREATE TABLE {SECRET}.t",
                    f"SHOW INDEX FROM {SECRET}.t", f"SHOW KEYS FROM t IN {SECRET}",
                    f"SHOW COLUMNS FROM {SECRET}.no_such_table", f"SHOW CREATE TABLE {SECRET}.no_such_table",
                    f"SELECT * FROM {SECRET}.t"):
            e = expect_denied(c, sql, 1142)
            assert "command denied to user" in str(e), (sql, e)
    finally:
        h.close_quietly(c)
    secret_intact()


def test_issue14_show_databases_hides_what_the_account_cannot_see():
    c = as_user(NONE_USER)
    try:
        dbs = {r[0] for r in h.query(c, "SHOW DATABASES")}
        assert SECRET not in dbs and OPEN not in dbs and "mysql" not in dbs, dbs
        assert "information_schema" in dbs, dbs
        assert h.query(c, f"SHOW DATABASES LIKE '{SECRET}'") == ()
    finally:
        h.close_quietly(c)


def test_issue14_information_schema_hides_what_the_account_cannot_see():
    c = as_user(NONE_USER)
    try:
        for table, column in (("SCHEMATA", "SCHEMA_NAME"), ("TABLES", "TABLE_SCHEMA"), ("COLUMNS", "TABLE_SCHEMA"),
                              ("STATISTICS", "TABLE_SCHEMA"), ("KEY_COLUMN_USAGE", "TABLE_SCHEMA")):
            rows = h.query(c, f"SELECT {column} FROM information_schema.{table} WHERE {column} IN ('{SECRET}', "
                              f"'{OPEN}', 'mysql')")
            assert rows == (), (table, rows)
            total = h.query(c, f"SELECT {column} FROM information_schema.{table}")
            assert all(r[0] == "information_schema" for r in total), (table, total)
        assert h.scalar(c, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = 'payroll'") == 0
    finally:
        h.close_quietly(c)


def test_issue14_a_database_grant_shows_just_that_database():
    c = as_user(OPEN_USER)
    try:
        dbs = {r[0] for r in h.query(c, "SHOW DATABASES")}
        assert OPEN in dbs and SECRET not in dbs, dbs
        assert h.query(c, f"SHOW TABLES FROM {OPEN}") == (("pub",),)
        assert h.query(c, f"SHOW COLUMNS FROM {OPEN}.pub")[0][0] == "id"
        assert "CREATE TABLE `pub`" in h.query(c, f"SHOW CREATE TABLE {OPEN}.pub")[0][1]
        assert h.query(c, f"SHOW INDEX FROM {OPEN}.pub")[0][2] == "PRIMARY"
        assert "CREATE DATABASE" in h.query(c, f"SHOW CREATE DATABASE {OPEN}")[0][1]
        schemas = {r[0] for r in h.query(c, "SELECT DISTINCT TABLE_SCHEMA FROM information_schema.TABLES")}
        assert schemas == {OPEN}, schemas
        schemas = {r[0] for r in h.query(c, "SELECT DISTINCT TABLE_SCHEMA FROM information_schema.COLUMNS")}
        assert schemas == {OPEN}, schemas
        expect_denied(c, f"SHOW TABLES FROM {SECRET}", 1044)
        expect_denied(c, f"SHOW CREATE TABLE {SECRET}.t", 1142)
        # Table-level grants are refused outright (sluice grants at *.* and
        # db.* only): never widened to the database behind the caller's back.
        h.expect_sql_error(_root, f"GRANT SELECT ON {SECRET}.t TO '{OPEN_USER[0]}'@'%'", [1235])
        expect_denied(c, f"SHOW TABLES FROM {SECRET}", 1044)
    finally:
        h.close_quietly(c)


def test_issue14_show_grants_for_another_account_needs_select_on_mysql():
    c = as_user(NONE_USER)
    try:
        assert "GRANT USAGE" in h.query(c, "SHOW GRANTS")[0][0]
        expect_denied(c, "SHOW GRANTS FOR 'root'@'localhost'", 1044)
        expect_denied(c, f"SHOW CREATE USER '{OPEN_USER[0]}'@'%'", 1044)
    finally:
        h.close_quietly(c)
    c = as_user(MYSQL_USER)
    try:
        assert any("ALL PRIVILEGES" in r[0] or "SELECT" in r[0]
                   for r in h.query(c, "SHOW GRANTS FOR 'root'@'localhost'"))
    finally:
        h.close_quietly(c)


def test_issue14_show_processlist_shows_only_own_threads_without_process():
    c = as_user(NONE_USER)
    try:
        users = {r[1] for r in h.query(c, "SHOW PROCESSLIST")}
        assert users == {NONE_USER[0]}, users
        users = {r[1] for r in h.query(c, "SHOW FULL PROCESSLIST")}
        assert users == {NONE_USER[0]}, users
    finally:
        h.close_quietly(c)


# ---------------------------------------------------------------- finding 9

def test_issue14_mysql_schema_is_there():
    assert h.query(_root, "SHOW TABLES FROM mysql") == (("general_log",), ("slow_log",))
    assert h.query(_root, "SHOW FULL TABLES FROM mysql LIKE 'general%'") == (("general_log", "BASE TABLE"),)
    assert "CREATE DATABASE `mysql`" in h.query(_root, "SHOW CREATE DATABASE mysql")[0][1]
    for t in ("general_log", "slow_log", "tables_priv"):
        assert h.query(_root, f"SELECT * FROM mysql.{t}") == (), t
    create = h.query(_root, "SHOW CREATE TABLE mysql.general_log")[0][1]
    assert create.startswith("CREATE TABLE `general_log`") and "ENGINE=CSV" in create, create
    status = h.query(_root, "SHOW TABLE STATUS FROM mysql")
    assert [(r[0], r[1]) for r in status] == [("general_log", "CSV"), ("slow_log", "CSV")], status
    rows = h.query(_root, "SELECT TABLE_NAME, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'mysql' "
                          "ORDER BY TABLE_NAME")
    assert rows == (("general_log", "CSV"), ("slow_log", "CSV")), rows
    c = h.root(database="mysql")
    try:
        assert h.scalar(c, "SELECT DATABASE()") == "mysql"
    finally:
        h.close_quietly(c)
    # The other built-in schemas answer too (empty).
    for db in ("sys", "performance_schema"):
        assert h.query(_root, f"SHOW TABLES FROM {db}") == (), db


def test_issue14_mysql_user_shows_the_accounts():
    rows = h.query(_root, "SELECT User, Host, Select_priv, Grant_priv, Super_priv, plugin, account_locked, "
                          "password_expired FROM mysql.user ORDER BY User, Host")
    users = {r[0]: r for r in rows}
    assert "root" in users and NONE_USER[0] in users and OPEN_USER[0] in users, rows
    assert users["root"][2:5] == ("Y", "Y", "Y"), users["root"]
    assert users[NONE_USER[0]][1:] == ("%", "N", "N", "N", "mysql_native_password", "N", "N"), users[NONE_USER[0]]
    # The stored hash (what MySQL shows there), never the password.
    auth = h.scalar(_root, f"SELECT authentication_string FROM mysql.user WHERE User = '{NONE_USER[0]}'")
    expected = "*" + hashlib.sha1(hashlib.sha1(NONE_USER[1].encode()).digest()).hexdigest().upper()
    assert auth == expected, auth
    db = h.query(_root, f"SELECT Host, Db, User, Select_priv, Insert_priv FROM mysql.db WHERE User = '{OPEN_USER[0]}'")
    assert db == (("%", OPEN, OPEN_USER[0], "Y", "N"),), db
    cols = [r[0] for r in h.query(_root, "SHOW COLUMNS FROM mysql.user")]
    for name in ("Host", "User", "Select_priv", "plugin", "authentication_string", "account_locked"):
        assert name in cols, cols
    assert h.query(_root, "SHOW CREATE TABLE mysql.user")[0][1].startswith("CREATE TABLE `user`")
    # A change through CREATE USER / GRANT shows at once.
    h.query(_root, "CREATE USER 'hp_later'@'localhost' ACCOUNT LOCK")
    try:
        assert h.query(_root, "SELECT Host, account_locked FROM mysql.user WHERE User = 'hp_later'") == \
            (("localhost", "Y"),)
    finally:
        h.query(_root, "DROP USER 'hp_later'@'localhost'")
    assert h.query(_root, "SELECT * FROM mysql.user WHERE User = 'hp_later'") == ()


def test_issue14_mysql_tables_need_select_on_mysql():
    c = as_user(NONE_USER)
    try:
        for t in ("user", "db", "tables_priv", "general_log", "no_such_table"):
            expect_denied(c, f"SELECT * FROM mysql.{t}", 1142)
        expect_denied(c, "SHOW TABLES FROM mysql", 1044)
        expect_denied(c, "SHOW COLUMNS FROM mysql.user", 1142)
        expect_denied(c, "SHOW CREATE TABLE mysql.user", 1142)
    finally:
        h.close_quietly(c)
    c = as_user(MYSQL_USER)
    try:
        assert h.scalar(c, f"SELECT COUNT(*) FROM mysql.user WHERE User = '{NONE_USER[0]}'") == 1
        assert h.query(c, "SHOW TABLES FROM mysql") == (("general_log",), ("slow_log",))
        h.expect_sql_error(c, "INSERT INTO mysql.user (Host, User) VALUES ('%', 'evil')", [1142])
    finally:
        h.close_quietly(c)


def test_issue14_writes_to_system_schemas_are_refused():
    c = h.root()
    try:
        refused = [
            ("INSERT INTO mysql.user (Host, User) VALUES ('%', 'evil')", 1036),
            ("REPLACE INTO mysql.user (Host, User) VALUES ('%', 'evil')", 1036),
            ("UPDATE mysql.user SET Super_priv = 'Y' WHERE User = 'hp_none'", 1036),
            ("DELETE FROM mysql.user", 1036),
            ("DELETE FROM mysql.db", 1036),
            ("INSERT INTO mysql.general_log (argument) VALUES ('x')", 1036),
            ("TRUNCATE TABLE mysql.general_log", 1036),
            ("DROP TABLE mysql.user", 1036),
            ("DROP TABLE IF EXISTS mysql.slow_log", 1036),
            ("ALTER TABLE mysql.user ADD COLUMN evil INT", 1036),
            ("CREATE INDEX evil ON mysql.user (plugin)", 1036),
            ("RENAME TABLE mysql.user TO mysql.user2", 1036),
            ("CREATE TABLE mysql.user (a INT)", 1050),
            ("CREATE TABLE mysql.evil (a INT)", 1044),
            (f"RENAME TABLE {OPEN}.pub TO mysql.pub", 1044),
            (f"ALTER TABLE {OPEN}.pub RENAME TO mysql.pub", 1044),
            ("CREATE TABLE information_schema.evil (a INT)", 1044),
            ("INSERT INTO information_schema.TABLES (TABLE_NAME) VALUES ('x')", 1044),
            ("DELETE FROM information_schema.SCHEMATA", 1044),
            ("CREATE TABLE sys.evil (a INT)", 1044),
            ("CREATE TABLE performance_schema.evil (a INT)", 1044),
            ("CREATE DATABASE mysql", 1007),
            ("CREATE DATABASE MySQL", 1007),
            ("CREATE DATABASE information_schema", 1044),
            ("DROP DATABASE mysql", 1044),
            ("DROP DATABASE IF EXISTS sys", 1044),
            ("DROP DATABASE information_schema", 1044),
            ("LOCK TABLES mysql.user WRITE", 1036),
            ("LOCK TABLES mysql.no_such_table READ", 1146),
            ("LOCK TABLES information_schema.TABLES READ", 1044),
        ]
        for sql, errno in refused:
            h.expect_sql_error(c, sql, [errno])
        # A READ lock on a computed table holds nothing; reads go on.
        h.query(c, f"LOCK TABLES mysql.user READ, {OPEN}.pub READ")
        assert h.scalar(c, "SELECT COUNT(*) FROM mysql.user WHERE User = 'root'") >= 1
        h.expect_sql_error(c, "INSERT INTO mysql.db (Host, Db, User) VALUES ('%', 'x', 'y')", [1036])
        h.query(c, "UNLOCK TABLES")
        # EXPLAIN reads them whole.
        assert h.query(c, "EXPLAIN SELECT * FROM mysql.user")[0][4] == "ALL"
        h.expect_sql_error(c, "EXPLAIN SELECT * FROM mysql.no_such_table", [1146])
        # What dumps say about the schema: notes, no change.
        h.query(c, "CREATE DATABASE IF NOT EXISTS mysql")
        assert h.query(c, "SHOW WARNINGS")[0][1] == 1007
        h.query(c, "CREATE TABLE IF NOT EXISTS mysql.general_log (a INT) ENGINE=CSV")
        assert h.query(c, "SHOW WARNINGS")[0][1] == 1050
    finally:
        h.close_quietly(c)
    # Nothing changed: the accounts, the log tables, the moved table.
    assert h.scalar(_root, "SELECT COUNT(*) FROM mysql.user WHERE User = 'evil'") == 0
    assert h.scalar(_root, f"SELECT Super_priv FROM mysql.user WHERE User = '{NONE_USER[0]}'") == "N"
    assert h.query(_root, "SHOW TABLES FROM mysql") == (("general_log",), ("slow_log",))
    assert h.query(_root, f"SELECT * FROM {OPEN}.pub") == ((1, "one"),)
    assert "mysql" in {r[0] for r in h.query(_root, "SHOW DATABASES")}
    # Accounts still change through the statements meant for it.
    h.query(_root, "CREATE USER 'hp_after'@'%'")
    h.query(_root, f"GRANT SELECT ON {OPEN}.* TO 'hp_after'@'%'")
    try:
        assert h.query(_root, "SELECT Db, Select_priv FROM mysql.db WHERE User = 'hp_after'") == ((OPEN, "Y"),)
    finally:
        h.query(_root, "DROP USER 'hp_after'@'%'")
    secret_intact()


# ---------------------------------------------------------------- the dump

def dump_contents(conn, db):
    tables = [r[0] for r in h.query(conn, f"SHOW TABLES FROM {db}")]
    return {t: h.query(conn, f"SELECT * FROM {db}.{t} ORDER BY 1") for t in tables}


def make_dump_databases():
    for db in DUMP_DBS:
        h.query(_root, f"DROP DATABASE IF EXISTS {db}")
        h.query(_root, f"CREATE DATABASE {db}")
    a, b = DUMP_DBS
    h.query(_root, f"CREATE TABLE {a}.t1 (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(30), note TEXT)")
    h.query(_root, f"CREATE TABLE {a}.t2 (k VARCHAR(10) PRIMARY KEY, v DECIMAL(8,2), d DATETIME)")
    h.query(_root, f"CREATE TABLE {b}.t3 (x INT, y VARCHAR(5))")
    h.query(_root, f"INSERT INTO {a}.t1 (name, note) VALUES ('a', 'it''s'), ('b', NULL), ('c', 'x\\ny')")
    h.query(_root, f"INSERT INTO {a}.t2 VALUES ('k1', 1.50, '2024-01-02 03:04:05'), ('k2', NULL, NULL)")
    h.query(_root, f"INSERT INTO {b}.t3 VALUES (1, 'p'), (1, 'p'), (NULL, NULL)")


def dump_all_and_restore(*options):
    make_dump_databases()
    rc, out, err = h.run_cmd(["mariadb-dump", "--no-defaults", f"-h{h.HOST}", f"-P{h.PORT}", "-uroot",
                              "--skip-ssl", *options, "--all-databases"], timeout=120)
    assert rc == 0, f"mariadb-dump --all-databases {' '.join(options)} failed ({rc}): {err}"
    assert "CREATE TABLE IF NOT EXISTS `general_log`" in out, out[:3000]
    assert "INSERT INTO `user`" not in out and "CREATE TABLE `user`" not in out
    fresh = _servers.start("hostile-privs-restore")
    rc, _, err = h.run_cmd([h.MARIADB, "--no-defaults", f"-h{h.HOST}", f"-P{fresh.port}", "-uroot",
                            "--skip-ssl"], input=out, timeout=180)
    assert rc == 0, f"loading the dump into a fresh sluiced failed ({rc}): {err}"
    copy = h.root(port=fresh.port)
    try:
        for db in (SECRET, OPEN) + DUMP_DBS:
            want, got = dump_contents(_root, db), dump_contents(copy, db)
            assert want == got, (db, want, got)
            assert want, db
        create = h.query(copy, f"SHOW CREATE TABLE {DUMP_DBS[0]}.t1")[0][1]
        assert create == h.query(_root, f"SHOW CREATE TABLE {DUMP_DBS[0]}.t1")[0][1], create
        assert h.query(copy, "SHOW TABLES FROM mysql") == (("general_log",), ("slow_log",))
    finally:
        h.close_quietly(copy)
        fresh.terminate()
    h.assert_server_ok()


def test_issue14_dump_all_databases_with_lock_tables_restores():
    dump_all_and_restore()


def test_issue14_dump_all_databases_single_transaction_restores():
    dump_all_and_restore("--single-transaction")


if __name__ == "__main__":
    h.main(globals())
