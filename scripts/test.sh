#!/usr/bin/env bash
# README's second command (and .ci/run): build, then run the whole test suite,
# then the same suite under ASan+UBSan and the fuzz targets (scripts/test-sanitized).
# The parity tests read torchrec's goldens from ../shared/cases; without that
# folder they are skipped loudly, and under CI=true its absence is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d ../shared/cases ]; then
  echo "*** ../shared/cases not found: the parity tests will be listed as Skipped${CI:+ (CI=true: they fail)} ***"
fi
scripts/install-deps.sh --for-tests
SHARDPLAN_WERROR=ON scripts/build.sh  # CI: a warning fails the build
scripts/check-unity  # every target as one unit: a file-scope name clash fails now
scripts/check-format  # every C++ file as .clang-format says
(cd build && ctest --output-on-failure -j"$(nproc)" "$@")
# Then the suite under ASan+UBSan and each fuzz target for 20 s (SHARDPLAN_SANITIZED=0 skips).
if [ "${SHARDPLAN_SANITIZED:-1}" != 0 ]; then
  scripts/test-sanitized "$@"
fi
