#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The root memcg's share of the shrinker bookkeeping (kernel/patches/root-deferred):
# slab caches' active objects and the kernel's Slab at boot, with N more tmpfs
# mounts (N memcg-aware, NUMA-aware shrinkers), and after they are unmounted.
# No cgroup is created: the root is the only memcg. Usage: rootunits.sh [N]
n=${1:-2000}
mount -t proc proc /proc 2>/dev/null
mount -t sysfs sys /sys 2>/dev/null
snap() {
	awk -v at="$1" '$1 ~ /^kmalloc-(32|64|96|128|192|256|512|1k|2k|4k|8k)$/ {
		printf "%s %s objs %s\n", at, $1, $2 }' /proc/slabinfo
	awk -v at="$1" '/^(Slab|SUnreclaim):/ { printf "%s %s kB %s\n", at, $1, $2 }' /proc/meminfo
	echo "$1 shrinkers $(ls /sys/kernel/debug/shrinker 2>/dev/null | wc -l)"
}
mount -t debugfs none /sys/kernel/debug 2>/dev/null
mkdir -p /mnt/r
echo 2 > /proc/sys/vm/drop_caches
snap boot
i=0
while [ $i -lt "$n" ]; do
	mkdir /mnt/r/$i && mount -t tmpfs -o size=4k t /mnt/r/$i || exit 1
	i=$((i + 1))
done
echo 2 > /proc/sys/vm/drop_caches
snap mounted
i=0
while [ $i -lt "$n" ]; do
	umount /mnt/r/$i || exit 1
	i=$((i + 1))
done
sleep 1
echo 2 > /proc/sys/vm/drop_caches
snap unmounted
