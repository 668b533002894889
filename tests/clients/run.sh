#!/usr/bin/env bash
# Client tests: real clients (mariadb CLI, PyMySQL, mysql-connector-python,
# raw sockets) against a real sluiced.
#
# Starts build/bin/sluiced (override with $SLUICED) on 127.0.0.1 with a free
# port and a temporary datadir, runs every tests/clients/test_*.py with the
# repo's .venv python (override with $PYTHON; pick files with $TESTS, e.g.
# TESTS="test_connect.py test_session.py"), checks the server survived, stops
# it and prints one final line "clients: N passed, N failed".
# KEEP_TMP=1 keeps the temporary directory (datadir, error log).
set -uo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
SLUICED="${SLUICED:-$ROOT/build/bin/sluiced}"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
MARIADB="${MARIADB:-mariadb}"
export SLUICED MARIADB

passed=0
failed=0
SERVER_PID=""
TMP="$(mktemp -d "${TMPDIR:-/tmp}/sluice-clients.XXXXXX")"

stop_server() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null
    for _ in $(seq 1 100); do              # up to 10 s
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "sluiced (pid $SERVER_PID) still running 10 s after SIGTERM: SIGKILL"
      kill -KILL "$SERVER_PID" 2>/dev/null
    fi
    wait "$SERVER_PID" 2>/dev/null
  fi
  SERVER_PID=""
}

cleanup() {
  stop_server
  if [ "${KEEP_TMP:-0}" = 1 ]; then
    echo "kept $TMP"
  else
    rm -rf "$TMP"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

finish() {
  echo
  echo "clients: $passed passed, $failed failed"
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
  exit $?
}

if [ ! -x "$SLUICED" ]; then
  echo "sluiced not found or not executable: $SLUICED"
  failed=1
  finish
fi
if [ ! -x "$PYTHON" ]; then
  echo "python not found: $PYTHON (run scripts/deps.sh)"
  failed=1
  finish
fi

PORT="$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
DATADIR="$TMP/data"
"$SLUICED" --datadir="$DATADIR" --port="$PORT" --bind-address=127.0.0.1 \
  --log-error="$TMP/error.log" >"$TMP/sluiced.out" 2>&1 </dev/null &
SERVER_PID=$!

ready=0
for _ in $(seq 1 60); do                    # up to ~30 s
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
  if timeout 10 "$MARIADB" --no-defaults -h127.0.0.1 -P"$PORT" -uroot --skip-ssl \
       --connect-timeout=5 -e 'SELECT 1' >/dev/null 2>&1; then
    ready=1
    break
  fi
  sleep 0.5
done
if [ "$ready" -ne 1 ]; then
  echo "sluiced did not become ready on port $PORT"
  echo "--- error log tail"; tail -n 40 "$TMP/error.log" 2>/dev/null
  echo "--- stdout/stderr tail"; tail -n 40 "$TMP/sluiced.out" 2>/dev/null
  failed=1
  finish
fi
echo "sluiced pid $SERVER_PID on 127.0.0.1:$PORT, datadir $DATADIR"

export SLUICE_PORT="$PORT" PORT SLUICE_DATADIR="$DATADIR" DATADIR SLUICE_TMP="$TMP"
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1

if [ -n "${TESTS:-}" ]; then
  files=""
  for t in $TESTS; do files="$files $HERE/$(basename "$t")"; done
else
  files="$(ls "$HERE"/test_*.py | sort)"
fi

for f in $files; do
  name="$(basename "$f")"
  echo "== $name"
  out="$TMP/$name.out"
  # Every file is bounded as a whole too (each test inside is bounded).
  (cd "$HERE" && timeout -k 10 600 "$PYTHON" "$f") >"$out" 2>&1
  rc=$?
  cat "$out"
  line="$(grep -E '^RESULT [0-9]+ [0-9]+$' "$out" | tail -1)"
  if [ -n "$line" ]; then
    p="$(echo "$line" | cut -d' ' -f2)"
    fl="$(echo "$line" | cut -d' ' -f3)"
    passed=$((passed + p)); failed=$((failed + fl))
    if [ "$rc" -ne 0 ] && [ "$fl" -eq 0 ]; then
      echo "[ FAIL ] $name exited with $rc despite no failures"
      failed=$((failed + 1))
    fi
  else
    # crashed or timed out: count what was reported, plus one failure
    p="$(grep -c '^\[ pass \]' "$out")"
    fl="$(grep -c '^\[ FAIL \]' "$out")"
    echo "[ FAIL ] $name ended without a RESULT line (exit $rc)"
    if [ ! -s "$out" ]; then
      # Not a line written, not even a traceback: Python could not write
      # its output (a full disk exits 1 silently). Say where space stands.
      echo "    no output at all; space left where it writes:"
      df -h "$TMP" "$HERE" 2>&1 | sed 's/^/    /'
    fi
    passed=$((passed + p)); failed=$((failed + fl + 1))
  fi
done

# The shared server must have survived everything above.
echo "== server survival"
if kill -0 "$SERVER_PID" 2>/dev/null && \
   timeout 20 "$MARIADB" --no-defaults -h127.0.0.1 -P"$PORT" -uroot --skip-ssl \
     --connect-timeout=5 -e 'SELECT 1' >/dev/null 2>&1; then
  echo "[ pass ] run.sh::server_survives"
  passed=$((passed + 1))
else
  echo "[ FAIL ] run.sh::server_survives (pid $SERVER_PID alive: $(kill -0 "$SERVER_PID" 2>/dev/null && echo yes || echo no))"
  echo "--- error log tail"; tail -n 40 "$TMP/error.log" 2>/dev/null
  failed=$((failed + 1))
fi

stop_server
if [ "$failed" -gt 0 ]; then
  echo "--- shared server error log tail ($TMP/error.log; KEEP_TMP=1 keeps it)"
  tail -n 20 "$TMP/error.log" 2>/dev/null
fi
finish
