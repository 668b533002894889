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
#                     [--baseline PATH] [--skip-mariadb]
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
while [ $# -gt 0 ]; do
  case "$1" in
    --time) TIME=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --tables) TABLES=$2; shift 2 ;;
    --table-size) TABLE_SIZE=$2; shift 2 ;;
    --ps-mode) PS_MODE=$2; shift 2 ;;
    --flush-log-at-trx-commit) FLUSH=$2; shift 2 ;;
    --workloads) WORKLOADS=$2; shift 2 ;;
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
     "innodb_flush_log_at_trx_commit=$FLUSH buffer-pool=$POOL ($(nproc) cores)"
header="$(printf "%-20s %12s %10s" workload sluiced_tps p95_ms)"
[ -n "$BASELINE" ] && header="$header$(printf " %12s %10s %8s" baseline_tps p95_ms new/base)"
[ "$MARIADB" = 1 ] && header="$header$(printf " %12s %10s %8s" mariadb_tps p95_ms ratio)"
echo "$header"
ratio() { python3 -c "a='$1'; b='$2'; print(f'{float(a)/float(b):.2f}' if a and b and float(b) else '-')"; }
status=0
for w in $WORKLOADS; do
  declare -A tps=() p95=()
  for server in $SERVERS; do
    port=$(eval echo "\$PORT_$server")
    mariadb -h127.0.0.1 -P"$port" -uroot --skip-ssl -e 'DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest'
    if ! sb "$w" "$port" prepare >"$WORK/$server-$w-prepare.log" 2>&1; then
      echo "$server $w prepare failed:" >&2; tail -5 "$WORK/$server-$w-prepare.log" >&2; status=1; continue
    fi
    sync  # the prepare's and the last run's dirty pages, not written back during this run
    if ! sb "$w" "$port" run --time="$TIME" --report-interval=0 >"$WORK/$server-$w-run.log" 2>&1; then
      echo "$server $w run failed:" >&2; tail -5 "$WORK/$server-$w-run.log" >&2; status=1
    fi
    if ! sb "$w" "$port" cleanup >"$WORK/$server-$w-cleanup.log" 2>&1; then
      echo "$server $w cleanup failed:" >&2; tail -5 "$WORK/$server-$w-cleanup.log" >&2; status=1
    fi
    tps[$server]=$(sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$WORK/$server-$w-run.log")
    p95[$server]=$(sed -n 's/.*95th percentile: *\([0-9.]*\).*/\1/p' "$WORK/$server-$w-run.log")
  done
  line="$(printf "%-20s %12s %10s" "$w" "${tps[sluiced]:--}" "${p95[sluiced]:--}")"
  [ -n "$BASELINE" ] && line="$line$(printf " %12s %10s %8s" "${tps[baseline]:--}" "${p95[baseline]:--}" \
    "$(ratio "${tps[sluiced]:-}" "${tps[baseline]:-}")")"
  [ "$MARIADB" = 1 ] && line="$line$(printf " %12s %10s %8s" "${tps[mariadb]:--}" "${p95[mariadb]:--}" \
    "$(ratio "${tps[sluiced]:-}" "${tps[mariadb]:-}")")"
  echo "$line"
done
exit $status
