#!/usr/bin/env bash
# Installs what sluice needs to build and test, on Debian 12, when missing:
# the build chain and libraries, the real clients the tests drive (and
# mariadb-server-core: mariadbd and mariadb-install-db of Debian's
# mariadb-server, for private MariaDB servers such as the replica in
# tests/clients/test_mariadb_replica.py, without the system service), and a
# Python venv (.venv) with the Python clients. Idempotent; needs root (or
# sudo) only when something is missing. clang-14 with its sanitizer and
# libFuzzer runtimes (libclang-rt-14-dev) and llvm-symbolizer (llvm-14) are
# for the fuzz targets (scripts/fuzz.sh, docs/fuzzing.md); clang-14 also
# runs the thread-safety analysis (scripts/thread_safety.sh, from test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential cmake ninja-build ccache pkg-config
      libboost-dev libboost-program-options-dev libssl-dev libspdlog-dev libfmt-dev
      libprotobuf-dev protobuf-compiler libgtest-dev libgmock-dev zlib1g-dev libcrypt-dev libicu-dev
      nlohmann-json3-dev
      mariadb-client mariadb-test mariadb-server-core sysbench python3 python3-venv python3-pip openssl procps
      clang-14 libclang-rt-14-dev llvm-14)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python clients for the client tests, in a venv of our own.
VENV=.venv
PY_PKGS=("PyMySQL[rsa]==1.2.4" "mysql-connector-python==9.1.0" "mysql-replication==1.0.17")
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c 'import pymysql, mysql.connector, cryptography, pymysqlreplication' 2>/dev/null \
   || [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("mysql-replication"))' 2>/dev/null)" != 1.0.17 ]; then
  "$VENV/bin/pip" install -q --disable-pip-version-check "${PY_PKGS[@]}"
fi

# go-mysql's BinlogSyncer for tests/clients/test_dump_readers.py: a small Go
# program built against github.com/go-mysql-org/go-mysql v1.16.0 (from the Go
# module proxy), rebuilt when the binary is missing or older than its source.
# go-mysql v1.16.0 needs Go >= 1.25; Debian 12's golang-go (1.19) is too old,
# so with only that Go the build is skipped and the test says so.
GO_DIR=tests/clients/go/binlogreader
GO_BIN=tests/clients/go/bin/binlogreader
GO=""
for g in "$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go /usr/lib/go/bin/go; do
  if [ -n "$g" ] && [ -x "$g" ]; then GO="$g"; break; fi
done
if [ -z "$GO" ]; then
  echo "deps: installing golang-go"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends golang-go >/dev/null
  GO="$(command -v go)"
fi
go_ver="$("$GO" env GOVERSION 2>/dev/null || "$GO" version | awk '{print $3}')"
go_minor="$(echo "$go_ver" | sed -E 's/^go1\.([0-9]+).*/\1/')"
if ! [[ "$go_minor" =~ ^[0-9]+$ ]] || [ "$go_minor" -lt 25 ]; then
  echo "deps: $go_ver is older than go1.25 (go-mysql v1.16.0): $GO_BIN not built, its tests are skipped"
elif [ ! -x "$GO_BIN" ] || [ -n "$(find "$GO_DIR" -newer "$GO_BIN" -type f 2>/dev/null)" ]; then
  echo "deps: building $GO_BIN with $go_ver"
  (cd "$GO_DIR" && GOFLAGS=-mod=readonly "$GO" build -o ../bin/binlogreader .)
fi
