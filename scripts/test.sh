#!/usr/bin/env bash
# Builds sluice, checks it with clang's thread-safety analysis
# (scripts/thread_safety.sh: GUARDED_BY and friends, any warning an error),
# and runs every test: GoogleTest units (ctest), the layering check
# (scripts/check_layers.py), the mysql-test suites (Debian's mysqltest), the
# client scripts (real clients against a real sluiced), then the fuzz
# targets (replay and a short run each). Exits non-zero on any failure and
# ends with one "N passed, N failed" line over all of them (each check
# counts as one), after a line of the seconds each phase took.
#
# BUILD_DIR (default build) picks the build the suites run; SKIP_FUZZ=1
# leaves out the fuzz targets, SKIP_THREAD_SAFETY=1 the analysis
# (scripts/sanitize.sh uses all three: the analysis does not depend on the
# build's flags).
set -uo pipefail
cd "$(dirname "$0")/.."
# "phase seconds" before the summary: what to trim first when the suite
# nears CI's 45-minute budget.
times=""
mark=$SECONDS
lap() {  # lap <phase>: the seconds since the last lap
  times+=" $1 $((SECONDS - mark)),"; mark=$SECONDS
}
scripts/deps.sh || exit 1
lap deps
scripts/build.sh || exit 1
lap build
BUILD=${BUILD_DIR:-build}
export SLUICED=${SLUICED:-$PWD/$BUILD/bin/sluiced}

passed=0
failed=0
tally() {  # tally <passed> <failed>
  passed=$((passed + $1)); failed=$((failed + $2))
}

if [ "${SKIP_THREAD_SAFETY:-0}" != 1 ]; then
  echo "== thread-safety analysis (clang)"
  tsa_out=$(scripts/thread_safety.sh 2>&1); tsa_rc=$?
  echo "$tsa_out" | tail -60
  if [ $tsa_rc -eq 0 ]; then tally 1 0; else tally 0 1; fi
  lap thread-safety
fi

echo "== unit tests (ctest)"
ctest_out=$(cd "$BUILD" && ctest --output-on-failure -j2 2>&1); ctest_rc=$?
echo "$ctest_out" | grep -E "tests passed|tests failed|Failed|\*\*\*" | tail -40
line=$(echo "$ctest_out" | grep -E "^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+" | tail -1)
if [ -n "$line" ]; then
  total=$(echo "$line" | sed -E 's/.* out of ([0-9]+).*/\1/')
  nfail=$(echo "$line" | sed -E 's/.*passed, ([0-9]+) tests failed.*/\1/')
  tally $((total - nfail)) "$nfail"
elif [ $ctest_rc -ne 0 ]; then
  tally 0 1
fi
lap ctest

# run_suite <title> <summary prefix> <command...>: runs a suite that ends
# with "<prefix>: N passed, N failed" and adds its counts.
run_suite() {
  local title=$1 prefix=$2; shift 2
  echo "== $title"
  local out rc line
  out=$("$@" 2>&1); rc=$?
  # The failures with what follows each (a client test's traceback), also
  # when the tail below is cut: up to 40 lines, until the next result line.
  echo "$out" | awk '/^\[ FAIL/ {n = 40; print; next}
                     /^(\[ pass \]|== |RESULT )/ {n = 0}
                     n > 0 {print; n--}' || true
  echo "$out" | tail -60
  line=$(echo "$out" | grep -E "^$prefix: [0-9]+ passed, [0-9]+ failed" | tail -1)
  if [ -n "$line" ]; then
    tally "$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')" "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')"
  elif [ $rc -ne 0 ]; then
    tally 0 1
  fi
  lap "$prefix"
}

# The include graph points down the stack (scripts/check_layers.py).
run_suite layering layering scripts/check_layers.py
run_suite mysql-test mysql-test mysql-test/run.sh
run_suite "client tests" clients tests/clients/run.sh
# The libFuzzer targets (build-fuzz/, clang): the seed corpus and the kept
# regression inputs replayed, then FUZZ_SECONDS (20) of fuzzing each.
[ "${SKIP_FUZZ:-0}" = 1 ] || run_suite fuzz fuzz scripts/fuzz.sh ci "${FUZZ_SECONDS:-20}"

echo
echo "phase seconds:${times%,} (total $SECONDS)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
