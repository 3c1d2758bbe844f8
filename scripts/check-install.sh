#!/usr/bin/env bash
# The library as its users get it (README.md and docs/guides/INSTALL.md,
# "Install and use"), from a build directory: `meson install --destdir` into
# a staging directory inside it,
# then, against that installed copy only:
#   - the installed libraries export exactly the public API
#     (tests/api/public_api.py) and the committed ABI list
#     (src/libshrinker.symbols), with the soname libshrinker.so.1;
#   - the examples (the tenant cache in C and C++, the pressure cache in
#     C, the README's API example), compiled with `pkg-config --cflags
#     --libs libshrinker` (shared library) and `-static` with `pkg-config
#     --static`, and run: each must print its last line ("ok", or the
#     README's) and exit 0; the dynamic ones must load the staged
#     libshrinker.so.1, the static ones none;
#   - a C++ program that takes the address of every public function links
#     (every header has extern "C");
#   - the installed shrinklab finds its installed seed figures;
#   - the API reference, when the build made one (Doxygen found), is
#     installed with an entry for every public function
#     (tests/api/check_api_docs.py --html).
# pkg-config finds the staged libshrinker.pc through PKG_CONFIG_PATH, and
# PKG_CONFIG_SYSROOT_DIR maps its paths into the staging directory.
#
# Usage: scripts/check-install.sh BUILDDIR   (CC, CXX, MESON may be set)
set -euo pipefail

build=$(cd "${1:?usage: check-install.sh BUILDDIR}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
stage=$build/install-check/stage
out=$build/install-check/out
CC=${CC:-cc}
CXX=${CXX:-c++}
MESON=${MESON:-meson}
warn=(-Wall -Wextra -Wpedantic -Werror)

say() { printf '# %s\n' "$*"; }
fail() { printf 'check-install: FAILED: %s\n' "$*" >&2; exit 1; }
run() { printf '+ %s\n' "$*"; "$@"; }

rm -rf "$stage" "$out"
mkdir -p "$out"
run "$MESON" install -C "$build" --destdir "$stage" --quiet >/dev/null

pc=$(find "$stage" -name libshrinker.pc -path '*/pkgconfig/*')
[ -n "$pc" ] || fail "no libshrinker.pc installed"
PKG_CONFIG_PATH=$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
PKG_CONFIG_SYSROOT_DIR=$stage
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
# The sysroot prefixes these too.
libdir=$(pkg-config --variable=libdir libshrinker)
includedir=$(pkg-config --variable=includedir libshrinker)
prefix=$(pkg-config --variable=prefix libshrinker)
say "installed under $prefix"
(cd "$stage" && find . \( -type f -o -type l \) -not -path '*/doc/libshrinker/html/*' | sort |
	sed 's/^/#   /')
if [ -d "$prefix/share/doc/libshrinker/html" ]; then
	say "and $(find "$prefix/share/doc/libshrinker/html" -type f | wc -l) files of the API reference" \
		"(share/doc/libshrinker/html)"
fi

say "the installed libraries export exactly the public API"
soname=$(readelf -d "$libdir/libshrinker.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libshrinker.so.1 ] || fail "soname '$soname', expected libshrinker.so.1"
run python3 "$src/tests/api/public_api.py" exports "$includedir" \
	"$libdir/libshrinker.so" "$libdir/libshrinker.a" --cc "$CC"
say "the installed libraries export the ABI as committed (src/libshrinker.symbols)"
run python3 "$src/tests/api/public_api.py" abi-list "$src/src/libshrinker.symbols" \
	"$libdir/libshrinker.so" "$libdir/libshrinker.a"

cflags=$(pkg-config --cflags libshrinker)
libs=$(pkg-config --libs libshrinker)
static_libs=$(pkg-config --static --libs libshrinker)
say "pkg-config --cflags --libs: $cflags $libs"
say "pkg-config --static --libs: $static_libs"

# build NAME COMPILER STD SOURCE static|shared
build_one() {
	local name=$1 compiler=$2 std=$3 source=$4 kind=$5
	if [ "$kind" = static ]; then
		# shellcheck disable=SC2086 # pkg-config output is a word list
		run "$compiler" -std="$std" "${warn[@]}" -static "$source" -o "$out/$name" \
			$cflags $static_libs
		case $(readelf -d "$out/$name") in
		*NEEDED*) fail "$name: static build has dynamic dependencies" ;;
		esac
	else
		# shellcheck disable=SC2086
		run "$compiler" -std="$std" "${warn[@]}" "$source" -o "$out/$name" $cflags $libs
		case $(LD_LIBRARY_PATH=$libdir ldd "$out/$name") in
		*"libshrinker.so.1 => $libdir/libshrinker.so.1 "*) ;;
		*) fail "$name: does not load libshrinker.so.1 from $libdir" ;;
		esac
	fi
}

# run_one NAME EXPECTED-LAST-LINE
run_one() {
	local name=$1 expect=$2 log=$out/$1.log
	if ! LD_LIBRARY_PATH=$libdir "$out/$name" >"$log" 2>&1; then
		cat "$log"
		fail "$name exited with an error"
	fi
	sed 's/^/    /' "$log"
	[ "$(tail -n 1 "$log")" = "$expect" ] || fail "$name: last line is not '$expect'"
}

say "the examples against the installed copy"
for kind in shared static; do
	build_one "tenant_cache_$kind" "$CC" c11 "$src/examples/tenant_cache.c" "$kind"
	run_one "tenant_cache_$kind" "tenant_cache: ok"
	build_one "tenant_cache_cxx_$kind" "$CXX" c++11 "$src/examples/tenant_cache.cc" "$kind"
	run_one "tenant_cache_cxx_$kind" "tenant_cache.cc: ok"
	build_one "pressure_cache_$kind" "$CC" c11 "$src/examples/pressure_cache.c" "$kind"
	run_one "pressure_cache_$kind" "pressure_cache: ok"
done

say "the README's API example against the installed copy, as its reader builds it"
run python3 "$src/tests/api/readme_example.py" "$src/README.md" "$out/readme_example.c"
for kind in shared static; do
	build_one "readme_example_$kind" "$CC" c11 "$out/readme_example.c" "$kind"
	run_one "readme_example_$kind" "reclaim freed 1000 objects, 0 left"
done

say "C++ links every public function (extern \"C\" in every header)"
run python3 "$src/tests/api/public_api.py" cxx-source "$includedir" "$out/link_all.cc" --cc "$CC"
build_one link_all "$CXX" c++11 "$out/link_all.cc" shared
run_one link_all "$(grep -c reinterpret_cast "$out/link_all.cc") public functions linked"

say "the installed shrinklab reads its installed data"
lab=$prefix/bin/shrinklab
[ -x "$lab" ] || fail "no shrinklab in $prefix/bin"
[ -f "$prefix/share/man/man1/shrinklab.1" ] || fail "no shrinklab.1 man page"
run "$lab" --version
case $("$lab" help reproduce 2>&1) in
*"(default $prefix/share/libshrinker/seed_figures.tsv)"*) ;;
*) fail "the installed shrinklab does not default to its installed seed figures" ;;
esac
run "$lab" reproduce --experiment unit-cache-2026 --scale quick --no-plots --quiet \
	>"$out/shrinklab.log"
# the seed-claims table: the claim, our ratio, the seed's figure (31), verdicts
grep -Eq 'units_per_slab: prealloc\+units=cache +[0-9]+ +31 +agrees' "$out/shrinklab.log" ||
	fail "installed shrinklab: no seed figure beside units_per_slab ($out/shrinklab.log)"
if [ -d "$build/docs/api/html" ]; then
	say "the API reference is installed, with a page for every public function"
	html=$prefix/share/doc/libshrinker/html
	[ -f "$html/index.html" ] || fail "no API reference in $html"
	run python3 "$src/tests/api/check_api_docs.py" "$includedir" \
		"$src/src/libshrinker.symbols" --cc "$CC" --html "$html"
fi
say "check-install: ok"
