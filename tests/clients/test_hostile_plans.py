"""Plans any user can make explode (issue 14, finding 5).

Nested IN (SELECT ...) used to cost rows^depth (a subquery with a subquery in
it was taken for correlated and run again for every outer row), and
`id IN (v1, ..., vn)` on the PRIMARY KEY read the whole table with a pass
over the list per row. Now an uncorrelated subquery runs once per
statement (a correlated one once per distinct outer value), and an IN list
on an index's first part is read as one lookup per value (EXPLAIN: range).

The timing bounds are generous (the point is linear, not fast); each test
ends by checking that the server still answers."""

import time

import harness as h

_root = None
ROWS = 1 << 17  # 131072


def setup_module():
    global _root
    _root = h.root()
    for stmt in ("DROP DATABASE IF EXISTS plans", "CREATE DATABASE plans",
                 "CREATE TABLE plans.t3 (a INT PRIMARY KEY, b INT)",
                 "INSERT INTO plans.t3 VALUES (1, 10), (2, 20), (3, 30)",
                 "CREATE TABLE plans.big (id INT PRIMARY KEY, k INT, s VARCHAR(10), KEY k (k))",
                 "INSERT INTO plans.big VALUES (1, 1, 'x')"):
        h.query(_root, stmt)
    # Doubling: 1, 2, 4, ... ROWS rows; k = id % 1000.
    n = 1
    while n < ROWS:
        h.query(_root, f"INSERT INTO plans.big SELECT id + {n}, (id + {n}) % 1000, s FROM plans.big")
        n *= 2
    assert h.scalar(_root, "SELECT COUNT(*) FROM plans.big") == ROWS


def teardown_module():
    try:
        h.query(_root, "DROP DATABASE IF EXISTS plans")
    finally:
        h.close_quietly(_root)


def nested_in(depth):
    sql = "SELECT a FROM plans.t3"
    for _ in range(depth):
        sql = f"SELECT a FROM plans.t3 WHERE a IN ({sql})"
    return sql + " ORDER BY a"


def timed_query(sql):
    start = time.monotonic()
    rows = h.query(_root, sql)
    return rows, time.monotonic() - start


def test_nested_in_subqueries_cost_linear():
    for depth in (10, 14, 20):
        rows, took = timed_query(nested_in(depth))
        assert rows == ((1,), (2,), (3,)), (depth, rows)
        h.note(f"{depth} nested IN (SELECT ...): {took:.3f} s")
        assert took < 3, f"{depth} nested IN (SELECT ...) took {took:.2f} s"
    # EXISTS and NOT IN nest the same way.
    sql = "SELECT 1"
    for _ in range(16):
        sql = f"SELECT a FROM plans.t3 WHERE EXISTS ({sql}) AND a NOT IN (SELECT b FROM plans.t3)"
    rows, took = timed_query(sql + " ORDER BY a")
    assert rows == ((1,), (2,), (3,)) and took < 3, (rows, took)
    h.assert_server_ok()


def test_correlated_subquery_runs_once_per_outer_value():
    # 131072 outer rows, 1000 distinct k: a correlated subquery per distinct
    # value, not per row (each run reads t3).
    rows, took = timed_query(
        "SELECT COUNT(*) FROM plans.big WHERE EXISTS "
        "(SELECT 1 FROM plans.t3 WHERE plans.t3.a = plans.big.k % 4)")
    # k % 4 in (1, 2, 3): three quarters of the rows.
    assert rows == ((ROWS // 4 * 3,),), rows
    h.note(f"correlated EXISTS over {ROWS} rows, 1000 distinct outer values: {took:.3f} s")
    assert took < 20, f"took {took:.2f} s"
    # Correct per outer row: the subquery's value follows the outer value.
    rows = h.query(_root, "SELECT id, (SELECT b FROM plans.t3 WHERE a = big.k) FROM plans.big AS big "
                          "WHERE id IN (1, 2, 3, 4, 1001, 1002) ORDER BY id")
    assert rows == ((1, 10), (2, 20), (3, 30), (4, None), (1001, 10), (1002, 20)), rows
    h.assert_server_ok()


def in_list(n, start=7, step=397):
    return ", ".join(str(start + i * step) for i in range(n))


def test_in_list_on_primary_key_is_a_range():
    rows = h.query(_root, f"EXPLAIN SELECT * FROM plans.big WHERE id IN ({in_list(300)})")
    assert len(rows) == 1, rows
    row = rows[0]
    # id, select_type, table, partitions, type, possible_keys, key, key_len, ref, rows
    assert row[4] == "range", row
    assert row[5] == "PRIMARY" and row[6] == "PRIMARY", row
    assert int(row[9]) == 300, row
    # And on a secondary index's first part.
    rows = h.query(_root, "EXPLAIN SELECT * FROM plans.big WHERE k IN (1, 2, 3)")
    assert rows[0][4] == "range" and rows[0][6] == "k", rows


def test_in_list_on_primary_key_is_fast_and_exact():
    wanted = [7 + i * 397 for i in range(300)]
    rows, took = timed_query(f"SELECT id FROM plans.big WHERE id IN ({in_list(300)}) ORDER BY id")
    assert [r[0] for r in rows] == sorted(w for w in wanted if w <= ROWS), rows[:5]
    h.note(f"300-value IN on the PRIMARY KEY of {ROWS} rows: {took:.3f} s")
    assert took < 2, f"300-value IN on {ROWS} rows took {took:.2f} s"
    # Duplicates, NULL, values no row has, non-integers, strings.
    rows = h.query(_root, "SELECT id FROM plans.big WHERE id IN (5, 5, 3, NULL, -1, 2.5, '4', 999999999) "
                          "ORDER BY id")
    assert rows == ((3,), (4,), (5,)), rows
    rows = h.query(_root, "SELECT id FROM plans.big WHERE id IN (5, 3, 4) ORDER BY id DESC LIMIT 2")
    assert rows == ((5,), (4,)), rows
    # A secondary index: k = id % 1000, so each k has ROWS / 1000 rows or so.
    n = h.scalar(_root, "SELECT COUNT(*) FROM plans.big WHERE k IN (1, 2, 2, 3)")
    assert n == h.scalar(_root, "SELECT COUNT(*) FROM plans.big WHERE k = 1 OR k = 2 OR k = 3"), n
    # Locking reads and DELETE/UPDATE by an IN list.
    h.query(_root, "BEGIN")
    assert h.query(_root, "SELECT id FROM plans.big WHERE id IN (9, 8, 8) ORDER BY id FOR UPDATE") == ((8,), (9,))
    h.query(_root, "COMMIT")
    h.query(_root, "UPDATE plans.big SET s = 'y' WHERE id IN (10, 11, 11)")
    assert h.query(_root, "SELECT id, s FROM plans.big WHERE s = 'y' ORDER BY id") == ((10, "y"), (11, "y"))
    h.query(_root, "UPDATE plans.big SET s = 'x' WHERE id IN (10, 11)")
    h.assert_server_ok()


def test_in_null_semantics():
    cases = [
        ("SELECT 1 IN (1, NULL)", 1),
        ("SELECT 2 IN (1, NULL)", None),
        ("SELECT 2 NOT IN (1, NULL)", None),
        ("SELECT NULL IN (1, 2)", None),
        ("SELECT 2 IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, NULL)", 1),
        ("SELECT 20 IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, NULL)", None),
        ("SELECT 20 NOT IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, NULL)", None),
        ("SELECT 20 NOT IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)", 1),
        ("SELECT 'B' IN ('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i')", 1),
        ("SELECT '3' IN (1, 2, 3, 4, 5, 6, 7, 8, 9)", 1),
        ("SELECT 3.0 IN (1, 2, 3, 4, 5, 6, 7, 8, 9)", 1),
        ("SELECT 18446744073709551615 IN (1, 2, 3, 4, 5, 6, 7, 8, -1)", 0),
        ("SELECT 4 IN (SELECT b FROM plans.t3)", 0),
        ("SELECT 20 IN (SELECT b FROM plans.t3)", 1),
        ("SELECT NULL IN (SELECT b FROM plans.t3 WHERE b > 100)", 0),
    ]
    for sql, want in cases:
        got = h.scalar(_root, sql)
        assert (None if got is None else int(got)) == want, (sql, got, want)
    # In a WHERE over an indexed column: NULL items match nothing.
    rows = h.query(_root, "SELECT a FROM plans.t3 WHERE a IN (NULL, 2) ORDER BY a")
    assert rows == ((2,),), rows
    rows = h.query(_root, "SELECT a FROM plans.t3 WHERE a NOT IN (NULL, 2)")
    assert rows == (), rows
    rows = h.query(_root, "SELECT a FROM plans.t3 WHERE b NOT IN (SELECT NULL FROM plans.t3)")
    assert rows == (), rows


def test_in_hash_set_agrees_with_comparisons():
    # Lists of 8+ items are looked up in a hash set; the answer must be what
    # comparing with each item gives (OR of =, three-valued).
    items = ["'A'", "'ss'", "'x '", "'é'", "'10'", "''", "'zz'", "'q'"]
    lefts = ["'a'", "'A'", "'a '", "'ß'", "'x'", "'x '", "'e'", "'E'", "'10'", "'10.0'", "''", "' '",
             "_utf8mb4'a' COLLATE utf8mb4_bin", "NULL"]
    c = h.root()
    try:
        h.query(c, "CREATE TABLE plans.s (v VARCHAR(10) CHARACTER SET latin1, w VARCHAR(10) COLLATE utf8mb4_bin)")
        h.query(c, "INSERT INTO plans.s VALUES ('a', 'a'), ('A ', 'A'), ('ss', 'ss'), ('x', 'x '), (NULL, NULL)")
        for left in lefts + ["v", "w"]:
            for extra in ("", ", NULL"):
                lst = ", ".join(items) + extra
                ors = " OR ".join(f"{left} = {i}" for i in items + (["NULL"] if extra else []))
                got = h.query(c, f"SELECT {left} IN ({lst}), {ors} FROM plans.s")
                for row in got:
                    assert row[0] == row[1], (left, extra, row)
        for left in ["1", "10", "-1", "18446744073709551615", "2.0", "'3'", "NULL", "id", "k"]:
            lst = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1"
            ors = " OR ".join(f"{left} = {i}" for i in lst.split(", "))
            got = h.query(c, f"SELECT {left} IN ({lst}), {ors} FROM plans.big WHERE id < 20")
            for row in got:
                assert row[0] == row[1], (left, row)
        h.query(c, "DROP TABLE plans.s")
    finally:
        h.close_quietly(c)
    h.assert_server_ok()


if __name__ == "__main__":
    h.main(globals())
