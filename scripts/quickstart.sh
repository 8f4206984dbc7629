#!/usr/bin/env bash
# README's first command: install, build, and plan the example model.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
echo "+ build/shardplan plan --config configs/quickstart.json -o build/quickstart-plan.json"
build/shardplan plan --config configs/quickstart.json -o build/quickstart-plan.json
echo "plan written to build/quickstart-plan.json"
