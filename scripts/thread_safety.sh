#!/usr/bin/env bash
# Clang's thread-safety analysis over every translation unit of a build:
# the GUARDED_BY / REQUIRES / EXCLUDES attributes (base/thread_annotations.h)
# are checked, and any violation fails. Syntax only (no objects), with
# Debian's clang-14 (scripts/deps.sh installs it), in parallel (JOBS, default
# nproc).
#
#   scripts/thread_safety.sh [FILE...]   all TUs, or only those named
#
# The TUs and their flags come from $BUILD_DIR/compile_commands.json (default
# build/, which the normal GCC build writes; the generated protobuf sources
# there have no annotations and are skipped, their headers must exist: run
# after the build). GCC's warning flags are dropped: only the thread-safety
# group is asked for, as an error; clang's default warnings still print.
# Prints the failing TUs' diagnostics and ends with one
# "thread-safety: N TUs checked, N failed" line; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build}
CLANGXX=${CLANGXX:-clang++-14}
CLANGC=${CLANGC:-clang-14}
DB="$BUILD/compile_commands.json"
if [ ! -f "$DB" ]; then
  echo "thread-safety: $DB missing (run scripts/build.sh first)" >&2
  exit 1
fi
if ! command -v "$CLANGXX" >/dev/null; then
  echo "thread-safety: $CLANGXX missing (scripts/deps.sh installs clang-14)" >&2
  exit 1
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# One line per TU: a NUL-free shell command that checks it. Python only for
# reading the JSON and quoting.
python3 - "$DB" "$PWD" "$CLANGXX" "$CLANGC" "$WORK" "$@" > "$WORK/cmds" <<'PY' || exit 1
import json, os, shlex, sys
db, root, clangxx, clangc, work = sys.argv[1:6]
only = {os.path.realpath(f) for f in sys.argv[6:]}
build = os.path.realpath(os.path.dirname(db))
# Boost 1.74's asio looks for clang's coroutines in <experimental/coroutine>
# (libc++); with libstdc++'s <coroutine> (as GCC uses) it must be told.
flags = ["-fsyntax-only", "-Wno-unknown-warning-option",
         "-Wthread-safety", "-Werror=thread-safety",
         "-DBOOST_ASIO_HAS_CO_AWAIT=1", "-DBOOST_ASIO_HAS_STD_COROUTINE=1"]
for n, e in enumerate(json.load(open(db))):
    f = os.path.realpath(os.path.join(e["directory"], e["file"]))
    if only and f not in only:
        continue
    if f.startswith(build + os.sep):
        continue  # generated (protobuf): no annotations
    args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
    out = [clangc if f.endswith(".c") else clangxx]
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a in ("-c", "-g") or a.startswith("-W") or a.startswith("-O"):
            continue
        out.append(a)
    out += flags
    log = os.path.join(work, "%d.log" % n)
    rel = os.path.relpath(f, root)
    print("cd %s && %s >%s 2>&1 || echo %s >>%s/failed" % (
        shlex.quote(e["directory"]), " ".join(shlex.quote(a) for a in out),
        shlex.quote(log), shlex.quote(rel + " " + log), shlex.quote(work)))
PY

total=$(wc -l < "$WORK/cmds")
start=$(date +%s)
tr '\n' '\0' < "$WORK/cmds" | xargs -0 -P "${JOBS:-$(nproc)}" -n 1 bash -c
failed=0
if [ -f "$WORK/failed" ]; then
  while read -r file log; do
    failed=$((failed + 1))
    echo "== $file"
    cat "$log"
  done < <(sort "$WORK/failed")
fi
echo "thread-safety: $total TUs checked, $failed failed ($(($(date +%s) - start)) s)"
[ "$failed" -eq 0 ]
