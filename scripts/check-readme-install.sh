#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's "Install and use" block, run as a new user pastes it: the
# block's lines as they stand, in a copy of the tree as a clone has it (no
# build directories), with a scratch HOME, the README's C example saved as
# app.c beside it. It must build and install the library, then build the
# program against the installed copy with pkg-config and run it: the
# program's line ("reclaim freed ...") must come out, and the program must
# load libshrinker.so.1 from the scratch HOME. A block that names a
# pkg-config or library path the install does not make (Debian's multiarch
# libdir), or that no longer runs, fails.
#
# Usage: scripts/check-readme-install.sh SCRATCHDIR    (make check-readme-install)
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
scratch=${1:?usage: check-readme-install.sh SCRATCHDIR}
fail() { printf 'check-readme-install: FAILED: %s\n' "$*" >&2; exit 1; }

rm -rf "$scratch"
mkdir -p "$scratch/home" "$scratch/tree"
scratch=$(cd "$scratch" && pwd)
tree=$scratch/tree

# The tree as a clone has it: tracked files and new ones git does not ignore.
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -P -t "$tree" 2>/dev/null) || true
	# Files deleted in the work tree but still in the index are not the clone's.
	[ -f "$tree/meson.build" ] || fail "could not copy the tree"
else
	tar -C "$src" --exclude='./build*' -cf - . | tar -C "$tree" -xf -
fi

python3 - "$src/README.md" "$scratch/block.sh" <<'EOF'
import re, sys
text = open(sys.argv[1], encoding='utf-8').read()
part = text.split('\n## Install and use\n', 1)
if len(part) != 2:
    sys.exit('check-readme-install: README.md has no "## Install and use" section')
blocks = re.findall(r'^```sh\n(.*?)^```$', part[1].split('\n## ', 1)[0], re.S | re.M)
if len(blocks) != 1:
    sys.exit(f'check-readme-install: "Install and use" has {len(blocks)} sh blocks, expected one')
open(sys.argv[2], 'w').write(blocks[0])
EOF
python3 "$src/tests/api/readme_example.py" "$src/README.md" "$tree/app.c"

printf '# the README'"'"'s install block, in %s with HOME=%s:\n' "$tree" "$scratch/home"
sed 's/^/#   /' "$scratch/block.sh"
log=$scratch/block.log
# A new user's environment: PATH, the scratch HOME, and the ccache settings
# of this machine (a cache outside HOME, or ccache off) and nothing else.
keep=()
for v in CCACHE_DIR CCACHE_DISABLE; do
	[ -z "${!v:-}" ] || keep+=("$v=${!v}")
done
if ! (cd "$tree" && env -i PATH="$PATH" HOME="$scratch/home" LANG=C.UTF-8 "${keep[@]}" \
	bash -e -o pipefail "$scratch/block.sh") >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	fail "the README's install block exited non-zero (whole output: $log)"
fi
line=$(grep -E '^reclaim freed [0-9]+ objects, [0-9]+ left$' "$log" || true)
[ -n "$line" ] || { tail -n 20 "$log" >&2; fail "the program did not print its line"; }
printf '# it printed: %s\n' "$line"

# The program the block built loads the library the block installed.
lib=$(cd "$tree" && env -i PATH="$PATH" HOME="$scratch/home" bash -c \
	"$(grep '^export ' "$scratch/block.sh"); ldd ./a.out" | awk '/libshrinker\.so\.1/ {print $3}')
case "$lib" in
"$scratch/home/"*) printf '# a.out loads %s\n' "$lib" ;;
*) fail "a.out loads libshrinker.so.1 from '${lib:-nowhere}', not from the scratch HOME" ;;
esac
rm -rf "$tree/build-home"
echo "check-readme-install: ok"
