#!/usr/bin/env bash
# Installs what is missing, then configures and builds into build/.
# Usage: scripts/build.sh [TARGET...]   (default: everything, tests included)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
# cmake prints "[ 42%] Building ..." per file: that is the progress.
cmake --build build -j"$(nproc)" "${targets[@]}"
