#!/usr/bin/env bash
# Installs what sluice needs to build and test, on Debian 12, when missing:
# the build chain and libraries, the real clients the tests drive, and a
# Python venv (.venv) with the Python clients. Idempotent; needs root (or
# sudo) only when something is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential cmake ninja-build ccache pkg-config
      libboost-dev libboost-program-options-dev libssl-dev libspdlog-dev libfmt-dev
      libprotobuf-dev protobuf-compiler libgtest-dev libgmock-dev zlib1g-dev libcrypt-dev libicu-dev
      mariadb-client mariadb-test sysbench python3 python3-venv python3-pip openssl procps)

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
PY_PKGS=("PyMySQL[rsa]==1.2.4" "mysql-connector-python==9.1.0")
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c 'import pymysql, mysql.connector, cryptography' 2>/dev/null; then
  "$VENV/bin/pip" install -q --disable-pip-version-check "${PY_PKGS[@]}"
fi
