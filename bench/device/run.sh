#!/bin/bash
# Device run, from the repository root with $OUT set: unpacks the bundle, then
# lock-manager scaling (sluice-lockbench, CATS and FIFO at 1..16 threads,
# ~10 s), then the Bug #70218 matrix of bench/replication.py (6 rows x 2
# concurrencies x 2 servers, cut off by SIGINT after BENCH_SECONDS, 400 by default, so that the run
# fits the device's 10 minutes a command). All output also goes to $OUT/log.txt.
#   SMALL=1 bash .devbundle/run.sh     tiny sizes, to check that it runs
# QUERIES, READERS, LOCK_SECONDS and BENCH_SECONDS (the cut-off) override the sizes.
# ISOLATE=1 runs the matrix with --isolate-readers (the readers on CPUs of
# their own: half the cores for the server, a quarter each for the plain and
# the go-mysql readers).
set -o pipefail
: "${OUT:?set OUT to a folder}"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
QUERIES=${QUERIES:-30000}
READERS=${READERS:-40}
LOCK_SECONDS=${LOCK_SECONDS:-1}
BENCH_SECONDS=${BENCH_SECONDS:-400}
if [ -n "${SMALL:-}" ]; then QUERIES=500; READERS=4; LOCK_SECONDS=0.1; fi
mkdir -p "$OUT"
{
  echo "## $(date -u +%FT%TZ) setup"
  bash .devbundle/setup.sh || exit 1
  echo "## nproc: $(nproc)"
  export PATH=/opt/sb/bin:$PATH SLUICED=/opt/sb/bin/sluiced PYTHONUNBUFFERED=1
  echo "## $(date -u +%FT%TZ) sluice-lockbench --mode skew, CATS then FIFO"
  for p in cats fifo; do
    sluice-lockbench --mode skew --threads 1,2,4,8,16 --seconds "$LOCK_SECONDS" --policy "$p"
  done
  echo "## $(date -u +%FT%TZ) bench/replication.py --queries $QUERIES --readers $READERS"
  start=$SECONDS
  # SIGINT, not TERM: the bench's finally blocks then stop its servers and readers.
  timeout -s INT -k 30 "$BENCH_SECONDS" python3 bench/replication.py --skip-sysbench --concurrency 16 64 \
    --queries "$QUERIES" --readers "$READERS" ${ISOLATE:+--isolate-readers}
  rc=$?
  echo "## $(date -u +%FT%TZ) replication.py rc=$rc in $((SECONDS - start)) s"
  exit $rc
} 2>&1 | tee "$OUT/log.txt"
