#!/usr/bin/env bash
# The whole suite (ctest, mysql-test, client scripts) on a sanitizer build.
#
#   scripts/sanitize.sh address   ASan+UBSan, in build-asan/
#   scripts/sanitize.sh thread    TSan, in build-tsan/
#
# Every sluiced and test binary the suites start writes its sanitizer
# reports to $SAN_LOGS (default /tmp/sluice-<kind>-reports) as <name>.<pid>;
# the run fails when any report was written, even where the suite itself
# passed (TSan reports and leaks do not stop the process). The fuzz targets
# have their own ASan+UBSan build (scripts/fuzz.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
kind=${1:-}
case $kind in
  address) short=asan ;;
  thread) short=tsan ;;
  *) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
export BUILD_DIR=${BUILD_DIR:-build-$short}
export CMAKE_ARGS="${CMAKE_ARGS:-} -DSLUICE_SANITIZE=$kind"
export SKIP_FUZZ=1
export SKIP_THREAD_SAFETY=1  # the same analysis as the normal build's
SAN_LOGS=${SAN_LOGS:-/tmp/sluice-$short-reports}
rm -rf "$SAN_LOGS"; mkdir -p "$SAN_LOGS"
export ASAN_OPTIONS="log_path=$SAN_LOGS/asan:detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="log_path=$SAN_LOGS/ubsan:print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export TSAN_OPTIONS="log_path=$SAN_LOGS/tsan:halt_on_error=0:second_deadlock_stack=1:${TSAN_OPTIONS:-}"
scripts/test.sh; rc=$?
reports=$(find "$SAN_LOGS" -type f -size +0 | sort)
if [ -n "$reports" ]; then
  echo "== $kind sanitizer reports ($SAN_LOGS)"
  for f in $reports; do echo "--- $f"; head -40 "$f"; done
  echo "sanitize $kind: $(echo "$reports" | wc -l) report(s)"
  exit 1
fi
echo "sanitize $kind: no reports"
exit $rc
