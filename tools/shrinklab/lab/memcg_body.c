/* SPDX-License-Identifier: MIT */
/*
 * The rest of a memory cgroup (memcg_body.h).
 *
 * The library's struct shr_mem_cgroup holds the shrinker bookkeeping and
 * little else: a kernel memcg also allocates struct mem_cgroup, its
 * per-node parts, the css and kernfs nodes, about 9 KiB of slab at 1 node.
 * Without them the model's "slab per empty cgroup" was the bookkeeping
 * alone, and a design that keeps none cut it 640x where the kernel's cut is
 * 19x. The calibration file (data/memcg_slab.tsv) holds what the kernel lab
 * measured under a series that gives an empty cgroup no bookkeeping, with
 * its base, machine and date; each bench cgroup allocates that many bytes
 * of real slab (kmalloc-512 pieces and one for the rest of the bytes, from
 * its kmalloc class; spread over the nodes) when it is made
 * and frees them when it is removed, so every byte a memory row reports is
 * still an allocation the allocator counted. Rows of the bookkeeping alone
 * (bookkeeping_bytes_*, container_bytes_*) do not include it.
 *
 * Not thread-safe: the benches are made and torn down by the lab's one
 * thread; the file is read on first use.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datafiles.h"
#include "memcg_body.h"
#include "units.h"

#define MAX_ROWS 16

static struct lab_memcg_calibration rows[MAX_ROWS];
static size_t nr_rows;
static bool loaded;

static void copy_field(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

static void parse_line(char *line)
{
	char *f[9], *save = NULL, *tok;
	struct lab_memcg_calibration *c;
	size_t n = 0;

	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] == '#' || !line[0] || nr_rows == MAX_ROWS)
		return;
	for (tok = strtok_r(line, "\t", &save); tok && n < 9; tok = strtok_r(NULL, "\t", &save))
		f[n++] = tok;
	if (n != 9)
		return;
	c = &rows[nr_rows];
	c->nodes = atoi(f[0]);
	c->cpus = (unsigned int)strtoul(f[1], NULL, 10);
	c->bytes = strtoul(f[2], NULL, 10);
	if (c->nodes < 1 || !c->cpus || !c->bytes)
		return;
	copy_field(c->series, sizeof(c->series), f[3]);
	copy_field(c->what, sizeof(c->what), f[4]);
	copy_field(c->base, sizeof(c->base), f[5]);
	copy_field(c->machine, sizeof(c->machine), f[6]);
	copy_field(c->date, sizeof(c->date), f[7]);
	copy_field(c->file, sizeof(c->file), f[8]);
	nr_rows++;
}

static void load(void)
{
	char path[PATH_MAX], line[1024];
	FILE *f;

	loaded = true;
	f = fopen(lab_data_path(LAB_MEMCG_BODY_FILE, path, sizeof(path)), "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		parse_line(line);
	fclose(f);
}

static unsigned long distance(long a, long b)
{
	return (unsigned long)(a > b ? a - b : b - a);
}

const struct lab_memcg_calibration *lab_memcg_calibration_for(int nodes, unsigned int cpus)
{
	const struct lab_memcg_calibration *best = NULL;

	if (!loaded)
		load();
	for (size_t i = 0; i < nr_rows; i++) {
		const struct lab_memcg_calibration *c = &rows[i];

		if (!best || distance(c->nodes, nodes) < distance(best->nodes, nodes) ||
		    (c->nodes == best->nodes &&
		     distance(c->cpus, cpus) < distance(best->cpus, cpus)))
			best = c;
	}
	return best;
}

void lab_memcg_body_words(char *buf, size_t len, int nodes, unsigned int cpus)
{
	const struct lab_memcg_calibration *c = lab_memcg_calibration_for(nodes, cpus);
	char bytes[32];

	if (!c) {
		snprintf(buf, len, "none: data/%s not found, the memory rows are the shrinker "
			 "bookkeeping alone", LAB_MEMCG_BODY_FILE);
		return;
	}
	lab_fmt_value(bytes, sizeof(bytes), (double)c->bytes, "B");
	snprintf(buf, len, "%s of slab per cgroup beside the shrinker bookkeeping, the kernel's "
		 "under %s at %d node(s) and %u vCPUs (%s; %s, %s)", bytes, c->series, c->nodes,
		 c->cpus, c->machine, c->base, c->date);
}

int lab_memcg_body_alloc(struct shr_slab_allocator *sa, int nodes, unsigned int cpus,
			 struct lab_memcg_body *body)
{
	const struct lab_memcg_calibration *c = lab_memcg_calibration_for(nodes, cpus);
	size_t whole = c ? c->bytes / LAB_MEMCG_PIECE : 0, rest = c ? c->bytes % LAB_MEMCG_PIECE : 0;
	size_t n = whole + (rest != 0);

	body->piece = NULL;
	body->n = 0;
	if (!n)
		return 0;
	body->piece = calloc(n, sizeof(*body->piece));
	if (!body->piece)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		body->piece[i] = shr_kmalloc_node(sa, i < whole ? LAB_MEMCG_PIECE : rest,
						  SHR_GFP_KERNEL,
						  (int)(i % (size_t)(nodes > 0 ? nodes : 1)));
		if (!body->piece[i]) {
			body->n = i;
			lab_memcg_body_free(sa, body);
			return -ENOMEM;
		}
	}
	body->n = n;
	return 0;
}

void lab_memcg_body_free(struct shr_slab_allocator *sa, struct lab_memcg_body *body)
{
	for (size_t i = 0; i < body->n; i++)
		shr_kfree(sa, body->piece[i]);
	free(body->piece);
	body->piece = NULL;
	body->n = 0;
}
