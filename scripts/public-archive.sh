#!/bin/sh
# Make the installed static library from the internal one, with only the
# public API global: every object is linked into one relocatable object, in
# which the hidden symbols (everything without SHR_API) are then made local.
# A program linked against it sees exactly what libshrinker.so exports.
#
# Usage: public-archive.sh OUTPUT.a INTERNAL.a CC [CC-ARGS...]
set -eu
out=$1
in=$2
shift 2
obj=${out%.a}.o
rm -f "$out" "$obj"
"$@" -r -nostdlib -o "$obj" -Wl,--whole-archive "$in" -Wl,--no-whole-archive
objcopy --localize-hidden "$obj"
ar rcsD "$out" "$obj"
rm -f "$obj"
