"""Start-up options and limits that need a private sluiced: max_connections
(with the extra slot kept for CONNECTION_ADMIN / SUPER, as mysqld keeps it),
an unknown option, and an option file."""

import os

import harness as h

_servers = []


def start(name, extra=()):
    srv = h.Server(h.temp_dir(name), extra=extra)
    _servers.append(srv)
    return srv.start()


def teardown_module():
    for srv in _servers:
        srv.kill()


def _full_server(name):
    """A server with max_connections=2 and both slots taken: an
    administrator's session and an ordinary account's ('plain', 'pw')."""
    srv = start(name, extra=["--max-connections=2"])
    admin = h.root(port=srv.port)
    h.query(admin, "CREATE USER 'plain'@'%' IDENTIFIED WITH mysql_native_password BY 'pw'")
    return srv, [admin, h.connect("plain", "pw", port=srv.port)]


def test_max_connections_keeps_one_slot_for_an_administrator():
    srv, held = _full_server("maxconn")
    try:
        # Two sessions are open: a third ordinary one is refused ...
        h.expect_error(1040, h.connect, "plain", "pw", port=srv.port,
                       what="third connection with max_connections=2")
        # ... but an account with CONNECTION_ADMIN gets the extra slot,
        extra = h.root(port=srv.port)
        held.append(extra)
        assert h.scalar(extra, "SELECT 1") == 1
        # and there is only one extra slot.
        h.expect_error(1040, h.root, port=srv.port, what="max_connections + 2")
    finally:
        for c in held:
            h.close_quietly(c)
    # Slots are given back when sessions close.
    c = h.bounded_poll(lambda: _try_connect(srv.port), what="a slot after closing")
    c.close()


def test_a_refused_connection_frees_its_slot_before_the_client_reads_the_refusal():
    # The refused session gives its slot back before it writes 1040: a client
    # that reconnects at once is not refused for the slot the refused
    # connection still held (the administrator's extra slot here). It was a
    # race: the slot went back only when the session's teardown ran.
    srv, held = _full_server("maxconn_race")
    admin = held[0]
    try:
        for i in range(100):
            h.expect_error(1040, h.connect, "plain", "pw", port=srv.port, what=f"refusal {i}")
            extra = h.root(port=srv.port)
            extra.close()
            # The closed session's own end is not what this test races.
            h.bounded_poll(lambda: _threads_connected(admin) == 2, interval=0.01, rounds=1000,
                           what="the extra session ended")
    finally:
        for c in held:
            h.close_quietly(c)


def _threads_connected(conn):
    return int(h.query(conn, "SHOW GLOBAL STATUS LIKE 'Threads_connected'")[0][1])


def _try_connect(port):
    try:
        return h.connect("plain", "pw", port=port)
    except Exception:
        return None


def test_an_error_log_inside_a_new_datadir_does_not_stop_its_initialization():
    # The log opens first, so the directory holds a file before the server
    # looks: it is still a new datadir (root@localhost, no password), not one
    # with no accounts that nobody can log in to.
    d = h.temp_dir("logindatadir")
    os.makedirs(d)
    srv = h.Server(d)  # its stdout file stays beside the datadir
    log = os.path.join(d, "host.err")
    srv.argv = lambda: [h.SLUICED, f"--datadir={d}", f"--port={srv.port}", f"--bind-address={h.HOST}",
                        f"--log-error={log}"]
    _servers.append(srv)
    srv.start()
    c = h.root(port=srv.port)
    try:
        assert h.scalar(c, "SELECT CURRENT_USER()") == "root@localhost"
    finally:
        c.close()


def test_unknown_option_is_a_clear_startup_error():
    d = h.temp_dir("badopt")
    rc, stdout, stderr = h.run_cmd([h.SLUICED, f"--datadir={d}", "--port=1", "--no-such-option=5"],
                                   timeout=30)
    assert rc != 0
    text = stdout + stderr
    assert "unknown variable 'no-such-option=5'" in text or "unknown variable 'no-such-option" in text, text


def test_option_file_groups():
    d = h.temp_dir("cnf")
    port = h.free_port()
    cnf = os.path.join(os.path.dirname(d.rstrip("/")), "sluice-test.cnf")
    with open(cnf, "w") as f:
        f.write(f"[client]\nport=1\n[mysqld]\nport={port}\nserver_id=77\n"
                f"[sluiced]\nmax-connections=33\n")
    srv = h.Server(d, port=port, extra=[])
    srv.argv = lambda: [h.SLUICED, f"--defaults-file={cnf}", f"--datadir={d}",
                        f"--bind-address={h.HOST}", f"--log-error={srv.log_error}"]
    _servers.append(srv)
    srv.start()
    c = h.root(port=port)
    try:
        assert h.query(c, "SELECT @@server_id, @@max_connections, @@port") == ((77, 33, port),)
    finally:
        c.close()


def test_tls_material_from_options():
    # Certificates made by another server's first start, handed over with
    # --ssl-cert/--ssl-key/--ssl-ca: clients verify against that CA.
    first = start("tls-src")
    first.kill()
    certs = first.datadir
    srv = start("tls-opts", extra=[f"--ssl-cert={certs}/server-cert.pem",
                                   f"--ssl-key={certs}/server-key.pem",
                                   f"--ssl-ca={certs}/ca.pem"])
    c = h.root(port=srv.port, tls=True, datadir=certs)
    try:
        assert h.query(c, "SELECT @@ssl_cert, @@ssl_ca") == ((f"{certs}/server-cert.pem", f"{certs}/ca.pem"),)
        version = h.query(c, "SHOW SESSION STATUS LIKE 'Ssl_version'")[0][1]
        assert version.startswith("TLSv1."), version
    finally:
        c.close()


def test_missing_certificate_file_is_a_startup_error():
    d = h.temp_dir("badcert")
    rc, stdout, stderr = h.run_cmd([h.SLUICED, f"--datadir={d}", f"--port={h.free_port()}",
                                    "--ssl-cert=/nonexistent/cert.pem", "--ssl-key=/nonexistent/key.pem"],
                                   timeout=30)
    assert rc != 0
    assert "ssl-cert" in stdout + stderr, stdout + stderr


def test_client_that_stops_reading_is_dropped_after_net_write_timeout():
    # A client asks for a 60 MB result and never reads it: the server's
    # write blocks once the socket buffers fill, and net_write_timeout ends
    # the session instead of holding it (and the buffered result) forever.
    srv = start("stalled-reader")
    c = h.raw_login("root", port=srv.port)
    c.query("SET SESSION net_write_timeout = 2")
    cid = int(c.query("SELECT CONNECTION_ID()")[0][0])
    c.send_packet(bytes([0x03]) + b"SELECT REPEAT('a', 60000000)", seq=0)
    admin = h.root(port=srv.port)
    try:
        def gone():
            ids = [int(r[0]) for r in h.query(admin, "SHOW PROCESSLIST")]
            return cid not in ids
        h.bounded_poll(gone, rounds=300, interval=0.1, what="stalled session dropped")
        assert h.scalar(admin, "SELECT 1") == 1
    finally:
        admin.close()
        c.sock.close()


if __name__ == "__main__":
    h.main(globals())
