#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `klab selftests`: run the kernel's cgroup selftests, then our
# reclaim checks (kcheck), from the ext4 working directory (/work), each
# between markers the host parses.
# test_memcg_sock resolves "localhost" and talks over loopback: give it an
# /etc/hosts (static glibc reads it without NSS modules) and bring lo up.
mkdir -p /etc
printf '127.0.0.1 localhost\n::1 localhost\n' > /etc/hosts
ip link set lo up
for t in test_kmem test_memcontrol; do
	echo "KLAB-SELFTEST-BEGIN $t"
	/klab/$t
	echo "KLAB-SELFTEST-END $t $?"
done
echo "KLAB-SELFTEST-BEGIN kcheck"
/klab/kcheck --dir /work/kcheck
echo "KLAB-SELFTEST-END kcheck $?"
exit 0
