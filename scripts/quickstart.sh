#!/usr/bin/env bash
# README's first command: install what is missing, build the shardplan binary only
# (not the tests) and the Python package, put them on PATH and on python3's path,
# and plan the example model.
# PREFIX=DIR installs into DIR/bin (default: /usr/local as root, ~/.local otherwise).
# The Python package goes where the `python3` on PATH imports from: its site-packages
# as root (or in a virtual environment), the user site (~/.local/lib/pythonX.Y/
# site-packages) otherwise, DIR/lib/pythonX.Y/site-packages with PREFIX=DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/build.sh shardplan
python_built=0
# The target exists when CMake found python3's headers and pybind11 (CMakeLists.txt).
targets=$(cmake --build build --target help 2>/dev/null || true)
if [[ "$targets" == *shardplan_python* ]]; then
  scripts/build.sh shardplan_python && python_built=1
fi
prefix_given=${PREFIX:+1}
if [ -z "${PREFIX:-}" ]; then
  if [ "$(id -u)" -eq 0 ]; then PREFIX=/usr/local; else PREFIX="$HOME/.local"; fi
fi
echo "+ cmake --install build --prefix $PREFIX"
cmake --install build --prefix "$PREFIX"
case ":$PATH:" in
  *":$PREFIX/bin:"*) shardplan="shardplan" ;;
  *)
    shardplan="$PREFIX/bin/shardplan"
    echo "note: $PREFIX/bin is not on PATH; add it:  export PATH=\"$PREFIX/bin:\$PATH\"" ;;
esac
if [ "$python_built" = 1 ]; then
  # Where python3 imports from; the same python the module was built for (CMakeCache).
  site=$(PREFIX_GIVEN="${prefix_given:-}" PREFIX="$PREFIX" python3 - <<'PY'
import os, site, sysconfig
if os.environ.get("PREFIX_GIVEN"):
    prefix = os.environ["PREFIX"]
    print(sysconfig.get_path("platlib", vars={"base": prefix, "platbase": prefix}))
else:
    platlib = sysconfig.get_path("platlib")
    writable = os.access(platlib if os.path.isdir(platlib) else os.path.dirname(platlib), os.W_OK)
    print(platlib if os.geteuid() == 0 or writable else site.getusersitepackages())
PY
)
  echo "+ install build/python/shardplan -> $site/shardplan"
  mkdir -p "$site/shardplan"
  rm -f "$site"/shardplan/_core*.so
  cp build/python/shardplan/*.py build/python/shardplan/_core*.so "$site/shardplan/"
  if (cd / && python3 -c "import shardplan, shardplan._core") 2>/dev/null; then
    echo "python3 -c 'import shardplan' works ($(cd / && python3 -c 'import shardplan, os; print(os.path.dirname(shardplan.__file__))'))"
  else
    echo "note: $site is not on python3's path; add it:  export PYTHONPATH=\"$site:\$PYTHONPATH\""
  fi
else
  echo "note: the Python package was not built (python3 headers or pybind11-dev missing)"
fi
echo "+ shardplan plan --config configs/quickstart.json -o build/quickstart-plan.json"
"$shardplan" plan --config configs/quickstart.json -o build/quickstart-plan.json
echo "plan written to build/quickstart-plan.json ($(( $(date +%s) - start )) s in all)"
