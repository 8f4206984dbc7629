#!/usr/bin/env bash
# ctest package_deb: builds the .deb from the binary already built (no rebuild),
# checks its control fields and contents, imports its Python package from the
# extracted .deb (dpkg-deb -x into a temporary folder, PYTHONPATH set: nothing is
# installed), then — as root with dpkg — installs it, runs docs/ci.md's recipes with
# the installed /usr/bin/shardplan, imports the installed Python package with
# Debian's python3, and removes it (checking that nothing of it is left).
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
depends="$(dpkg-deb -f "$deb" Depends)"
# The Python module, when the build has one (cmake/packaging.cmake writes its path).
python_module="$(cat "$build/deb-python.txt")"
linkage="$(ldd "$build/shardplan" 2>&1)" || true  # ldd exits 1 on a static executable
if grep -q 'not a dynamic executable' <<<"$linkage" && [ "$python_module" = off ]; then
  [ -z "$depends" ] || fail "a static binary alone declares Depends: $depends"
else
  # A dynamic binary or the Python module: the libraries they link, libc first of all.
  grep -q 'libc6' <<<"$depends" || fail "the package's shared objects need their libraries in Depends: '$depends'"
fi
module_name=""
if [ "$python_module" != off ]; then
  module_name="$(basename "$python_module")"  # _core.cpython-311-x86_64-linux-gnu.so
  # The python3 of the module's ABI, as Debian's python3-* packages depend on it.
  abi="$(sed -n 's/^_core\.cpython-\([0-9]\)\([0-9]*\)-.*/\1.\2/p' <<<"$module_name")"
  [ -n "$abi" ] || fail "cannot read the Python version from $module_name"
  next="${abi%%.*}.$(( ${abi#*.} + 1 ))"
  grep -qF "python3 (>= $abi~)" <<<"$depends" && grep -qF "python3 (<< $next)" <<<"$depends" ||
    fail "Depends lacks python3 (>= $abi~), python3 (<< $next): '$depends'"
  grep -q 'libyaml-cpp' <<<"$depends" || fail "the module links libyaml-cpp, Depends does not name it: '$depends'"
fi
# Contents: the binary, the man page, both completions, the schemas, the Python package.
contents="$(dpkg-deb -c "$deb" | awk '{print $NF}')"
paths=(./usr/bin/shardplan ./usr/share/man/man1/shardplan.1 ./usr/share/bash-completion/completions/shardplan
       ./usr/share/zsh/vendor-completions/_shardplan)
for schema in schemas/*.json; do paths+=("./usr/share/shardplan/$schema"); done
site=./usr/lib/python3/dist-packages/shardplan
if [ "$python_module" != off ]; then
  paths+=("$site/$module_name")
  for source in python/shardplan/*.py; do paths+=("$site/$(basename "$source")"); done
fi
for path in "${paths[@]}"; do
  grep -qx "$path" <<<"$contents" || fail "$path is not in $deb"
done
echo "built $deb ($(stat -c %s "$deb") bytes); Depends: ${depends:-(none)}"

# The Python package from the extracted .deb, without installing anything: Debian's
# python3 (the one the Depends name) imports it and plans as the packaged binary does.
python3_debian=/usr/bin/python3
plan_with_python='import sys, shardplan
assert shardplan.__file__.startswith(sys.argv[1]), shardplan.__file__
assert shardplan._core is not None and shardplan._core.__file__.startswith(sys.argv[1]), shardplan._core
sys.stdout.write(shardplan.dumps(shardplan.plan(sys.argv[2])))'
if [ "$python_module" != off ]; then
  if [ ! -x "$python3_debian" ] || ! "$python3_debian" -c "import sys; assert '%d.%d' % sys.version_info[:2] == '$abi'"; then
    if [ "${CI:-}" = true ]; then fail "no $python3_debian of Python $abi: the package's Python part cannot be checked"; fi
    echo "SKIPPED: no $python3_debian of Python $abi to import the package's module with" >&2
    exit 4
  fi
  unpacked="$(mktemp -d)"
  trap 'rm -rf "$unpacked"' EXIT
  dpkg-deb -x "$deb" "$unpacked"
  "$unpacked/usr/bin/shardplan" plan --config "$repo/configs/quickstart.json" -o "$unpacked/cli-plan.json" 2>/dev/null
  (cd / && PYTHONPATH="$unpacked/usr/lib/python3/dist-packages" "$python3_debian" -c "$plan_with_python" \
     "$unpacked/usr/lib/python3/dist-packages/shardplan/" "$repo/configs/quickstart.json") > "$unpacked/python-plan.json" ||
    fail "python3 cannot import the extracted package's shardplan"
  cmp -s "$unpacked/cli-plan.json" "$unpacked/python-plan.json" ||
    fail "the extracted package's Python plan differs from its binary's"
  rm -rf "$unpacked"
  trap - EXIT
  echo "imported shardplan from the extracted .deb with $python3_debian; its plan equals the binary's"
fi

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
if command -v man >/dev/null; then
  man -l /usr/share/man/man1/shardplan.1 2>/dev/null | grep -q 'shardplan plan' || fail "the installed man page does not render"
fi
# docs/ci.md's recipes with the installed binary on PATH.
SHARDPLAN_CI_BIN_DIR=/usr/bin "$build/shardplan_tests" '[ci]' >/dev/null || fail "docs/ci.md's recipes failed"
if [ "$python_module" != off ]; then
  # Installed: Debian's python3 finds the package on its own path (no PYTHONPATH),
  # from a folder outside the clone (which has a python/shardplan of its own).
  (cd / && env -u PYTHONPATH "$python3_debian" -c "$plan_with_python" \
     /usr/lib/python3/dist-packages/shardplan/ "$repo/configs/quickstart.json") > "$out/installed-python-plan.json" ||
    fail "Debian's python3 cannot import the installed shardplan"
  /usr/bin/shardplan plan --config "$repo/configs/quickstart.json" -o "$out/installed-cli-plan.json" 2>/dev/null
  cmp -s "$out/installed-cli-plan.json" "$out/installed-python-plan.json" ||
    fail "the installed Python package plans differently from the installed binary"
fi
dpkg -r shardplan >/dev/null
trap - EXIT
[ ! -e /usr/bin/shardplan ] || fail "dpkg -r left /usr/bin/shardplan"
[ ! -e /usr/lib/python3/dist-packages/shardplan ] || fail "dpkg -r left /usr/lib/python3/dist-packages/shardplan"
echo "installed, ran docs/ci.md's recipes and imported the Python package, removed"
