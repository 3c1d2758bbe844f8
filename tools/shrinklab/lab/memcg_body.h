/* SPDX-License-Identifier: MIT */
/*
 * The rest of a memory cgroup: what a kernel memcg costs in slab beyond the
 * shrinker bookkeeping (struct mem_cgroup, its per-node parts, the css,
 * kernfs nodes), as the kernel lab measured it (data/memcg_slab.tsv),
 * allocated for every cgroup a bench makes, so that the model's memory rows
 * count a whole cgroup as the kernel's do (memcg_body.c).
 */
#ifndef SHRINKLAB_MEMCG_BODY_H
#define SHRINKLAB_MEMCG_BODY_H

#include <stddef.h>

#include <shrinker/slab.h>

#define LAB_MEMCG_BODY_FILE "memcg_slab.tsv"
/* The body is allocated in pieces of this size (kmalloc-512: SLUB packs
 * them without waste, so the slab they take is their size). */
#define LAB_MEMCG_PIECE 512

/* One row of the calibration file: where and what the kernel measured. */
struct lab_memcg_calibration {
	int nodes;
	unsigned int cpus;
	unsigned long bytes;
	char series[32];
	char what[192];
	char base[96];
	char machine[96];
	char date[16];
	char file[96];
};

/*
 * The calibration for a bench of @nodes nodes and @cpus geometry CPUs: the
 * row of that node count with the nearest CPUs, else of the nearest node
 * count. The file is read once.
 * Return: the row, or NULL when the file cannot be read or holds none (the
 * model then allocates no body: lab_memcg_body_words() says so).
 */
const struct lab_memcg_calibration *lab_memcg_calibration_for(int nodes, unsigned int cpus);
/* The calibration in words for a table's header: "9.1 KiB per cgroup, the
 * kernel's under seed-xarray at 1 node and 4 vCPUs (...)". */
void lab_memcg_body_words(char *buf, size_t len, int nodes, unsigned int cpus);

/* The body of one cgroup: its pieces. */
struct lab_memcg_body {
	void **piece;
	size_t n;
};

/*
 * Allocate the body of one cgroup on @sa (@nodes nodes, @cpus geometry
 * CPUs): the calibration's bytes in LAB_MEMCG_PIECE pieces and one piece of
 * the rest, spread over the nodes in turn.
 * Return: 0, or -ENOMEM with nothing allocated.
 */
int lab_memcg_body_alloc(struct shr_slab_allocator *sa, int nodes, unsigned int cpus,
			 struct lab_memcg_body *body);
void lab_memcg_body_free(struct shr_slab_allocator *sa, struct lab_memcg_body *body);

#endif /* SHRINKLAB_MEMCG_BODY_H */
