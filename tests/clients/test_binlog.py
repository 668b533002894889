"""The binary log, checked with real clients: Debian's mariadb-binlog
decodes what sluiced writes (every column type, row images, checksums),
the SQL statements that manage the files, restarts, large transactions and
group commit. Each test runs its own sluiced (they change global state)."""

import os
import re
import shutil

import column_types
import harness as h

MARIADB_BINLOG = shutil.which("mariadb-binlog") or shutil.which("mysqlbinlog")
REPO = h.REPO
# Beside the sluiced under test (build/, build-asan/, ...).
SLUICE_BINLOG = os.environ.get("SLUICE_BINLOG", os.path.join(os.path.dirname(h.SLUICED), "sluice-binlog"))

_servers = h.PrivateServers()
start = _servers.start


def teardown_module():
    _servers.kill_all()


def binlog_files(srv):
    out = []
    with open(os.path.join(srv.datadir, "binlog.index")) as f:
        for line in f:
            if line.strip():
                out.append(os.path.join(srv.datadir, os.path.basename(line.strip())))
    return out


def decode(files, *extra):
    rc, out, err = h.run_cmd([MARIADB_BINLOG, "--no-defaults", "-v", "--base64-output=decode-rows",
                              *extra, *files], timeout=120)
    assert rc == 0, f"mariadb-binlog failed ({rc}): {err[-2000:]}"
    assert "ERROR" not in out and "Found invalid event" not in out, out[-2000:]
    return out


def row_blocks(text, table):
    """[(kind, [(before...)], [(after...)])] from mariadb-binlog -v output."""
    blocks = []
    cur = None
    section = None
    for line in text.splitlines():
        m = re.match(r"^### (INSERT INTO|UPDATE|DELETE FROM) (\S+)$", line)
        if m:
            if m.group(2) != table:
                cur = None
                continue
            cur = {"kind": m.group(1).split()[0], "where": [], "set": []}
            blocks.append(cur)
            section = None
            continue
        if cur is None:
            continue
        if line == "### WHERE":
            section = "where"
        elif line == "### SET":
            section = "set"
        else:
            m = re.match(r"^###   @(\d+)=(.*)$", line)
            if m and section:
                cur[section].append((int(m.group(1)), m.group(2)))
            elif not line.startswith("###"):
                cur = None
    return blocks


ALL_TYPES = column_types.all_types_table("bl")
ROW = column_types.ROW

# What mariadb-binlog prints for ROW (@n=...). Its own forms: a negative
# integer also as unsigned in parentheses (it does not read the SIGNEDNESS
# metadata), DATE as 'YYYY:MM:DD', TIMESTAMP as epoch seconds, FLOAT
# padded with spaces (stripped below).
EXPECTED = {
    1: "1", 2: "-128 (128)", 3: "-32768 (32768)", 4: "-8388608 (8388608)", 5: "-2147483648 (2147483648)",
    6: "-9223372036854775808 (9223372036854775808)",
    7: "-1 (255)", 8: "-1 (18446744073709551615)", 9: "-1234.56", 10: "12345678901234567890.0123456789",
    11: "1.5", 12: "-2.25", 13: "'ab'", 14: "'" + "x" * 300 + "'", 15: "'b'", 16: "'vb'",
    17: "'tiny'", 18: "'text'", 19: "'medium'", 20: "'long'", 21: "'tb'", 22: "'blob'", 23: "'mb'",
    24: "'lb'", 25: "'2024:02:29'", 26: "'-838:59:59'", 27: "'12:34:56.789'", 28: "'2024-01-02 03:04:05'",
    29: "'2024-01-02 03:04:05.123456'", 31: "2024", 32: "3", 33: "NULL",
}


def test_every_column_type_decodes():
    assert MARIADB_BINLOG, "mariadb-binlog is not installed"
    srv = start("binlog-types")
    c = h.root(port=srv.port)
    h.query(c, "SET time_zone = '+00:00'")
    h.query(c, "CREATE DATABASE bl")
    h.query(c, ALL_TYPES)
    h.query(c, "INSERT INTO bl.types VALUES " + ROW)
    h.query(c, "UPDATE bl.types SET vc = 'short', nn = 7 WHERE id = 1")
    h.query(c, "DELETE FROM bl.types WHERE id = 1")
    h.query(c, "FLUSH BINARY LOGS")
    text = decode(binlog_files(srv))
    blocks = row_blocks(text, "`bl`.`types`")
    assert [b["kind"] for b in blocks] == ["INSERT", "UPDATE", "DELETE"], blocks
    ins = {k: v.rstrip() for k, v in blocks[0]["set"]}
    for col, want in EXPECTED.items():
        assert ins.get(col) == want, f"@{col}: {ins.get(col)!r}, expected {want!r}"
    assert ins[30].startswith("1704067200"), ins[30]  # TIMESTAMP(2) as epoch seconds (.25)
    assert {k: v.rstrip() for k, v in blocks[1]["where"]} == ins
    after = dict(blocks[1]["set"])
    assert after[14] == "'short'" and after[33] == "7"
    assert dict(blocks[2]["where"])[14] == "'short'"
    c.close()


def test_minimal_row_image_and_full_metadata():
    srv = start("binlog-minimal", extra=["--binlog-row-image=MINIMAL", "--binlog-row-metadata=FULL"])
    c = h.root(port=srv.port)
    h.query(c, "CREATE DATABASE bl")
    h.query(c, "CREATE TABLE bl.m (id INT PRIMARY KEY, a INT, b VARCHAR(10))")
    h.query(c, "INSERT INTO bl.m VALUES (1, 10, 'x')")
    h.query(c, "UPDATE bl.m SET a = 11 WHERE id = 1")
    h.query(c, "DELETE FROM bl.m WHERE id = 1")
    blocks = row_blocks(decode(binlog_files(srv)), "`bl`.`m`")
    assert [b["kind"] for b in blocks] == ["INSERT", "UPDATE", "DELETE"]
    assert blocks[0]["set"] == [(1, "1"), (2, "10"), (3, "'x'")]
    assert blocks[1]["where"] == [(1, "1")] and blocks[1]["set"] == [(2, "11")]
    assert blocks[2]["where"] == [(1, "1")]
    # A session may go back to FULL.
    h.query(c, "SET SESSION binlog_row_image = FULL")
    h.query(c, "INSERT INTO bl.m VALUES (2, 20, 'y')")
    h.query(c, "UPDATE bl.m SET a = 21 WHERE id = 2")
    blocks = row_blocks(decode(binlog_files(srv)), "`bl`.`m`")
    assert blocks[-1]["where"] == [(1, "2"), (2, "20"), (3, "'y'")]
    c.close()


def test_files_and_statements():
    srv = start("binlog-files", extra=["--max-binlog-size=4096"])
    c = h.root(port=srv.port)
    h.query(c, "CREATE DATABASE bl")
    h.query(c, "CREATE TABLE bl.f (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(100))")
    for _ in range(60):
        h.query(c, "INSERT INTO bl.f (v) VALUES (REPEAT('v', 100))")
    logs = h.query(c, "SHOW BINARY LOGS")
    assert len(logs) >= 3, logs
    for name, size, enc in logs[:-1]:
        assert size >= 4096 and enc == "No"
    status = h.query(c, "SHOW MASTER STATUS")[0]
    assert status[0] == logs[-1][0] and status[1] == logs[-1][1]
    assert h.query(c, "SHOW BINARY LOG STATUS")[0][:2] == status[:2]
    uuid = h.scalar(c, "SELECT @@server_uuid")
    assert status[4] == f"{uuid}:1-62", status
    assert h.scalar(c, "SELECT @@gtid_executed") == f"{uuid}:1-62"
    events = h.query(c, f"SHOW BINLOG EVENTS IN '{logs[0][0]}'")
    assert events[0][2] == "Format_desc" and events[0][1] == 4 and events[0][4] == 126
    assert events[1][2] == "Previous_gtids" and events[1][4] == 157
    assert events[-1][2] == "Rotate" and events[-1][5] == f"{logs[1][0]};pos=4"
    assert h.query(c, f"SHOW BINLOG EVENTS IN '{logs[0][0]}' FROM 157 LIMIT 1")[0][2] == "Gtid"
    assert len(h.query(c, f"SHOW BINLOG EVENTS IN '{logs[0][0]}' LIMIT 2, 3")) == 3
    h.expect_sql_error(c, "SHOW BINLOG EVENTS IN 'binlog.999999'", (1220,))
    h.expect_sql_error(c, f"SHOW BINLOG EVENTS IN '{logs[0][0]}' FROM 5", (1220,))
    h.query(c, "FLUSH BINARY LOGS")
    assert len(h.query(c, "SHOW BINARY LOGS")) == len(logs) + 1
    h.expect_sql_error(c, "PURGE BINARY LOGS TO 'binlog.999999'", (1373,))
    h.query(c, f"PURGE BINARY LOGS TO '{logs[2][0]}'")
    left = h.query(c, "SHOW BINARY LOGS")
    assert left[0][0] == logs[2][0]
    assert not os.path.exists(os.path.join(srv.datadir, logs[0][0]))
    purged = h.scalar(c, "SELECT @@gtid_purged")
    assert purged.startswith(f"{uuid}:1-"), purged
    # gtid_executed and gtid_purged survive a restart.
    c.close()
    assert srv.terminate() == 0
    srv.start()
    c = h.root(port=srv.port)
    assert h.scalar(c, "SELECT @@gtid_executed") == f"{uuid}:1-62"
    assert h.scalar(c, "SELECT @@gtid_purged") == purged
    h.query(c, "INSERT INTO bl.f (v) VALUES ('after restart')")
    assert h.scalar(c, "SELECT @@gtid_executed") == f"{uuid}:1-63"
    h.query(c, "PURGE BINARY LOGS BEFORE '2000-01-01 00:00:00'")  # nothing that old
    assert h.query(c, "SHOW BINARY LOGS")[0][0] == logs[2][0]
    h.query(c, "PURGE BINARY LOGS BEFORE NOW() + INTERVAL 1 DAY")  # all but the active file
    assert len(h.query(c, "SHOW BINARY LOGS")) == 1
    h.query(c, "RESET MASTER")
    assert h.query(c, "SHOW BINARY LOGS") == ((("binlog.000001", 157, "No")),) or \
        [tuple(r) for r in h.query(c, "SHOW BINARY LOGS")] == [("binlog.000001", 157, "No")]
    assert h.scalar(c, "SELECT @@gtid_executed") == ""
    h.query(c, "RESET BINARY LOGS AND GTIDS TO 1000")
    assert h.query(c, "SHOW BINARY LOGS")[0][0] == "binlog.001000"
    h.query(c, "INSERT INTO bl.f (v) VALUES ('after reset')")
    assert h.scalar(c, "SELECT @@gtid_executed") == f"{uuid}:1"
    c.close()


def test_checksum_none_and_gtid_mode_off():
    srv = start("binlog-nocrc", extra=["--binlog-checksum=NONE", "--gtid-mode=OFF"])
    c = h.root(port=srv.port)
    h.query(c, "CREATE DATABASE bl")
    h.query(c, "CREATE TABLE bl.n (id INT PRIMARY KEY)")
    h.query(c, "INSERT INTO bl.n VALUES (1)")
    assert h.scalar(c, "SELECT @@gtid_executed") == ""
    h.query(c, "SET GLOBAL binlog_checksum = CRC32")  # rotates, as MySQL
    h.query(c, "INSERT INTO bl.n VALUES (2)")
    h.query(c, "SET GLOBAL gtid_mode = ON")
    h.query(c, "INSERT INTO bl.n VALUES (3)")
    files = binlog_files(srv)
    assert len(files) == 2
    text = decode(files, "--verify-binlog-checksum")
    ids = [dict(b["set"])[1] for b in row_blocks(text, "`bl`.`n`")]
    assert ids == ["1", "2", "3"], ids
    events = h.query(c, f"SHOW BINLOG EVENTS IN '{os.path.basename(files[0])}'")
    assert "Anonymous_Gtid" in [e[2] for e in events]
    events = h.query(c, f"SHOW BINLOG EVENTS IN '{os.path.basename(files[1])}'")
    assert [e[2] for e in events].count("Gtid") == 1
    c.close()


def test_large_transaction_spills_and_max_binlog_cache_size():
    srv = start("binlog-cache", extra=["--binlog-cache-size=4096", "--max-binlog-cache-size=1M"])
    c = h.root(port=srv.port)
    h.query(c, "CREATE DATABASE bl")
    h.query(c, "CREATE TABLE bl.big (id INT PRIMARY KEY, v TEXT)")
    h.query(c, "BEGIN")
    for i in range(100):
        h.query(c, "INSERT INTO bl.big VALUES (%s, REPEAT('b', 1000))", (i,))
    h.query(c, "COMMIT")
    status = dict(h.query(c, "SHOW GLOBAL STATUS LIKE 'Binlog_cache%'"))
    assert int(status["Binlog_cache_disk_use"]) >= 1 and int(status["Binlog_cache_use"]) >= 1, status
    blocks = row_blocks(decode(binlog_files(srv)), "`bl`.`big`")
    assert len(blocks) == 100
    # Past max_binlog_cache_size: 1197, and the transaction can roll back.
    h.query(c, "BEGIN")
    err = None
    for i in range(100, 1200):
        try:
            h.query(c, "INSERT INTO bl.big VALUES (%s, REPEAT('c', 1000))", (i,))
        except Exception as e:  # noqa: BLE001
            err = e
            break
    assert err is not None and h.errno_of(err) == 1197, err
    h.query(c, "ROLLBACK")
    assert h.scalar(c, "SELECT COUNT(*) FROM bl.big") == 100
    c.close()


def test_group_commit_serves_many_commits_per_fsync():
    srv = start("binlog-group")
    c = h.root(port=srv.port)
    h.query(c, "CREATE DATABASE bl")
    h.query(c, "CREATE TABLE bl.g (id INT PRIMARY KEY, t INT)")
    before = dict(h.query(c, "SHOW GLOBAL STATUS LIKE 'Binlog_%'"))

    def worker(t):
        w = h.root(port=srv.port)
        for i in range(100):
            h.query(w, "INSERT INTO bl.g VALUES (%s, %s)", (t * 1000 + i, t))
        w.close()

    errors = h.run_workers(16, worker)
    assert not errors, errors
    after = dict(h.query(c, "SHOW GLOBAL STATUS LIKE 'Binlog_%'"))
    commits = int(after["Binlog_commits"]) - int(before["Binlog_commits"])
    fsyncs = int(after["Binlog_fsyncs"]) - int(before["Binlog_fsyncs"])
    assert commits == 1600, (commits, after)
    assert fsyncs < commits, f"{fsyncs} fsyncs for {commits} commits"
    h.note(f"16 committers, sync_binlog=1: {commits} commits, {fsyncs} fsyncs, "
           f"{commits / max(fsyncs, 1):.2f} commits per fsync")
    c.close()


def test_generated_values_and_upserts_are_logged():
    srv = start("binlog-upsert")
    c = h.root(port=srv.port)
    h.query(c, "CREATE DATABASE bl")
    # SERIAL without a PRIMARY KEY: a hidden row id and a generated value.
    h.query(c, "CREATE TABLE bl.s (id SERIAL, v INT)")
    h.query(c, "INSERT INTO bl.s (v) VALUES (10), (20)")
    h.query(c, "CREATE TABLE bl.u (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    h.query(c, "INSERT INTO bl.u (v) VALUES (1)")
    h.query(c, "INSERT INTO bl.u VALUES (1, 5) ON DUPLICATE KEY UPDATE v = v + 100")
    h.query(c, "REPLACE INTO bl.u VALUES (1, 7)")
    h.query(c, "INSERT IGNORE INTO bl.u VALUES (1, 9)")  # nothing changes: nothing logged
    text = decode(binlog_files(srv))
    s = row_blocks(text, "`bl`.`s`")
    assert [dict(b["set"]) for b in s] == [{1: "1", 2: "10"}, {1: "2", 2: "20"}], s
    u = row_blocks(text, "`bl`.`u`")
    assert [b["kind"] for b in u] == ["INSERT", "UPDATE", "DELETE", "INSERT"], u
    assert dict(u[1]["where"]) == {1: "1", 2: "1"} and dict(u[1]["set"]) == {1: "1", 2: "101"}
    assert dict(u[2]["where"]) == {1: "1", 2: "101"} and dict(u[3]["set"]) == {1: "1", 2: "7"}
    c.close()


def test_sluice_binlog_agrees_with_mariadb_binlog():
    if not os.path.exists(SLUICE_BINLOG):
        raise AssertionError(f"{SLUICE_BINLOG} is not built")
    srv = start("binlog-tool")
    c = h.root(port=srv.port)
    h.query(c, "CREATE DATABASE bl")
    h.query(c, ALL_TYPES)
    h.query(c, "INSERT INTO bl.types VALUES " + ROW)
    h.query(c, "UPDATE bl.types SET vc = 'short' WHERE id = 1")
    h.query(c, "DELETE FROM bl.types WHERE id = 1")
    h.query(c, "FLUSH BINARY LOGS")
    files = binlog_files(srv)
    script = os.path.join(REPO, "tests", "binlog", "compare_mariadb_binlog.sh")
    os.environ.setdefault("SLUICE_BINLOG", SLUICE_BINLOG)  # the script's tool, the same one
    rc, out, err = h.run_cmd(["bash", script, *files], timeout=120)
    assert rc == 0, f"sluice-binlog and mariadb-binlog disagree:\n{out[-3000:]}\n{err[-2000:]}"
    c.close()


if __name__ == "__main__":
    h.main(globals())
