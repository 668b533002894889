#!/usr/bin/env bash
# bench/sysbench.sh: sysbench against sluiced and MariaDB side by side.
#
# Starts sluiced (build/bin/sluiced, or $SLUICED) and a MariaDB server from
# Debian's mariadb-server (mariadbd) on 127.0.0.1, each on a free port with
# a temporary datadir and the same settings (innodb_flush_log_at_trx_commit,
# buffer pool size; both with a row-based binlog and sync_binlog=1, sluiced's
# by default), then runs the same
# sysbench commands (prepare, run, cleanup) against each and prints tps, p95
# latency and the ratio sluiced/MariaDB per workload.
#
#   bench/sysbench.sh [--time S (30)] [--threads N (16)] [--tables N (4)]
#                     [--table-size N (10000)] [--ps-mode auto|disable (auto)]
#                     [--flush-log-at-trx-commit 0|1|2 (1)]
#                     [--workloads "oltp_read_write oltp_point_select ..."]
#                     [--rounds N (1)] [--baseline PATH] [--skip-mariadb]
#
# --rounds N runs each workload N times on each server, the servers taking
# turns first (sluiced first in odd rounds, last in even ones), each run on
# freshly prepared tables, and prints the median run's tps and p95 per
# server, then a line with every run's tps and the disk's mean time per
# write or flush request during it. On this VM one 30 s run of an
# fsync-bound workload moves by a quarter from run to run, so a ratio of
# single runs can land either side of 1.0 (docs/performance.md).
#
# --baseline PATH also runs another sluiced binary (an older build) with the
# same settings, one server at a time per workload, and prints its tps and
# the ratio new/baseline: a before/after figure measured in one run.
# Needs sysbench and mariadb-server (apt-get install sysbench mariadb-server).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SLUICED=${SLUICED:-$ROOT/build/bin/sluiced}
TIME=30
THREADS=16
TABLES=4
TABLE_SIZE=10000
PS_MODE=auto
FLUSH=1
WORKLOADS="oltp_read_write oltp_point_select oltp_insert oltp_update_index oltp_delete"
BASELINE=""
MARIADB=1
ROUNDS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --time) TIME=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --tables) TABLES=$2; shift 2 ;;
    --table-size) TABLE_SIZE=$2; shift 2 ;;
    --ps-mode) PS_MODE=$2; shift 2 ;;
    --flush-log-at-trx-commit) FLUSH=$2; shift 2 ;;
    --workloads) WORKLOADS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --baseline) BASELINE=$2; shift 2 ;;
    --skip-mariadb) MARIADB=0; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
for tool in sysbench mariadbd mariadb-install-db mariadb; do
  command -v "$tool" >/dev/null || { echo "bench/sysbench.sh: $tool is missing" >&2; exit 2; }
done
[ -x "$SLUICED" ] || { echo "bench/sysbench.sh: $SLUICED is missing (scripts/build.sh)" >&2; exit 2; }
[ -z "$BASELINE" ] || [ -x "$BASELINE" ] || { echo "bench/sysbench.sh: $BASELINE is missing" >&2; exit 2; }

WORK=$(mktemp -d /tmp/sluice-sysbench.XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() {  # port
  for _ in $(seq 1 100); do
    mariadb -h127.0.0.1 -P"$1" -uroot --skip-ssl -e 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "bench/sysbench.sh: server on port $1 did not start" >&2
  return 1
}

POOL=256M
start_sluiced() {  # name binary: starts it, sets its port in PORT_<name>
  local port
  port=$(free_port)
  "$2" --datadir="$WORK/$1" --port="$port" --bind-address=127.0.0.1 \
    --innodb-buffer-pool-size=$POOL --innodb-flush-log-at-trx-commit="$FLUSH" \
    --max-connections=1000 --log-error="$WORK/$1.err" >/dev/null 2>&1 &
  PIDS+=($!)
  eval "PORT_$1=$port"
}
SERVERS="sluiced"
start_sluiced sluiced "$SLUICED"
if [ -n "$BASELINE" ]; then
  SERVERS="$SERVERS baseline"
  start_sluiced baseline "$BASELINE"
fi
if [ "$MARIADB" = 1 ]; then
  SERVERS="$SERVERS mariadb"
  PORT_mariadb=$(free_port)
  mariadb-install-db --no-defaults --datadir="$WORK/mariadb" --user="$(id -un)" >"$WORK/install.log" 2>&1
  mariadbd --no-defaults --datadir="$WORK/mariadb" --port="$PORT_mariadb" --bind-address=127.0.0.1 \
    --socket="$WORK/mariadb.sock" --user="$(id -un)" --skip-grant-tables \
    --innodb-buffer-pool-size=$POOL --innodb-flush-log-at-trx-commit="$FLUSH" \
    --log-bin="$WORK/mariadb/binlog" --binlog-format=ROW --sync-binlog=1 --server-id=1 \
    --max-connections=1000 --log-error="$WORK/mariadb.err" >/dev/null 2>&1 &
  PIDS+=($!)
fi
for server in $SERVERS; do wait_up "$(eval echo "\$PORT_$server")"; done

# sysbench <workload> <port> <command> [args]: its output.
sb() {
  local w=$1 port=$2 cmd=$3
  shift 3
  sysbench "$w" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=root \
    --mysql-db=sbtest --tables="$TABLES" --table-size="$TABLE_SIZE" --db-ps-mode="$PS_MODE" \
    --threads="$THREADS" "$@" "$cmd"
}

echo "# sysbench: time=${TIME}s threads=$THREADS tables=$TABLES table-size=$TABLE_SIZE ps-mode=$PS_MODE" \
     "innodb_flush_log_at_trx_commit=$FLUSH buffer-pool=$POOL rounds=$ROUNDS ($(nproc) cores)"
header="$(printf "%-20s %12s %10s" workload sluiced_tps p95_ms)"
[ -n "$BASELINE" ] && header="$header$(printf " %12s %10s %8s" baseline_tps p95_ms new/base)"
[ "$MARIADB" = 1 ] && header="$header$(printf " %12s %10s %8s" mariadb_tps p95_ms ratio)"
echo "$header"
ratio() { python3 -c "a='$1'; b='$2'; print(f'{float(a)/float(b):.2f}' if a and b and float(b) else '-')"; }
status=0
# The disk under $WORK (/sys/class/block/DEV/stat): "writes write_ms
# flushes flush_ms" so far, or nothing where it is not a block device here.
DISK_STAT=/sys/class/block/$(basename "$(df --output=source "$WORK" | tail -1)")/stat
disk_counts() { [ -r "$DISK_STAT" ] && awk '{ print $5, $8, $16, $17 }' "$DISK_STAT"; }
# disk_latency "before" "after": the mean time of a write or flush request
# between the two, in µs ("-" unknown). A run whose figure is several times
# its neighbours' was paced by the disk, not by the server (quiet runs on
# this VM read 65-130 µs).
disk_latency() {
  python3 -c "import sys; a, b = sys.argv[1].split(), sys.argv[2].split()
if len(a) < 4 or len(b) < 4: print('-'); raise SystemExit
n = int(b[0]) - int(a[0]) + int(b[2]) - int(a[2]); ms = int(b[1]) - int(a[1]) + int(b[3]) - int(a[3])
print(round(1000 * ms / n) if n > 0 else '-')" "$1" "$2"
}
# median "tps p95 latency" "tps p95 latency" ...: the pair whose tps is the median (the
# lower middle one of an even count).
median() { printf '%s\n' "$@" | sort -g -k1,1 | sed -n "$((($# + 1) / 2))p"; }
for w in $WORKLOADS; do
  declare -A tps=() p95=() runs=()
  for round in $(seq 1 "$ROUNDS"); do
    order=$SERVERS
    [ $((round % 2)) = 0 ] && order=$(echo "$SERVERS" | tr ' ' '\n' | tac | tr '\n' ' ')
    for server in $order; do
      port=$(eval echo "\$PORT_$server")
      log="$WORK/$server-$w-$round"
      mariadb -h127.0.0.1 -P"$port" -uroot --skip-ssl -e 'DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest'
      if ! sb "$w" "$port" prepare >"$log-prepare.log" 2>&1; then
        echo "$server $w prepare failed:" >&2; tail -5 "$log-prepare.log" >&2; status=1; continue
      fi
      sync  # the prepare's and the last run's dirty pages, not written back during this run
      disk0=$(disk_counts || true)
      if ! sb "$w" "$port" run --time="$TIME" --report-interval=0 >"$log-run.log" 2>&1; then
        echo "$server $w run failed:" >&2; tail -5 "$log-run.log" >&2; status=1
      fi
      if ! sb "$w" "$port" cleanup >"$log-cleanup.log" 2>&1; then
        echo "$server $w cleanup failed:" >&2; tail -5 "$log-cleanup.log" >&2; status=1
      fi
      t=$(sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$log-run.log")
      p=$(sed -n 's/.*95th percentile: *\([0-9.]*\).*/\1/p' "$log-run.log")
      lat=$(disk_latency "$disk0" "$(disk_counts || true)")
      [ -n "$t" ] && runs[$server]="${runs[$server]:-}${runs[$server]:+|}$t ${p:--} $lat"
    done
  done
  for server in $SERVERS; do
    [ -n "${runs[$server]:-}" ] || continue
    IFS='|' read -r -a pairs <<<"${runs[$server]}"
    read -r tps[$server] p95[$server] _ <<<"$(median "${pairs[@]}")"
  done
  line="$(printf "%-20s %12s %10s" "$w" "${tps[sluiced]:--}" "${p95[sluiced]:--}")"
  [ -n "$BASELINE" ] && line="$line$(printf " %12s %10s %8s" "${tps[baseline]:--}" "${p95[baseline]:--}" \
    "$(ratio "${tps[sluiced]:-}" "${tps[baseline]:-}")")"
  [ "$MARIADB" = 1 ] && line="$line$(printf " %12s %10s %8s" "${tps[mariadb]:--}" "${p95[mariadb]:--}" \
    "$(ratio "${tps[sluiced]:-}" "${tps[mariadb]:-}")")"
  echo "$line"
  if [ "$ROUNDS" -gt 1 ]; then
    line="#   runs, tps (µs per disk write or flush):"
    for server in $SERVERS; do
      line="$line $server $(echo "${runs[$server]:-}" | tr '|' '\n' | awk '{printf "%s(%s)\n", $1, $3}' | paste -sd/)"
    done
    echo "$line"
  fi
done
exit $status
