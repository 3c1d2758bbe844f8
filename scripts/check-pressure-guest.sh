#!/usr/bin/env bash
# The reclaimer under a real kernel's memory.high, in the kernel lab's QEMU
# guest (docs/guides/PRESSURE.md, "Under a real limit"):
#   - the library as users install it (`meson install --destdir` into
#     BUILDDIR/pressure-guest/stage);
#   - examples/pressure_cache.c built -static against that copy with
#     `pkg-config --static`, and tests/pressure/cgroup_limit.c (libc only);
#   - the lab's mainline kernel (cgroup v2 with the memory controller, PSI)
#     booted with kernel/boot, which runs cgroup_limit as the guest's only
#     program: the example in a cgroup with memory.high and memory.max, with
#     and without its reclaimer, and with only the kernel's signals;
#   - the guest's output in BUILDDIR/pressure-guest/guest.txt, its console
#     in console.txt; the exit status is cgroup_limit's (0: every verdict
#     held).
# The image comes from the kernel lab (kernel/klab build mainline, which
# make check-kernel runs first); this script builds no kernel.
#
# Usage: scripts/check-pressure-guest.sh BUILDDIR [BZIMAGE]
#        (CC, MESON, KLAB_CACHE may be set)
set -euo pipefail

build=$(cd "${1:?usage: check-pressure-guest.sh BUILDDIR [BZIMAGE]}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
image=${2:-${KLAB_CACHE:-/var/cache/libshrinker}/klab-images/lab/mainline/bzImage}
out=$build/pressure-guest
stage=$out/stage
CC=${CC:-cc}
MESON=${MESON:-meson}
warn=(-Wall -Wextra -Wpedantic -Werror)

say() { printf '# %s\n' "$*"; }
fail() { printf 'check-pressure-guest: FAILED: %s\n' "$*" >&2; exit 1; }
run() { printf '+ %s\n' "$*"; "$@"; }

[ -f "$image" ] || fail "no kernel image at $image (build it with 'kernel/klab build mainline'; make check-kernel does)"
rm -rf "$out"
mkdir -p "$out"
run "$MESON" install -C "$build" --destdir "$stage" --quiet >/dev/null
pc=$(find "$stage" -name libshrinker.pc -path '*/pkgconfig/*')
[ -n "$pc" ] || fail "no libshrinker.pc installed"
PKG_CONFIG_PATH=$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG_SYSROOT_DIR=$stage
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

say "the example and the test program, static, against the installed library"
# shellcheck disable=SC2046 # pkg-config output is a word list
run "$CC" -std=c11 "${warn[@]}" -O2 -static "$src/examples/pressure_cache.c" \
	-o "$out/pressure_cache" $(pkg-config --static --cflags --libs libshrinker)
run "$CC" -std=c11 "${warn[@]}" -O2 -static "$src/tests/pressure/cgroup_limit.c" \
	-o "$out/cgroup_limit"
for exe in pressure_cache cgroup_limit; do
	case $(readelf -d "$out/$exe") in
	*NEEDED*) fail "$exe: static build has dynamic dependencies" ;;
	esac
done

say "boot $image"
status=0
"$src/kernel/boot" --mem 1024 --timeout 2400 --console "$out/console.txt" \
	--file "$out/pressure_cache:/bin/pressure_cache" \
	"$image" "$out/cgroup_limit" /bin/pressure_cache >"$out/guest.txt" || status=$?
cat "$out/guest.txt"
[ "$status" = 0 ] || fail "cgroup_limit exited $status in the guest (console: $out/console.txt)"
[ "$(tail -n 1 "$out/guest.txt")" = "cgroup_limit: ok" ] || fail "no 'cgroup_limit: ok' line"
say "check-pressure-guest: ok"
