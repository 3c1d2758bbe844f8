/* SPDX-License-Identifier: MIT */
/*
 * Replay (and seed) the differential fuzz target without libFuzzer.
 *
 *   fuzz_replay PATH...               run every file (directories: every
 *                                     regular file in them, sorted)
 *   fuzz_replay --generate DIR N SEED write N pseudo-random inputs to DIR
 *
 * A mismatch abort()s inside the target (the message names the operation);
 * otherwise prints how many inputs ran and exits 0.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_ops.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	static uint8_t buf[1 << 16];
	size_t n;

	if (!f) {
		perror(path);
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	if (!d) {
		perror(dir);
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));

			if (!nn)
				abort();
			names = nn;
		}
		names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!names[n])
			abort();
		sprintf(names[n], "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (!ret && run_file(names[i]))
			ret = -1;
		else
			(*count)++;
		free(names[i]);
	}
	free(names);
	return ret;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Inputs of 16..400 bytes; the first op bytes favour mounts, cgroups, files. */
static int generate(const char *dir, long n, uint64_t seed)
{
	uint64_t s = seed;

	for (long i = 0; i < n; i++) {
		char path[4096];
		size_t len = 16 + rng_next(&s) % 385;
		FILE *f;

		snprintf(path, sizeof(path), "%s/gen-%llu-%03ld", dir, (unsigned long long)seed, i);
		f = fopen(path, "wb");
		if (!f) {
			perror(path);
			return 2;
		}
		/* nodes, then a mount, a cgroup and some files, then noise. */
		fputc((int)(rng_next(&s) & 1), f);
		fputc(0, f);
		fputc((int)(rng_next(&s) & 0xff), f);
		fputc(2, f);
		fputc(0, f);
		fputc(4, f);
		fputc(0, f);
		fputc((int)(rng_next(&s) & 0xff), f);
		fputc((int)(rng_next(&s) & 0xff), f);
		for (size_t k = 9; k < len; k++)
			fputc((int)(rng_next(&s) & 0xff), f);
		fclose(f);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int count = 0;

	if (argc == 5 && !strcmp(argv[1], "--generate")) {
		char *end1, *end2;
		long n = strtol(argv[3], &end1, 10);
		unsigned long long seed = strtoull(argv[4], &end2, 10);

		if (*end1 || *end2 || n <= 0) {
			fprintf(stderr, "usage: %s --generate DIR N SEED\n", argv[0]);
			return 2;
		}
		return generate(argv[2], n, seed);
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH... | --generate DIR N SEED\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 2;
		}
		if (S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) : run_file(argv[i]))
			return 2;
		if (!S_ISDIR(st.st_mode))
			count++;
	}
	printf("replayed %d inputs\n", count);
	return count ? 0 : 2;
}
