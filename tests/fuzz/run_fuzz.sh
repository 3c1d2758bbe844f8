#!/bin/sh
# SPDX-License-Identifier: MIT
#
# make check-fuzz: one libFuzzer process per design set of fuzz_ops.c
# ("xarray": xarray, xarray+units=kmalloc, nobitmap; "array": prealloc,
# array-ondemand, flat; "indexed"), one after the other, each for SECONDS over its
# own copy of the corpus (the source tree is never written). Prints each set's final stats
# (executions, executions per second); a difference, crash or leak in
# either fails, with that fuzzer's log and the input that did it.
#
#   run_fuzz.sh FUZZ_OPS_BINARY WORK_DIR SECONDS CORPUS_DIR
set -u
if [ $# -ne 4 ]; then
	echo "usage: $0 FUZZ_OPS_BINARY WORK_DIR SECONDS CORPUS_DIR" >&2
	exit 2
fi
bin=$1 work=$2 secs=$3 src=$4

# One set after the other, each with a core to itself: three in parallel
# on a 2-core machine gave each set two thirds of a core, and the slowest
# set (xarray) fell under 200 executions per second of wall time.
run_set() {
	d="$work/fuzz-$1"
	rm -rf "$d"
	mkdir -p "$d/corpus" "$d/artifacts"
	cp "$src"/* "$d/corpus/"
	# -entropic=0: entropic scheduling's per-execution bookkeeping cost
	# 15-30% of the executions, for the same coverage over 3000 of them.
	FUZZ_OPS_SET=$1 "$bin" -max_total_time="$secs" -max_len=600 -entropic=0 \
		-print_final_stats=1 -artifact_prefix="$d/artifacts/" "$d/corpus" \
		>"$d/log" 2>&1
}

run_set xarray
xarray_rc=$?
run_set array
array_rc=$?
run_set indexed
indexed_rc=$?

rc=0
for set in xarray array indexed; do
	eval "set_rc=\$${set}_rc"
	d="$work/fuzz-$set"
	if [ "$set_rc" -ne 0 ]; then
		echo "=== fuzz_ops, design set $set: FAILED (exit $set_rc); log $d/log"
		cat "$d/log"
		ls -l "$d/artifacts"
		rc=1
	else
		echo "=== fuzz_ops, design set $set: passed"
		grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$d/log"
	fi
done
exit $rc
