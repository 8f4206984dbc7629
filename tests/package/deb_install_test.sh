#!/usr/bin/env bash
# ctest package_deb: builds the .deb from the binary already built (no rebuild),
# checks its control fields and contents, then — as root with dpkg — installs it,
# runs docs/ci.md's recipes with the installed /usr/bin/shardplan, and removes it.
# Not root: the install part is skipped, loudly (exit 4 = ctest "Skipped"), except
# under CI=true, where the CI runs as root and a skip would hide the check (exit 1).
# Usage: tests/package/deb_install_test.sh BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
out="$build/package-test"
rm -rf "$out"
cd "$repo"
SHARDPLAN_BUILD_DIR="$build" scripts/package-deb.sh "$out" >/dev/null
deb="$(ls "$out"/shardplan_*.deb)"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Control fields: the name, the version the binary reports, dependencies declared.
control="$(dpkg-deb -f "$deb" Package Version Architecture)"
version="$("$build/shardplan" --version | grep -o '[0-9][0-9.]*' | head -1)"
[ "$(dpkg-deb -f "$deb" Package)" = shardplan ] || fail "Package is not shardplan: $control"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version $(dpkg-deb -f "$deb" Version) != shardplan --version $version"
linkage="$(ldd "$build/shardplan" 2>&1)" || true  # ldd exits 1 on a static executable
if grep -q 'not a dynamic executable' <<<"$linkage"; then
  [ -z "$(dpkg-deb -f "$deb" Depends)" ] || fail "a static binary declares Depends: $(dpkg-deb -f "$deb" Depends)"
else
  dpkg-deb -f "$deb" Depends | grep -q libc6 || fail "a dynamic binary must declare its libraries (Depends)"
fi
# Contents: the binary, both completions, the schemas.
contents="$(dpkg-deb -c "$deb" | awk '{print $NF}')"
for path in ./usr/bin/shardplan ./usr/share/bash-completion/completions/shardplan \
            ./usr/share/zsh/vendor-completions/_shardplan ./usr/share/shardplan/schemas/plan.schema.json; do
  grep -qx "$path" <<<"$contents" || fail "$path is not in $deb"
done
echo "built $deb ($(stat -c %s "$deb") bytes)"

if [ "$(id -u)" != 0 ] || ! command -v dpkg >/dev/null; then
  if [ "${CI:-}" = true ]; then fail "CI=true but not root with dpkg: the install check cannot run"; fi
  echo "SKIPPED: installing the .deb needs root and dpkg (run as root, or under CI=true)" >&2
  exit 4
fi
if dpkg -s shardplan >/dev/null 2>&1 || [ -e /usr/bin/shardplan ]; then
  if [ "${CI:-}" = true ]; then fail "shardplan is already installed: the test would replace it"; fi
  echo "SKIPPED: shardplan is already installed on this machine; the test will not replace it" >&2
  exit 4
fi
trap 'dpkg -r shardplan >/dev/null 2>&1 || true' EXIT
start=$(date +%s.%N)
dpkg -i "$deb" >/dev/null
echo "installed in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s"
[ "$(/usr/bin/shardplan --version)" = "$("$build/shardplan" --version)" ] || fail "the installed shardplan differs"
bash -c 'source /usr/share/bash-completion/completions/shardplan && complete -p shardplan' >/dev/null ||
  fail "the bash completion does not load"
# docs/ci.md's recipes with the installed binary on PATH.
SHARDPLAN_CI_BIN_DIR=/usr/bin "$build/shardplan_tests" '[ci]' >/dev/null || fail "docs/ci.md's recipes failed"
dpkg -r shardplan >/dev/null
trap - EXIT
[ ! -e /usr/bin/shardplan ] || fail "dpkg -r left /usr/bin/shardplan"
echo "installed, ran docs/ci.md's recipes, removed"
