#!/usr/bin/env bash
# compare_mariadb_binlog.sh [--samples] [BINLOG_FILE...]
#
# Runs `sluice-binlog --verbose --base64-output=decode-rows` and
# `mariadb-binlog --verbose --base64-output=decode-rows` on each file and
# compares what both must agree on:
#   - the sequence of `# at N` positions,
#   - the sequence of `end_log_pos N` numbers,
#   - the `###` row lines (INSERT/UPDATE/DELETE, SET/WHERE, @N=value).
# Two known differences between mysqlbinlog 8.0 (which sluice-binlog
# follows) and mariadb-binlog 10.11 are allowed for:
#   - mysqlbinlog prints a Rows_query event's header line (end_log_pos) only
#     with -vv, mariadb-binlog always: end_log_pos is taken from a second
#     `sluice-binlog -vv` run;
#   - in quoted strings mysqlbinlog 8.0 escapes backslash, quote, \n \t \r \b \f
#     mariadb-binlog writes ' and \ as they are and \x0a-style hex for the
#     control characters: sluice-binlog's `###` lines are rewritten to
#     mariadb-binlog's form before comparing.
# --samples also writes the files of tools/binlog/sample_binlogs.h (with
# sluice-binlog-samples) into a temporary directory and checks them.
#
# Environment: SLUICE_BINLOG (default build/bin/sluice-binlog),
# SLUICE_BINLOG_SAMPLES (default build/bin/sluice-binlog-samples),
# MARIADB_BINLOG (default mariadb-binlog), KEEP=1 keeps the outputs.
# Exit status: 0 all equal, 1 a difference or a failure, 77 mariadb-binlog
# missing (CTest's "skipped" convention when so configured).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
sluice=${SLUICE_BINLOG:-$root/build/bin/sluice-binlog}
samples=${SLUICE_BINLOG_SAMPLES:-$root/build/bin/sluice-binlog-samples}
mariadb=${MARIADB_BINLOG:-mariadb-binlog}

if ! command -v "$mariadb" >/dev/null 2>&1; then
  echo "compare_mariadb_binlog: $mariadb not found; skipped" >&2
  exit 77
fi
if [ ! -x "$sluice" ]; then
  echo "compare_mariadb_binlog: $sluice not built" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/sluice-binlog-compare.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
  echo "compare_mariadb_binlog: outputs kept in $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi

files=()
if [ "${1:-}" = "--samples" ]; then
  shift
  if ! mapfile -t files < <("$samples" "$work/samples"); then
    echo "compare_mariadb_binlog: $samples failed" >&2
    exit 1
  fi
  [ "${#files[@]}" -gt 0 ] || { echo "compare_mariadb_binlog: no sample files" >&2; exit 1; }
fi
files+=("$@")
if [ "${#files[@]}" -eq 0 ]; then
  sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
  exit 1
fi

# Same time zone for both (only positions and rows are compared, but keep
# the full outputs comparable by eye).
export TZ=${TZ:-UTC}

failed=0
n=0
for f in "${files[@]}"; do
  n=$((n + 1))
  base="$work/$n.$(basename "$f")"
  "$sluice" --verbose --base64-output=decode-rows "$f" >"$base.sluice" 2>"$base.sluice.err"
  src=$?
  "$sluice" -vv --base64-output=decode-rows "$f" >"$base.sluice.vv" 2>/dev/null
  "$mariadb" --no-defaults --verbose --base64-output=decode-rows "$f" >"$base.mariadb" 2>"$base.mariadb.err"
  mrc=$?
  if [ "$src" -ne 0 ] && [ "$mrc" -eq 0 ]; then
    echo "FAIL $f: sluice-binlog exited $src: $(head -c 500 "$base.sluice.err")"
    failed=1
  fi
  status=ok
  for what in at end rows; do
    case $what in
      at)   pattern='^# at [0-9]+$' ;;
      end)  pattern='end_log_pos [0-9]+' ;;
      rows) pattern='^###' ;;
    esac
    case $what in
      at)
        grep -aE "$pattern" "$base.sluice" >"$base.sluice.$what"
        grep -aE "$pattern" "$base.mariadb" >"$base.mariadb.$what" ;;
      end)
        grep -aoE "$pattern" "$base.sluice.vv" >"$base.sluice.$what"
        grep -aoE "$pattern" "$base.mariadb" >"$base.mariadb.$what" ;;
      rows)
        grep -aE "$pattern" "$base.sluice" |
          perl -pe 's/\\([\\'"'"'ntrbf])/{"\\"=>"\\","'"'"'"=>"'"'"'","n"=>"\\x0a","t"=>"\\x09","r"=>"\\x0d","b"=>"\\x08","f"=>"\\x0c"}->{$1}/ge' \
          >"$base.sluice.$what"
        grep -aE "$pattern" "$base.mariadb" >"$base.mariadb.$what" ;;
    esac
    if ! diff -u "$base.mariadb.$what" "$base.sluice.$what" >"$base.diff.$what"; then
      status=FAIL
      failed=1
      echo "FAIL $f: '$what' lines differ (--- mariadb-binlog, +++ sluice-binlog):"
      head -40 "$base.diff.$what"
    fi
  done
  if [ "$status" = ok ]; then
    echo "ok   $f: $(wc -l <"$base.sluice.at") events, $(wc -l <"$base.sluice.rows") row lines agree"
  fi
  if [ "$mrc" -ne 0 ]; then
    echo "note $f: mariadb-binlog exited $mrc: $(head -c 300 "$base.mariadb.err")"
  fi
done
exit $failed
