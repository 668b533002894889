"""Connecting with real clients: mariadb CLI, PyMySQL, mysql-connector-python
(C extension and pure Python), both authentication plugins, with and
without TLS, the caching_sha2_password fast-auth cache, wrong passwords,
identity functions and result types."""

import os
from decimal import Decimal

import mysql.connector
import pymysql

import harness as h

NATIVE = ("n", "pw1")   # mysql_native_password
SHA2 = ("c", "pw2")     # caching_sha2_password
CA = os.path.join(h.DATADIR, "ca.pem")

MYSQL_TYPE_NULL = 6
MYSQL_TYPE_LONGLONG = 8
MYSQL_TYPE_NEWDECIMAL = 246
MYSQL_TYPE_VAR_STRING = 253

_root = None


def setup_module():
    global _root
    _root = h.root()
    for u in ("n", "c"):
        h.query(_root, f"DROP USER IF EXISTS '{u}'@'%'")
    h.query(_root, "CREATE USER 'n'@'%' IDENTIFIED WITH mysql_native_password BY 'pw1'")
    h.query(_root, "CREATE USER 'c'@'%' IDENTIFIED WITH caching_sha2_password BY 'pw2'")


def teardown_module():
    h.close_quietly(_root)


def flush_sha2_cache():
    """FLUSH PRIVILEGES empties the caching_sha2_password cache (MySQL)."""
    h.query(_root, "FLUSH PRIVILEGES")


def ssl_version(conn):
    rows = h.query(conn, "SHOW SESSION STATUS LIKE 'Ssl_version'")
    assert len(rows) == 1 and rows[0][0] == "Ssl_version", rows
    return rows[0][1]


def current_user(conn):
    return h.scalar(conn, "SELECT CURRENT_USER()")


def cconnect(user, password, tls, pure, **kw):
    """mysql-connector-python; tls=True verifies the CA (not the host name)."""
    args = dict(host=h.HOST, port=h.PORT, user=user, password=password,
                connection_timeout=h.TIMEOUT, use_pure=pure, autocommit=True)
    if tls:
        args.update(ssl_ca=CA, ssl_verify_cert=True, ssl_verify_identity=False)
    else:
        args["ssl_disabled"] = True
    args.update(kw)
    return mysql.connector.connect(**args)


def cquery(conn, sql):
    cur = conn.cursor()
    try:
        cur.execute(sql)
        return cur.fetchall() if cur.with_rows else []
    finally:
        cur.close()


def cssl_version(conn):
    rows = cquery(conn, "SHOW SESSION STATUS LIKE 'Ssl_version'")
    assert len(rows) == 1, rows
    v = rows[0][1]
    return v.decode() if isinstance(v, (bytes, bytearray)) else v


IMPLS = (("cext", False), ("pure", True))


# ---------------------------------------------------------------- mariadb CLI

def test_datadir_has_tls_material():
    for f in ("ca.pem", "server-cert.pem", "server-key.pem", "public_key.pem", "private_key.pem"):
        assert os.path.exists(os.path.join(h.DATADIR, f)), f"{f} missing from datadir {h.DATADIR}"


def test_mariadb_cli_version():
    rc, out, err = h.mariadb_cli("SELECT @@version, @@server_id")
    assert rc == 0, f"mariadb exited {rc}: {err}"
    lines = out.strip().splitlines()
    assert lines[0].split("\t") == ["@@version", "@@server_id"], lines
    version, server_id = lines[1].split("\t")
    assert version.endswith("-sluice"), version
    assert "MariaDB" not in version, version
    assert version.startswith("8.0."), version
    assert int(server_id) >= 0


def test_mariadb_cli_tls():
    rc, out, err = h.mariadb_cli("SHOW SESSION STATUS LIKE 'Ssl_version'",
                                 extra=["--ssl", f"--ssl-ca={CA}"])
    assert rc == 0, f"mariadb exited {rc}: {err}"
    lines = out.strip().splitlines()
    name, value = lines[1].split("\t")
    assert name == "Ssl_version" and value.startswith("TLS"), lines


def test_mariadb_cli_users():
    rc, out, err = h.mariadb_cli("SELECT CURRENT_USER()", user="n", password="pw1",
                                 extra=["--skip-ssl"])
    assert rc == 0, f"native user via mariadb: exit {rc}: {err}"
    assert out.strip().splitlines()[1] == "n@%", out
    rc, out, err = h.mariadb_cli("SELECT CURRENT_USER()", user="c", password="pw2",
                                 extra=["--ssl", f"--ssl-ca={CA}"])
    assert rc == 0, f"caching_sha2 user via mariadb over TLS: exit {rc}: {err}"
    assert out.strip().splitlines()[1] == "c@%", out
    rc, out, err = h.mariadb_cli("SELECT 1", user="n", password="wrong", extra=["--skip-ssl"])
    assert rc != 0 and "1045" in err, f"wrong password via mariadb: rc {rc}, {err!r}"


# ---------------------------------------------------------------- PyMySQL

def test_pymysql_native_plain():
    c = h.connect(*NATIVE)
    try:
        assert current_user(c) == "n@%"
        assert ssl_version(c) == "", "Ssl_version must be empty without TLS"
    finally:
        c.close()


def test_pymysql_native_tls_verified_ca():
    c = h.connect(*NATIVE, tls=True)
    try:
        assert current_user(c) == "n@%"
        assert ssl_version(c).startswith("TLS"), ssl_version(c)
    finally:
        c.close()


def test_pymysql_native_tls_unverified():
    c = h.connect(*NATIVE, tls={"check_hostname": False})
    try:
        assert ssl_version(c) != ""
    finally:
        c.close()


def test_pymysql_sha2_plain_rsa_then_fast_auth():
    flush_sha2_cache()
    c = h.connect(*SHA2)
    try:
        # Cold cache over plain TCP: the full authentication must have gone
        # through the RSA public key exchange.
        assert c.server_public_key, "PyMySQL did not receive the RSA public key"
        assert c.server_public_key.startswith(b"-----BEGIN PUBLIC KEY-----"), c.server_public_key[:40]
        pub = os.path.join(h.DATADIR, "public_key.pem")
        if os.path.exists(pub):
            with open(pub, "rb") as f:
                assert c.server_public_key.strip() == f.read().strip(), "key differs from public_key.pem"
        assert current_user(c) == "c@%"
        assert ssl_version(c) == ""
    finally:
        c.close()
    # Second login: the cache is warm, fast auth (01 03), no key exchange.
    c = h.connect(*SHA2)
    try:
        assert not c.server_public_key, "second login did not use the fast-auth cache"
        assert current_user(c) == "c@%"
    finally:
        c.close()


def test_pymysql_sha2_tls_full_then_fast_auth():
    flush_sha2_cache()
    c = h.connect(*SHA2, tls=True)
    try:
        assert current_user(c) == "c@%"
        assert ssl_version(c).startswith("TLS")
    finally:
        c.close()
    c = h.connect(*SHA2, tls=True)
    try:
        assert current_user(c) == "c@%"
    finally:
        c.close()
    # The TLS full authentication filled the cache: plain TCP now needs no key.
    c = h.connect(*SHA2)
    try:
        assert not c.server_public_key, "TLS login did not fill the fast-auth cache"
    finally:
        c.close()


def test_pymysql_wrong_password():
    for tls in (False, True):
        h.expect_error(1045, h.connect, "n", "bad", None, tls, what=f"native tls={tls}")
        flush_sha2_cache()  # cold cache: full authentication (RSA or cleartext over TLS)
        h.expect_error(1045, h.connect, "c", "bad", None, tls, what=f"sha2 cold tls={tls}")
        h.close_quietly(h.connect(*SHA2, tls=tls))  # warm the cache
        h.expect_error(1045, h.connect, "c", "bad", None, tls, what=f"sha2 warm tls={tls}")
    h.expect_error(1045, h.connect, "c", "", what="sha2 empty password")
    h.expect_error(1045, h.connect, "n", "", what="native empty password")
    h.expect_error(1045, h.connect, "nobody", "x", what="unknown user")


def test_wrong_password_message():
    e = h.expect_error(1045, h.connect, "n", "bad")
    msg = e.args[1]
    assert "Access denied for user 'n'@" in msg and "(using password: YES)" in msg, msg
    e = h.expect_error(1045, h.connect, "n", "")
    assert "(using password: NO)" in e.args[1], e.args[1]


def test_root_has_no_password():
    c = h.root()
    try:
        assert current_user(c).startswith("root@"), current_user(c)
    finally:
        c.close()
    c = h.root(tls=True)
    try:
        assert ssl_version(c).startswith("TLS")
    finally:
        c.close()
    h.expect_error(1045, h.connect, "root", "notthepassword", what="root with a password")


def test_identity_functions():
    c = h.connect(*NATIVE)
    try:
        with c.cursor() as cur:
            cur.execute("SELECT CURRENT_USER(), USER(), CONNECTION_ID(), DATABASE()")
            cu, u, cid, db = cur.fetchone()
        assert cu == "n@%", cu
        assert u in ("n@localhost", "n@127.0.0.1"), u
        assert cid == c.thread_id(), (cid, c.thread_id())
        assert db is None, db
        # SESSION_USER()/SYSTEM_USER() are USER() synonyms
        assert h.scalar(c, "SELECT SESSION_USER()") == u
    finally:
        c.close()


def test_result_types_pymysql():
    c = h.root()
    try:
        with c.cursor() as cur:
            cur.execute("SELECT 1+1, 'a', NULL, 1.5")
            row = cur.fetchone()
            desc = cur.description
        assert row == (2, "a", None, Decimal("1.5")), row
        assert type(row[0]) is int and type(row[1]) is str and isinstance(row[3], Decimal)
        assert [d[0] for d in desc] == ["1+1", "a", "NULL", "1.5"], desc
        assert [d[1] for d in desc] == [MYSQL_TYPE_LONGLONG, MYSQL_TYPE_VAR_STRING,
                                        MYSQL_TYPE_NULL, MYSQL_TYPE_NEWDECIMAL], desc
    finally:
        c.close()


# ---------------------------------------------------------------- mysql-connector-python

def test_connector_native_plain_and_tls():
    for impl, pure in IMPLS:
        for tls in (False, True):
            c = cconnect(*NATIVE, tls=tls, pure=pure)
            try:
                rows = cquery(c, "SELECT CURRENT_USER()")
                assert rows[0][0] == "n@%", (impl, tls, rows)
                v = cssl_version(c)
                if tls:
                    assert v.startswith("TLS"), (impl, v)
                else:
                    assert v == "", (impl, v)
            finally:
                c.close()


def test_connector_sha2_tls_full_then_fast_plain():
    for impl, pure in IMPLS:
        flush_sha2_cache()
        c = cconnect(*SHA2, tls=True, pure=pure)  # full auth: cleartext inside TLS
        try:
            assert cquery(c, "SELECT CURRENT_USER()")[0][0] == "c@%", impl
            assert cssl_version(c).startswith("TLS"), impl
        finally:
            c.close()
        c = cconnect(*SHA2, tls=True, pure=pure)  # fast auth over TLS
        c.close()
        c = cconnect(*SHA2, tls=False, pure=pure)  # fast auth over plain TCP
        try:
            assert cquery(c, "SELECT CURRENT_USER()")[0][0] == "c@%", impl
            assert cssl_version(c) == "", impl
        finally:
            c.close()


def test_connector_sha2_plain_cold_cache():
    """mysql-connector-python cannot do the RSA exchange: the C extension has
    no option to fetch the server key (libmysqlclient refuses with 2061), and
    the pure implementation sends the password in cleartext, which a MySQL
    server refuses on an insecure transport (1045)."""
    for impl, pure, expected in (("cext", False, (2061, 1045)), ("pure", True, (1045,))):
        flush_sha2_cache()
        e = h.expect_error(expected, cconnect, *SHA2, False, pure, what=f"{impl} sha2 plain cold")
        h.note(f"connector {impl}, caching_sha2 over plain TCP with a cold cache: {e.errno} {e.msg}")
    # ...and the refused cleartext attempt did not fill the cache.
    c = h.connect(*SHA2)
    try:
        assert c.server_public_key, "cache was filled by a refused cleartext login"
    finally:
        c.close()


def test_connector_wrong_password():
    for impl, pure in IMPLS:
        for tls in (False, True):
            h.expect_error(1045, cconnect, "n", "bad", tls, pure, what=f"{impl} native tls={tls}")
            h.close_quietly(cconnect(*SHA2, tls=True, pure=pure))  # warm cache
            h.expect_error(1045, cconnect, "c", "bad", tls, pure, what=f"{impl} sha2 warm tls={tls}")
        flush_sha2_cache()
        h.expect_error(1045, cconnect, "c", "bad", True, pure, what=f"{impl} sha2 cold tls")


def test_result_types_connector():
    for impl, pure in IMPLS:
        c = cconnect("root", "", tls=False, pure=pure)
        try:
            cur = c.cursor()
            cur.execute("SELECT 1+1, 'a', NULL, 1.5")
            row = cur.fetchone()
            cur.close()
            assert row == (2, "a", None, Decimal("1.5")), (impl, row)
        finally:
            c.close()


def test_connector_identity():
    for impl, pure in IMPLS:
        c = cconnect(*NATIVE, tls=False, pure=pure)
        try:
            rows = cquery(c, "SELECT CURRENT_USER(), USER(), CONNECTION_ID(), DATABASE()")
            cu, u, cid, db = rows[0]
            assert cu == "n@%" and u.startswith("n@") and db is None, (impl, rows)
            assert cid == c.connection_id, (impl, cid, c.connection_id)
        finally:
            c.close()


def test_server_still_fine():
    h.assert_server_ok()


if __name__ == "__main__":
    h.main(globals())
