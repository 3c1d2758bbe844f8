#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `klab selftests`: run the kernel's cgroup selftests from the
# ext4 working directory (/work), each between markers the host parses.
for t in test_kmem test_memcontrol; do
	echo "KLAB-SELFTEST-BEGIN $t"
	/klab/$t
	echo "KLAB-SELFTEST-END $t $?"
done
exit 0
