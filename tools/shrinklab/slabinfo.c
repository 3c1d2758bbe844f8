/* SPDX-License-Identifier: MIT */
/* Placeholder: implemented by the issue #2 work. */
#include <stdio.h>

#include "shrinklab.h"

int shrinklab_slabinfo(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "shrinklab slabinfo: not implemented yet\n");
	return 1;
}
