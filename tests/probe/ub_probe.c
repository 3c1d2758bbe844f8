/* SPDX-License-Identifier: MIT */
/* Signed overflow on purpose: the sanitizer build must fail this program. */
#include <limits.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int x = INT_MAX;

	(void)argv;
	x += argc;
	printf("%d\n", x);
	return 0;
}
