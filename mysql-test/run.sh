#!/usr/bin/env bash
# Runs the mysql-test suites with Debian's mysqltest against a sluiced
# started on a free 127.0.0.1 port with a temporary datadir.
#
#   mysql-test/run.sh                 every suite/*/t/*.test
#   mysql-test/run.sh auth/native     one test (suite/name)
#   mysql-test/run.sh --record ...    write r/*.result instead of comparing
#
# Tests see $MASTER_MYPORT, $SLUICE_DATADIR and $SLUICE_VARDIR. Ends with
# "mysql-test: N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SLUICED=${SLUICED:-$ROOT/build/bin/sluiced}
MYSQLTEST=${MYSQLTEST:-$(command -v mariadb-test || command -v mysqltest)}

record=""
tests=()
for a in "$@"; do
  case "$a" in
    --record) record="--record" ;;
    *) tests+=("$a") ;;
  esac
done
if [ ${#tests[@]} -eq 0 ]; then
  for f in "$HERE"/suite/*/t/*.test; do
    s=$(basename "$(dirname "$(dirname "$f")")")
    tests+=("$s/$(basename "$f" .test)")
  done
fi

VAR=$(mktemp -d /tmp/sluice-mtr.XXXXXX)
mkdir -p "$VAR/tmp" "$VAR/log"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$SLUICED" --datadir="$VAR/data" --port="$PORT" --bind-address=127.0.0.1 \
  --log-error="$VAR/error.log" >"$VAR/stdout.log" 2>&1 &
PID=$!
cleanup() {
  kill -TERM "$PID" 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$PID" 2>/dev/null
  [ "${KEEP_VAR:-0}" = 1 ] || rm -rf "$VAR"
}
trap cleanup EXIT

up=0
for _ in $(seq 1 300); do
  if mariadb -h127.0.0.1 -P"$PORT" -uroot --skip-ssl -e 'SELECT 1' >/dev/null 2>&1; then up=1; break; fi
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.1
done
if [ $up -ne 1 ]; then
  echo "mysql-test: sluiced did not start"; cat "$VAR/error.log" "$VAR/stdout.log" 2>/dev/null | tail -20
  echo "mysql-test: 0 passed, 1 failed"
  exit 1
fi

export MASTER_MYPORT=$PORT SLUICE_DATADIR="$VAR/data" SLUICE_VARDIR="$VAR" SLUICE_ROOT="$ROOT"
passed=0
failed=0
for t in "${tests[@]}"; do
  suite=${t%%/*}; name=${t#*/}
  tf="$HERE/suite/$suite/t/$name.test"
  rf="$HERE/suite/$suite/r/$name.result"
  mkdir -p "$(dirname "$rf")"
  out=$("$MYSQLTEST" --host=127.0.0.1 --port="$PORT" --user=root --database=mysql \
        --basedir="$HERE" --tmpdir="$VAR/tmp" --logdir="$VAR/log" \
        --test-file="$tf" --result-file="$rf" $record --silent 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then
    echo "[ pass ] $suite.$name"; passed=$((passed + 1))
  else
    echo "[ FAIL ] $suite.$name"; echo "$out" | tail -40 | sed 's/^/    /'
    failed=$((failed + 1))
  fi
  if ! kill -0 "$PID" 2>/dev/null; then
    echo "mysql-test: sluiced died during $suite.$name"; tail -20 "$VAR/error.log"
    failed=$((failed + 1)); break
  fi
done
echo "mysql-test: $passed passed, $failed failed"
[ $failed -eq 0 ]
