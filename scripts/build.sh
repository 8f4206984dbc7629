#!/usr/bin/env bash
# Installs what is missing, then configures and builds into build/.
# Usage: scripts/build.sh [TARGET...]   (default: everything, tests included)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# ccache, where installed, makes rebuilds of unchanged files free (not required).
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Paths relative to the clone, so two clones share the cache.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
fi
# SHARDPLAN_WERROR=ON (scripts/test.sh sets it): warnings fail the build.
cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" -DSHARDPLAN_WERROR="${SHARDPLAN_WERROR:-OFF}" \
  "${launcher[@]}" >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
# cmake prints "[ 42%] Building ..." per file: that is the progress.
cmake --build build -j"$(nproc)" "${targets[@]}"
