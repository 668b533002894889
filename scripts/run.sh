#!/usr/bin/env bash
# Builds sluiced and runs it in the foreground on 127.0.0.1:3306 with its
# data in ./data (initialised on first start: root@localhost, no password).
# Extra arguments go to sluiced, e.g. scripts/run.sh --port=3307.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh sluiced
exec build/bin/sluiced --bind-address=127.0.0.1 --port=3306 --datadir=./data "$@"
