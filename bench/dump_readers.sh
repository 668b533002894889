#!/usr/bin/env bash
# bench/dump_readers.sh: what 100 attached binlog readers cost the writers.
#
# Starts one sluiced (build/bin/sluiced, or $SLUICED) on 127.0.0.1 with a free
# port and a temporary datadir, prepares sysbench oltp_insert, then in one run:
#
#   1. sysbench oltp_insert (--threads, --time) with no reader attached;
#   2. FLUSH BINARY LOGS, --readers stop-never dump readers attach at the new
#      file (tests/clients/binlog_readers.py: raw-protocol COM_BINLOG_DUMP
#      readers in --reader-procs processes, each with its own server_id,
#      writing its copy as mariadb-binlog --raw --stop-never does, lighter on
#      2 cores than 100 mariadb-binlog processes), and once all are
#      streaming the same sysbench run again;
#
# and prints tps and p95 latency of both runs, the ratio, the CPU seconds
# sluiced used during each run (and per transaction: what serving the readers
# costs the server itself) and the readers used, and how long after the second
# run the readers had every byte (the size of their copies). The readers run
# on the same machine as sluiced and sysbench and compete for its cores: read
# the CPU columns with the tps. A benchmark: it asserts nothing about time.
#
#   bench/dump_readers.sh [--time S (20)] [--readers N (100)] [--threads N (16)]
#                         [--tables N (4)] [--table-size N (10000)]
#                         [--reader-procs N (2)]
#
# Needs sysbench, the mariadb client and the repo's .venv (scripts/deps.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SLUICED=${SLUICED:-$ROOT/build/bin/sluiced}
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
READER_TOOL=$ROOT/tests/clients/binlog_readers.py
TIME=20
READERS=100
THREADS=16
TABLES=4
TABLE_SIZE=10000
READER_PROCS=2
while [ $# -gt 0 ]; do
  case "$1" in
    --time) TIME=$2; shift 2 ;;
    --readers) READERS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --tables) TABLES=$2; shift 2 ;;
    --table-size) TABLE_SIZE=$2; shift 2 ;;
    --reader-procs) READER_PROCS=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
for tool in sysbench mariadb; do
  command -v "$tool" >/dev/null || { echo "bench/dump_readers.sh: $tool is missing (scripts/deps.sh)" >&2; exit 2; }
done
[ -x "$SLUICED" ] || { echo "bench/dump_readers.sh: $SLUICED is missing (scripts/build.sh)" >&2; exit 2; }
[ -x "$PYTHON" ] || { echo "bench/dump_readers.sh: $PYTHON is missing (scripts/deps.sh)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/sluice-dump-readers.XXXXXX)
SERVER_PID=""
READER_PIDS=()
cleanup() {
  for pid in "${READER_PIDS[@]}" $SERVER_PID; do kill "$pid" 2>/dev/null || true; done
  for pid in "${READER_PIDS[@]}" $SERVER_PID; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() {  # port
  for _ in $(seq 1 100); do
    mariadb --no-defaults -h127.0.0.1 -P"$1" -uroot --skip-ssl -e 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "bench/dump_readers.sh: server on port $1 did not start" >&2
  return 1
}
sql() { mariadb --no-defaults -h127.0.0.1 -P"$PORT" -uroot --skip-ssl -N -B -e "$1"; }
# CPU seconds (user + system) used so far by the given pids.
cpu_s() {
  local ticks=0 pid
  for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] || continue
    ticks=$((ticks + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  python3 -c "print(f'{$ticks / $(getconf CLK_TCK):.1f}')"
}
sub() { python3 -c "print(f'{$1 - $2:.1f}')"; }

PORT=$(free_port)
"$SLUICED" --datadir="$WORK/data" --port="$PORT" --bind-address=127.0.0.1 \
  --max-connections=$((READERS + THREADS + 100)) --log-error="$WORK/sluiced.err" >"$WORK/sluiced.out" 2>&1 &
SERVER_PID=$!
wait_up "$PORT"
sql "CREATE USER 'repl'@'%' IDENTIFIED WITH mysql_native_password BY 'pw';
     GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%';
     CREATE DATABASE sbtest"

sb() {  # command [args]
  local cmd=$1
  shift
  sysbench oltp_insert --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$PORT" --mysql-user=root \
    --mysql-db=sbtest --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$THREADS" "$@" "$cmd"
}
run_phase() {  # name: runs sysbench, sets TPS P95 S_CPU R_CPU US_TX
  local log=$WORK/run-$1.log s0 r0
  s0=$(cpu_s "$SERVER_PID")
  r0=$(cpu_s "${READER_PIDS[@]}")
  if ! sb run --time="$TIME" --report-interval=0 >"$log" 2>&1; then
    echo "sysbench run ($1) failed:" >&2; tail -5 "$log" >&2; exit 1
  fi
  S_CPU=$(sub "$(cpu_s "$SERVER_PID")" "$s0")
  R_CPU=$(sub "$(cpu_s "${READER_PIDS[@]}")" "$r0")
  TPS=$(sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$log")
  P95=$(sed -n 's/.*95th percentile: *\([0-9.]*\).*/\1/p' "$log")
  local n
  n=$(sed -n 's/.*transactions: *\([0-9]*\) *(.*/\1/p' "$log")
  US_TX=$(python3 -c "n='$n'; print(f'{$S_CPU * 1e6 / int(n):.0f}' if n and int(n) else '-')")
}

if ! sb prepare >"$WORK/prepare.log" 2>&1; then
  echo "sysbench prepare failed:" >&2; tail -5 "$WORK/prepare.log" >&2; exit 1
fi

echo "# dump_readers: sysbench oltp_insert time=${TIME}s threads=$THREADS tables=$TABLES" \
     "table-size=$TABLE_SIZE readers=$READERS in $READER_PROCS processes ($(nproc) cores)"
printf "%-8s %10s %8s %14s %18s %14s\n" readers tps p95_ms sluiced_cpu_s sluiced_cpu_us/tx readers_cpu_s

run_phase 0
TPS0=$TPS
printf "%-8s %10s %8s %14s %18s %14s\n" 0 "${TPS:--}" "${P95:--}" "$S_CPU" "$US_TX" "-"

# Readers attach at the start of a fresh file, so they stream only the second run.
sql "FLUSH BINARY LOGS"
FIRST=$(sql "SHOW MASTER STATUS" | cut -f1)
per=$(( (READERS + READER_PROCS - 1) / READER_PROCS ))
for ((k = 0; k < READER_PROCS; k++)); do
  base=$((k * per)); count=$per
  [ $((base + count)) -gt "$READERS" ] && count=$((READERS - base))
  [ "$count" -gt 0 ] || continue
  "$PYTHON" "$READER_TOOL" --port="$PORT" --user=repl --password=pw --count="$count" --index-base="$base" \
    --server-id-base=1000 --file="$FIRST" --pos=4 --dir="$WORK/readers" --status="$WORK/readers-$k.json" \
    >"$WORK/readers-$k.log" 2>&1 &
  READER_PIDS+=($!)
done
streaming=0
for _ in $(seq 1 300); do   # up to ~60 s
  streaming=$(python3 - "$WORK" <<'EOF'
import glob, json, sys
n = 0
for p in glob.glob(sys.argv[1] + "/readers-*.json"):
    try:
        st = json.load(open(p))
    except (OSError, ValueError):
        continue
    if st["errors"]:
        print("error: " + st["errors"][0]); sys.exit()
    n += st["streaming"]
print(n)
EOF
)
  case "$streaming" in error*) echo "bench/dump_readers.sh: readers: $streaming" >&2; exit 1 ;; esac
  [ "$streaming" -ge "$READERS" ] && break
  sleep 0.2
done
[ "$streaming" -ge "$READERS" ] || { echo "bench/dump_readers.sh: only $streaming of $READERS readers streaming" >&2; exit 1; }

run_phase "$READERS"
TPS1=$TPS
printf "%-8s %10s %8s %14s %18s %14s\n" "$READERS" "${TPS:--}" "${P95:--}" "$S_CPU" "$US_TX" "$R_CPU"
python3 -c "a='$TPS1'; b='$TPS0'; print('ratio tps(%s readers)/tps(0): ' % '$READERS' + (f'{float(a)/float(b):.2f}' if a and b and float(b) else '-'))"

# How long until every reader had every byte written from $FIRST on.
python3 - "$WORK" "$SERVER_PID" "$FIRST" "$READERS" "$PORT" <<'EOF'
import os, subprocess, sys, time
work, _, first, readers, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
out = subprocess.run(["mariadb", "--no-defaults", "-h127.0.0.1", "-P" + port, "-uroot", "--skip-ssl", "-N", "-B",
                      "-e", "SHOW BINARY LOGS"], capture_output=True, text=True, check=True).stdout
logs = [(l.split("\t")[0], int(l.split("\t")[1])) for l in out.splitlines() if l.split("\t")[0] >= first]
want = sum(s for _, s in logs)
t0 = time.monotonic()
last, still, done = None, 0, 0
while still < 100:   # gives up after ~10 s without progress
    sizes = []
    for i in range(readers):
        n = 0
        for name, _ in logs:
            try:
                n += os.path.getsize(os.path.join(work, "readers", "r%03d" % i, name))
            except OSError:
                pass
        sizes.append(n)
    done = sum(n >= want for n in sizes)
    if done == readers:
        break
    still = still + 1 if sizes == last else 0
    last = sizes
    time.sleep(0.1)
print(f"readers with the whole binlog of the run ({want} bytes from {first}): {done} of {readers}, "
      f"{time.monotonic() - t0:.1f} s after sysbench ended")
EOF
