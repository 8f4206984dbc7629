#!/usr/bin/env bash
# Builds the Debian package of shardplan from the binary and the Python module in
# build/ (built first if missing): build/package/shardplan_VERSION_ARCH.deb, or into
# DIR when given.
# Usage: scripts/package-deb.sh [DIR]
# Installs as: apt-get install ./shardplan_VERSION_ARCH.deb (or dpkg -i).
set -euo pipefail
cd "$(dirname "$0")/.."
# SHARDPLAN_BUILD_DIR: the build tree to package (default build/).
build="${SHARDPLAN_BUILD_DIR:-build}"
out="${1:-$build/package}"
if [ ! -x "$build/shardplan" ] || [ ! -f "$build/CPackConfig.cmake" ]; then
  scripts/build.sh shardplan
fi
# The Python module, when the build has one (build/deb-python.txt names its file;
# "off" when python3-dev or pybind11-dev were missing, or SHARDPLAN_PYTHON=OFF).
python_module="$(cat "$build/deb-python.txt" 2>/dev/null || echo off)"
if [ "$python_module" != off ] && [ ! -f "$python_module" ]; then
  cmake --build "$build" --target shardplan_python
fi
if [ "$python_module" = off ]; then
  echo "note: this build has no Python module; the package will not have the Python package" >&2
fi
# The completion scripts are written when shardplan is linked; a build from before
# packaging existed lacks them.
if [ ! -f "$build/completion/shardplan" ]; then
  mkdir -p "$build/completion"
  "$build/shardplan" completion bash > "$build/completion/shardplan"
  "$build/shardplan" completion zsh > "$build/completion/_shardplan"
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
# cpack installs the project's install() rules into a staging tree and packs it; it
# does not rebuild (the binary is the one in the build tree).
(cd "$build" && cpack -G DEB -B "$out" >/dev/null)
rm -rf "$out/_CPack_Packages"
ls "$out"/shardplan_*.deb
