#!/usr/bin/env bash
# Install the Debian packages libshrinker needs, only when some are missing.
# A no-op (no apt call at all) when everything is present.
set -euo pipefail

# g++: the public headers and the examples are checked from C++ too (gcc does
# not pull it in; build-essential would, but is not assumed). binutils: nm,
# objcopy and readelf for the installed libraries' symbols. libc6-dev: libc.a
# for the examples' -static builds. doxygen: the API reference (docs/api/).
# groff-base: shrinklab(1) is rendered with warnings on (tests/cli).
packages=(
  gcc g++ libc6-dev clang libclang-rt-14-dev binutils pkg-config meson ninja-build
  liburcu-dev libcmocka-dev gnuplot-nox python3-jsonschema doxygen groff-base
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: missing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: run as root (or install them yourself): apt-get install ${missing[*]}" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
