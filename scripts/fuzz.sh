#!/usr/bin/env bash
# libFuzzer runs of sluice's decoders (docs/fuzzing.md).
#
#   scripts/fuzz.sh NAME SECONDS   build (if needed) and fuzz one target for SECONDS
#   scripts/fuzz.sh all SECONDS    each target in turn, SECONDS each
#   scripts/fuzz.sh replay [NAME]  run the checked-in corpus and fuzz/regressions once
#   scripts/fuzz.sh ci [SECONDS]   replay, then each target SECONDS (default 20);
#                                  ends with "fuzz: N passed, N failed" (scripts/test.sh)
# NAME: sql, protocol, command, binlog, exec (the fuzz_<NAME> targets in fuzz/).
#
# The build goes to build-fuzz/ (clang, -DSLUICE_FUZZ=ON: ASan+UBSan and
# libFuzzer coverage), only the fuzz targets and the libraries they link.
# The seed corpus in fuzz/corpus/NAME is read, never written: new inputs go
# to $FUZZ_WORK/NAME/corpus (default /tmp/sluice-fuzz), crash/leak/timeout
# inputs to $FUZZ_WORK/NAME/ (crash-*, leak-*, timeout-*). Exits non-zero
# when a run found a crash, a leak or a timeout. Runs under nice -n 10.
set -uo pipefail
cd "$(dirname "$0")/.."

TARGETS=(sql protocol command binlog exec)
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
WORK=${FUZZ_WORK:-/tmp/sluice-fuzz}

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

# Longest input per target: the parser's recursion on deep nesting is
# bounded separately, so SQL inputs stay at statement size.
max_len() {
  case $1 in
    sql|exec) echo 4096 ;;
    protocol|command) echo 8192 ;;
    binlog) echo 65536 ;;
  esac
}

find_clang() {
  for v in "" -14 -15 -16 -17 -18 -19; do
    if command -v "clang++$v" >/dev/null 2>&1 && command -v "clang$v" >/dev/null 2>&1; then
      echo "$v"; return 0
    fi
  done
  return 1
}

build() {  # build NAME...
  if [ ! -f "$BUILD/build.ninja" ]; then
    local v
    if ! v=$(find_clang); then
      echo "fuzz: clang not found (scripts/deps.sh installs it)" >&2
      return 1
    fi
    CC="clang$v" CXX="clang++$v" cmake -S . -B "$BUILD" -G Ninja -DSLUICE_FUZZ=ON \
      -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" >/dev/null || return 1
  fi
  local t=()
  for n in "$@"; do t+=("fuzz_$n"); done
  nice -n 10 ninja -C "$BUILD" "${t[@]}"
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ]; then
  for s in llvm-symbolizer llvm-symbolizer-14 llvm-symbolizer-15 llvm-symbolizer-16; do
    if command -v "$s" >/dev/null 2>&1; then export ASAN_SYMBOLIZER_PATH=$(command -v "$s"); break; fi
  done
fi

# replay NAME: every seed and every kept regression input, once.
replay() {
  local n=$1 files=()
  for d in "fuzz/corpus/$n" "fuzz/regressions/$n"; do
    [ -d "$d" ] && while IFS= read -r f; do files+=("$f"); done < <(find "$d" -type f ! -name '*.md' | sort)
  done
  if [ ${#files[@]} -eq 0 ]; then echo "fuzz: $n: nothing to replay"; return 0; fi
  local log="$WORK/$n/replay.log"
  mkdir -p "$WORK/$n"
  if nice -n 10 "$BUILD/bin/fuzz_$n" -rss_limit_mb=2048 -timeout=10 "${files[@]}" >"$log" 2>&1; then
    echo "fuzz: $n: replayed ${#files[@]} inputs"
  else
    tail -40 "$log"
    echo "fuzz: $n: replay FAILED (log: $log)"
    return 1
  fi
}

# libFuzzer flags of one target. The SQL targets get the dictionary of the
# words the grammar knows (fuzz/sql.dict, from fuzz/make_dict.py).
# fuzz_exec keeps its world (engine, binlog) from input to input, so each
# input would end in a leak scan of it all; leaks are still checked when
# the process exits.
extra_flags() {
  case $1 in
    sql) echo -dict=fuzz/sql.dict ;;
    exec) echo -dict=fuzz/sql.dict -detect_leaks=0 ;;
  esac
}

# run NAME SECONDS
run() {
  local n=$1 secs=$2
  local dir="$WORK/$n"
  mkdir -p "$dir/corpus"
  local log="$dir/fuzz-$(date +%Y%m%d-%H%M%S).log"
  echo "fuzz: $n for ${secs}s (log: $log)"
  nice -n 10 "$BUILD/bin/fuzz_$n" "$dir/corpus" "fuzz/corpus/$n" \
    -max_total_time="$secs" -max_len="$(max_len "$n")" -timeout=10 -rss_limit_mb=2048 $(extra_flags "$n") \
    -artifact_prefix="$dir/" -print_final_stats=1 >"$log" 2>&1
  local rc=$?
  grep -E "^#[0-9]+ +DONE|^Done [0-9]+ runs" "$log" | tail -2
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log"
  if [ $rc -ne 0 ]; then
    grep -E "ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|runtime error|SUMMARY|Test unit written" "$log" | head -8
    echo "fuzz: $n FAILED (rc $rc; inputs in $dir)"
    return 1
  fi
}

valid() { for t in "${TARGETS[@]}"; do [ "$t" = "$1" ] && return 0; done; return 1; }

[ $# -ge 1 ] || usage
case $1 in
  all)
    [ $# -eq 2 ] || usage
    build "${TARGETS[@]}" || exit 1
    rc=0
    for t in "${TARGETS[@]}"; do run "$t" "$2" || rc=1; done
    exit $rc
    ;;
  replay)
    names=("${TARGETS[@]}")
    [ $# -ge 2 ] && names=("$2")
    build "${names[@]}" || exit 1
    rc=0
    for t in "${names[@]}"; do replay "$t" || rc=1; done
    exit $rc
    ;;
  ci)
    secs=${2:-20}
    pass=0; fail=0
    if ! build "${TARGETS[@]}"; then
      echo "fuzz: 0 passed, 1 failed"; exit 1
    fi
    for t in "${TARGETS[@]}"; do
      if replay "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
      if run "$t" "$secs"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    done
    echo "fuzz: $pass passed, $fail failed"
    [ $fail -eq 0 ]
    ;;
  *)
    [ $# -eq 2 ] || usage
    valid "$1" || { echo "fuzz: unknown target '$1' (${TARGETS[*]})" >&2; exit 2; }
    build "$1" || exit 1
    replay "$1" || exit 1
    run "$1" "$2"
    ;;
esac
