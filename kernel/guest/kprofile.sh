#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kprofile: run one guest program (kwork) under perf record and leave what
# perf saw on a raw disk for the host (klab profile).
#
#   kprofile.sh OUTDISK PROG [ARGS...]
#
# KPROF_PERIOD (in /klab/env, from the host): perf's sampling period of
# cpu-clock, ns of the guest's clock: one sample per that much CPU time,
# on every CPU, with the kernel's call chain. The lab kernel has no
# kallsyms: the host names the addresses from the image's System.map.
#
# On OUTDISK, a tar archive: perf.data (perf record -a -g), stdout (PROG's,
# also copied to ours) and status (PROG's exit status).
out=/tmp/kprofile
outdisk=$1
shift
mkdir -p "$out"
echo -1 > /proc/sys/kernel/perf_event_paranoid
perf record -a -g -e cpu-clock -c "${KPROF_PERIOD:-1000000}" -N -B -q \
	-o "$out/perf.data" -- "$@" > "$out/stdout"
rc=$?
echo "$rc" > "$out/status"
cat "$out/stdout"
tar -cf "$outdisk" -C "$out" . || exit 70
exit "$rc"
