#!/bin/bash
# Unpacks the bench bundle to /opt/sb; run from the repository root as
# bash .devbundle/setup.sh (run.sh and prof.sh do). Layout (make_bundle.sh):
# bin/ wrappers that set LD_LIBRARY_PATH=/opt/sb/lib for their own process
# only, libexec/ the real binaries, lib/ Debian 12 libraries, plugin/ sluice's
# semisync plugins (sluiced's default plugin_dir is <dir of its binary>/../plugin),
# share/mysql/ MariaDB's errmsg, charsets and bootstrap SQL.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
PREFIX=/opt/sb

rm -rf "$PREFIX"
mkdir -p "$PREFIX"
if xz --version >/dev/null 2>&1; then
  tar -xJf "$HERE/bundle.tar.xz" -C "$PREFIX"
else
  # A minimal image may lack xz(1): Python's lzma does the same.
  python3 - "$HERE/bundle.tar.xz" "$PREFIX" <<'PY'
import sys, tarfile
with tarfile.open(sys.argv[1], "r:xz") as t:
    if hasattr(tarfile, "fully_trusted_filter"):
        t.extractall(sys.argv[2], filter="fully_trusted")
    else:
        t.extractall(sys.argv[2])
PY
fi

# bench/replication.py runs ROOT/tests/clients/go/bin/binlogreader, which
# .gitignore keeps out of the working tree that travels.
if [ ! -x "$ROOT/tests/clients/go/bin/binlogreader" ]; then
  mkdir -p "$ROOT/tests/clients/go/bin"
  cp "$PREFIX/libexec/binlogreader" "$ROOT/tests/clients/go/bin/binlogreader"
  echo "setup: copied binlogreader to $ROOT/tests/clients/go/bin/"
fi

# The bundled libraries need glibc >= 2.36 (Debian 12's libstdc++, libcrypt).
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
echo "setup: glibc ${glibc:-unknown} (the bundle needs >= 2.36)"

# Versions first: a missing library shows here, not in the middle of a bench.
echo "setup: $(du -sh "$PREFIX" | cut -f1) in $PREFIX"
"$PREFIX/bin/mariadbd" --version
"$PREFIX/bin/sluiced" --version
"$PREFIX/bin/mariadb" --version
"$PREFIX/bin/mariadb-slap" --version
"$PREFIX/bin/mariadb-binlog" --version
"$PREFIX/bin/sluice-lockbench" --help 2>&1 | head -1
ls "$PREFIX/plugin"
echo "setup: now use"
echo "export PATH=$PREFIX/bin:\$PATH SLUICED=$PREFIX/bin/sluiced"
