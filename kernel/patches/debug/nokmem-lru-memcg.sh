#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nokmem stale-id check: a cgroup fills a fresh procfs's dentries while
# list_lru.nokmem_memcg=1 passes its memcg to list_lrus that are not memcg aware
mount -t proc proc /proc 2>/dev/null
mount -t sysfs sys /sys 2>/dev/null
P=/sys/module/list_lru/parameters
mkdir -p /cg /mnt/p
mount -t cgroup2 none /cg
echo +memory > /cg/cgroup.subtree_control
mkdir /cg/t
mount -t proc p /mnt/p
echo "cmdline: $(cat /proc/cmdline)"
echo "before: stale_bits=$(cat $P/stale_bits) stale_id=$(cat $P/stale_id)"
sh -c 'echo $$ > /cg/t/cgroup.procs; ls -R /mnt/p/sys > /dev/null 2>&1; ls -R /mnt/p/sys | wc -l'
echo "after: stale_bits=$(cat $P/stale_bits) stale_id=$(cat $P/stale_id)"
umount /mnt/p
rmdir /cg/t
