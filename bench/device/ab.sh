#!/bin/bash
# Device A/B of sluiced builds, from the repository root with $OUT set: the
# no-reader mariadb-slap row (single-row autocommit INSERTs,
# flush_log_at_trx_commit=2, sync_binlog=0) at concurrency 16 and 64, on a
# fresh server per build and concurrency, two runs each, in two rounds (the
# second in reverse order, so that drift favours no build). Prints, and
# writes to $OUT/ab.txt, inserts/s, server CPU µs per insert and voluntary
# context switches per insert.
#   bash .devbundle/ab.sh QUERIES NAME...
# Each NAME is a build carried as .devbundle/sluiced-NAME.xz, made here with
#   strip -o /tmp/s build/bin/sluiced && xz -c /tmp/s > .devbundle/sluiced-NAME.xz
# With ROWS set (for example ROWS="1async 1semi"), each build runs those rows
# of bench/replication.py instead (sluiced only, c16 and c64, REPEAT runs a
# row, 2 by default), with the bundle's semisync plugins.
# A NAME may end in @CPUS (a taskset list, e.g. head@0-7): that build then
# runs with its server and its mariadb-slap (in ROWS mode, the whole bench
# with its readers) confined to those CPUs, so the same build can be
# compared with itself on fewer CPUs: `bash .devbundle/ab.sh 150000 head head@0-7`.
# Compare builds within one call only: each call may get another machine.
set -o pipefail
: "${OUT:?set OUT to a folder}"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ $# -ge 2 ] || { echo "usage: ab.sh QUERIES NAME..." >&2; exit 2; }
bash .devbundle/setup.sh >/dev/null 2>&1 || { echo "ab: setup failed" >&2; exit 1; }
export PATH=/opt/sb/bin:$PATH
. .devbundle/lib.sh
Q=$1; shift
# cpus_of NAME: NAME's @CPUS, or nothing.
cpus_of() {
  [[ $1 == *@* ]] && echo "${1#*@}"
}
# on_cpus NAME CMD...: runs CMD confined to NAME's @CPUS, if it has them.
on_cpus() {
  local cpus
  cpus=$(cpus_of "$1"); shift
  if [ -n "$cpus" ]; then
    taskset -c "$cpus" "$@"
  else
    "$@"
  fi
}
for n in "$@"; do
  b=${n%@*}
  [ -x ".devbundle/sluiced-$b" ] && continue
  unxz_to ".devbundle/sluiced-$b.xz" ".devbundle/sluiced-$b" || { echo "ab: no .devbundle/sluiced-$b.xz" >&2; exit 1; }
  chmod +x ".devbundle/sluiced-$b"
done

# CPU seconds and voluntary switches of all of a process's threads.
pstat() {
  python3 - "$1" <<'PY'
import os, sys
pid = sys.argv[1]; cpu = vol = 0
for t in os.listdir(f"/proc/{pid}/task"):
    try:
        st = open(f"/proc/{pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()
        cpu += int(st[11]) + int(st[12])
        for line in open(f"/proc/{pid}/task/{t}/status"):
            if line.startswith("voluntary_ctxt_switches"):
                vol += int(line.split()[1])
    except FileNotFoundError:
        pass
print(cpu / os.sysconf("SC_CLK_TCK"), vol)
PY
}

# One build at one concurrency, on a fresh server.
one() {
  local n=$1 c=$2 P=13400 D SP r s e c0 v0 c1 v1 b=${1%@*}
  D=$(mktemp -d)
  SERVER_CPUS=$(cpus_of "$n") start_slap_server ".devbundle/sluiced-$b" "$D" $P
  for r in 1 2; do
    read -r c0 v0 < <(pstat $SP)
    s=$(date +%s.%N)
    on_cpus "$n" mariadb-slap --no-defaults -h127.0.0.1 -P$P -uroot --skip-ssl --concurrency="$c" --iterations=1 \
      --number-of-queries="$Q" --create-schema=slap --no-drop "--query=INSERT INTO slap.t (v) VALUES (1)" >/dev/null 2>&1
    e=$(date +%s.%N)
    read -r c1 v1 < <(pstat $SP)
    python3 -c "print('%-10s c%-3s run %d: %6.0f ins/s  %5.1f us cpu/ins  %4.2f vol sw/ins' % \
      ('$n', $c, $r, $Q / ($e - $s), ($c1 - $c0) * 1e6 / $Q, ($v1 - $v0) / $Q))"
  done
  kill $SP
  wait $SP 2>/dev/null
  rm -rf "$D"
}

# One build through bench/replication.py's ROWS. The build goes beside the
# bundle's sluiced, whose plugin directory (../plugin) it then finds.
rows() {
  local n=$1 b=${1%@*}
  cp ".devbundle/sluiced-$b" "/opt/sb/libexec/sluiced-$b"
  printf '#!/bin/sh\nLD_LIBRARY_PATH=/opt/sb/lib exec /opt/sb/libexec/sluiced-%s "$@"\n' "$b" > "/opt/sb/bin/sluiced-$b"
  chmod +x "/opt/sb/bin/sluiced-$b"
  echo "## $n"
  # shellcheck disable=SC2086  # ROWS is a list of row names
  SLUICED="/opt/sb/bin/sluiced-$b" PYTHONUNBUFFERED=1 on_cpus "$n" python3 bench/replication.py --skip-mariadb --skip-sysbench \
    --rows $ROWS --concurrency 16 64 --queries "$Q" --repeat "${REPEAT:-2}"
}

mkdir -p "$OUT"
if [ -n "${ROWS:-}" ]; then
  {
    for round in 1 2; do
      bins=("$@")
      [ $round = 2 ] && mapfile -t bins < <(printf '%s\n' "$@" | tac)
      for b in "${bins[@]}"; do rows "$b"; done
    done
  } 2>&1 | tee "$OUT/ab.txt"
  exit
fi
{
  for round in 1 2; do
    bins=("$@")
    [ $round = 2 ] && mapfile -t bins < <(printf '%s\n' "$@" | tac)
    for c in 16 64; do
      for b in "${bins[@]}"; do one "$b" "$c"; done
    done
  done
} 2>&1 | tee "$OUT/ab.txt"
