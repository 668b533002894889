"""A table with every column type the engine has, and rows that reach
each type's edges: shared by the binlog tests (test_binlog.py) and the
MariaDB replica test (test_mariadb_replica.py)."""


def all_types_table(schema):
    """CREATE TABLE <schema>.types with every column type."""
    return f"""CREATE TABLE {schema}.types (
  id INT PRIMARY KEY,
  ti TINYINT, si SMALLINT, mi MEDIUMINT, i INT, bi BIGINT,
  tu TINYINT UNSIGNED, bu BIGINT UNSIGNED,
  de DECIMAL(10,2), de2 DECIMAL(30,10), fl FLOAT, db DOUBLE,
  ch CHAR(5), vc VARCHAR(300), bn BINARY(4), vb VARBINARY(10),
  tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT,
  tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB,
  da DATE, tm TIME, tm3 TIME(3), dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP(2) NULL, yr YEAR,
  en ENUM('red','green','blue'), nn INT NULL)"""


# Row 1: the low edges (and a 300-byte VARCHAR).
ROW = ("(1, -128, -32768, -8388608, -2147483648, -9223372036854775808, 255, 18446744073709551615, "
       "-1234.56, 12345678901234567890.0123456789, 1.5, -2.25, 'ab', REPEAT('x', 300), 'b', 'vb', "
       "'tiny', 'text', 'medium', 'long', 'tb', 'blob', 'mb', 'lb', '2024-02-29', '-838:59:59', "
       "'12:34:56.789', '2024-01-02 03:04:05', '2024-01-02 03:04:05.123456', '2024-01-01 00:00:00.25', "
       "2024, 'blue', NULL)")
