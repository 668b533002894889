#!/usr/bin/env bash
# Builds sluice and runs every test: GoogleTest units (ctest), the
# mysql-test suites (Debian's mysqltest), then the client scripts (real
# clients against a real sluiced). Exits non-zero on any failure and ends
# with one "N passed, N failed" line over all three.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh || exit 1
scripts/build.sh || exit 1

passed=0
failed=0
tally() {  # tally <passed> <failed>
  passed=$((passed + $1)); failed=$((failed + $2))
}

echo "== unit tests (ctest)"
ctest_out=$(cd build && ctest --output-on-failure -j2 2>&1); ctest_rc=$?
echo "$ctest_out" | grep -E "tests passed|tests failed|Failed|\*\*\*" | tail -40
line=$(echo "$ctest_out" | grep -E "^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+" | tail -1)
if [ -n "$line" ]; then
  total=$(echo "$line" | sed -E 's/.* out of ([0-9]+).*/\1/')
  nfail=$(echo "$line" | sed -E 's/.*passed, ([0-9]+) tests failed.*/\1/')
  tally $((total - nfail)) "$nfail"
elif [ $ctest_rc -ne 0 ]; then
  tally 0 1
fi

echo "== mysql-test"
mt_out=$(mysql-test/run.sh 2>&1); mt_rc=$?
echo "$mt_out" | tail -60
line=$(echo "$mt_out" | grep -E "^mysql-test: [0-9]+ passed, [0-9]+ failed" | tail -1)
if [ -n "$line" ]; then
  tally "$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')" "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')"
elif [ $mt_rc -ne 0 ]; then
  tally 0 1
fi

echo "== client tests"
ct_out=$(tests/clients/run.sh 2>&1); ct_rc=$?
echo "$ct_out" | tail -60
line=$(echo "$ct_out" | grep -E "^clients: [0-9]+ passed, [0-9]+ failed" | tail -1)
if [ -n "$line" ]; then
  tally "$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')" "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')"
elif [ $ct_rc -ne 0 ]; then
  tally 0 1
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
