#!/bin/bash
# Device, from the repository root with $OUT set: perf profile of sluiced under
# a mariadb-slap single-row INSERT load at concurrency 16 and 64 (CONCS="16" for one). For each:
# perf stat (context switches, migrations, task-clock) and sluiced's CPU ticks
# over 2 s, then 0.25 s of context switches with their call graphs (folded
# by switches.py into where the threads went to sleep), then 2 s of perf
# record with DWARF call graphs, and the slap result.
# Writes $OUT/flat.C.txt (self time), children.C.txt (inclusive time),
# graph.C.txt (call graphs), switches.C.txt (sleeps) and log.txt (all
# that is printed).
set -o pipefail
: "${OUT:?set OUT to a folder}"
mkdir -p "$OUT"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
{
bash .devbundle/setup.sh >/dev/null 2>&1 || { echo setup failed; exit 1; }
mkdir -p /opt/perf && tar -xJf .devbundle/perf.tar.xz -C /opt/perf
. .devbundle/lib.sh
# The bundle's sluiced is fully stripped; this one keeps its symbol table.
unxz_to .devbundle/sluiced-sym.xz /opt/sb/libexec/sluiced
chmod +x /opt/sb/libexec/sluiced
PERF="env LD_LIBRARY_PATH=/opt/perf/lib /opt/perf/perf"
$PERF --version
export PATH=/opt/sb/bin:$PATH
D=$(mktemp -d); P=13306
start_slap_server /opt/sb/libexec/sluiced "$D" $P
for c in ${CONCS:-16 64}; do
  # Enough queries to outlast the 2 s warm-up and 5 s of measuring on 16 cores.
  mariadb-slap --no-defaults -h127.0.0.1 -P$P -uroot --skip-ssl --concurrency=$c --iterations=1 --number-of-queries="${QUERIES:-800000}" \
    --create-schema=slap --no-drop "--query=INSERT INTO slap.t (v) VALUES (1)" > $D/slap.$c 2>&1 &
  LP=$!
  sleep 2
  t0=$(awk '{print $14+$15}' /proc/$SP/stat)
  $PERF stat -e context-switches,cpu-migrations,task-clock -p $SP -- sleep 2 2>&1 | grep -E "context|migr|task-clock|elapsed"
  t1=$(awk '{print $14+$15}' /proc/$SP/stat)
  echo "c$c sluiced cpu over 2 s: $(( (t1 - t0) )) ticks (100/s)"
  $PERF record -q -e context-switches -c 1 --call-graph dwarf,4096 -p $SP -o $D/cs.$c -- sleep 0.25 2>&1 | tail -2
  $PERF record -q -F 400 -e cpu-clock --call-graph dwarf,4096 -p $SP -o $D/perf.$c -- sleep 2 2>&1 | tail -2
  wait $LP; grep -E "Average|Number of clients" $D/slap.$c
  $PERF script -i $D/cs.$c 2>/dev/null | python3 .devbundle/switches.py 3 40 > $OUT/switches.$c.txt
  $PERF report -i $D/perf.$c --no-children --sort symbol --stdio -g none --percent-limit 0.5 2>/dev/null | grep -v "^$" | sed -E "s/ +/ /g" | cut -c1-220 | head -70 > $OUT/flat.$c.txt
  $PERF report -i $D/perf.$c --children --sort symbol --stdio -g none --percent-limit 4 2>/dev/null | grep -v "^$" | sed -E "s/ +/ /g" | cut -c1-220 | head -60 > $OUT/children.$c.txt
  $PERF report -i $D/perf.$c --no-children --sort symbol --stdio -g caller,0.5,callee,function,percent --percent-limit 2 2>/dev/null | sed -E "s/ +/ /g" | cut -c1-220 | head -600 > $OUT/graph.$c.txt
  head -40 $OUT/flat.$c.txt
  head -25 $OUT/switches.$c.txt
done
kill $SP; wait $SP
} 2>&1 | tee $OUT/log.txt
