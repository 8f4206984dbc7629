#!/usr/bin/env bash
# Installs the Debian packages shardplan builds with and README's commands use,
# only those that are missing. Works as root, or as a user through sudo; without
# either it says what to run and stops.
set -euo pipefail

packages=(g++ cmake make libcli11-dev libyaml-cpp-dev nlohmann-json3-dev libfmt-dev catch2 python3 python3-jsonschema
          python3-dev pybind11-dev)  # the Python package (python/, scripts/quickstart.sh)
# Options add what only some scripts use:
#   --for-tests  headless chromium, for the report screenshot test, and clang-format, for
#                scripts/check-format (both run by scripts/test.sh)
#   --for-fuzz   clang and its sanitizer and libFuzzer runtimes (scripts/test-sanitized,
#                scripts/fuzz). libclang-rt-dev is only a recommendation of clang, so
#                --no-install-recommends alone leaves -fsanitize unable to link.
#   --for-mip    coinor-cbc, the exact MIP solver scripts/mip_oracle runs: an independent exact
#                check of the optimizing partitioner (issue 30); used by that script only.
for option in "$@"; do
  case "$option" in
    --for-tests) packages+=(chromium clang-format) ;;
    --for-fuzz) packages+=(clang libclang-rt-dev) ;;
    --for-mip) packages+=(coinor-cbc) ;;
    *) echo "install-deps: unknown option '$option' (expected --for-tests, --for-fuzz or --for-mip)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: every package is installed (${packages[*]})"
  exit 0
fi

root_advice() {
  echo "install-deps: as root, run:  apt-get update && apt-get install --no-install-recommends ${missing[*]}" >&2
  echo "install-deps: then run your command (scripts/quickstart.sh or scripts/test.sh) again." >&2
}

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "install-deps: these Debian packages are missing: ${missing[*]}" >&2
    echo "install-deps: this user is not root and sudo is not installed, so they cannot be installed from here." >&2
    root_advice
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}${as_root:+ (through sudo)}"
# sudo can refuse (not in sudoers, no terminal for the password): say what to do then.
if ! "${as_root[@]}" apt-get update ||
   ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; then
  echo "install-deps: installing the packages failed (see the message above)." >&2
  if [ ${#as_root[@]} -gt 0 ]; then root_advice; fi
  exit 1
fi
