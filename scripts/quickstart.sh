#!/usr/bin/env bash
# README's first command: install what is missing, build the shardplan binary only
# (not the tests), put it on PATH, and plan the example model.
# PREFIX=DIR installs into DIR/bin (default: /usr/local as root, ~/.local otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/build.sh shardplan
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
echo "+ shardplan plan --config configs/quickstart.json -o build/quickstart-plan.json"
"$shardplan" plan --config configs/quickstart.json -o build/quickstart-plan.json
echo "plan written to build/quickstart-plan.json ($(( $(date +%s) - start )) s in all)"
