#!/usr/bin/env bash
# Configures and builds sluice into build/ (RelWithDebInfo, Ninja, ccache).
# Extra arguments are passed to ninja (e.g. a target name).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD_DIR:-build}
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} ${CMAKE_ARGS:-}
fi
ninja -C "$BUILD" "$@"
