/* SPDX-License-Identifier: MIT */
/*
 * The kernel lab's container workload in the model (container_experiment.c
 * says what each phase measures): kernel/guest/kw_containers.c's script at
 * the guest's geometry, one model host per design configuration side by
 * side, into one lab_run whose metric names are the guest's
 * (data/kernel_workloads.tsv, experiment "containers").
 */
#ifndef SHRINKLAB_CONTAINER_EXPERIMENT_H
#define SHRINKLAB_CONTAINER_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"
#include "types.h"

#define LAB_CT_MAX_MIX 8
#define LAB_CT_MAX_LEVELS 8
#define LAB_CT_MAX_CONTAINERS 256
#define LAB_CT_MAX_METRICS 192

/* A container's mount: a file system whose objects reclaim can free (ext4,
 * proc) or one that pins them (tmpfs). */
enum lab_ct_kind {
	LAB_CT_EXT4,
	LAB_CT_PROC,
	LAB_CT_TMPFS,
};

/* The guest's parameters (kw_containers.c's, same names and defaults). */
struct lab_ct_geometry {
	unsigned long containers;      /* at each background level */
	unsigned long files, dirs, negative; /* per ext4 mount */
	unsigned long tmpfs_files;     /* per tmpfs mount (pinned) */
	unsigned long proc_files;      /* objects of the procfs walk, per proc mount */
	unsigned long samples;
	unsigned long writer_files;    /* the writer at memory.high */
	unsigned long high_margin_kib;
	unsigned long bg[LAB_CT_MAX_LEVELS]; /* background tmpfs mounts, rising */
	size_t nbg;
	enum lab_ct_kind mix[LAB_CT_MAX_MIX];
	int nmix;
	bool phase_reclaim, phase_high, phase_drop; /* teardown always runs */
	unsigned long host_shrinkers;  /* memcg-aware ids taken before the workload */
	unsigned long nodes, cpus;
};

/* One container of one bench: its cgroup, its own mounts, the tmpfs
 * objects it pins (dentry, inode, dentry, ...). */
struct lab_ct_container {
	struct shr_mem_cgroup *cg;
	struct sb *sb[LAB_CT_MAX_MIX];
	int nmnt;
	int nid;
	void **pinned;
	size_t nr_pinned;
	bool drained;
};

/* What one bench carries beside its lab_bench. */
struct lab_ct_bench {
	struct shr_mem_cgroup *parent; /* the containers' parent ("ct") */
	struct lab_ct_container ct[LAB_CT_MAX_CONTAINERS];
	unsigned int size[2];          /* charged per dentry, per inode: the slots */
	unsigned long uncharge_errors; /* frees whose uncharge the library refused */
};

struct lab_ct_lab {
	struct lab_ct_geometry g;
	struct lab_experiment exp;
	struct lab_metric metrics[LAB_CT_MAX_METRICS];
	char names[LAB_CT_MAX_METRICS][80];
	struct lab_run run;
	struct lab_bench b[LAB_MAX_DESIGNS];
	struct lab_ct_bench s[LAB_MAX_DESIGNS];
	struct lab_design designs[LAB_MAX_DESIGNS];
	size_t n;
	size_t level;
	char sfx[32];
};

/* The guest's full geometry (kw_containers.c's defaults). */
void lab_ct_geometry_full(struct lab_ct_geometry *g);
/* Parse "ext4+proc+tmpfs+tmpfs" (lab_list_split(): a kind may repeat)
 * into @g's mix. Return: 0, or -EINVAL with @why (@g unchanged). */
int lab_ct_parse_mix(const char *text, struct lab_ct_geometry *g, const char **why);
/* "containers: 12 x (ext4+proc+tmpfs+tmpfs: ...) beside 0+20000 ...". */
void lab_ct_describe(const struct lab_ct_geometry *g, char *buf, size_t len);
/* The table and run for @n designs at @g; nothing measured yet. */
void lab_ct_init(struct lab_ct_lab *k, const struct lab_ct_geometry *g,
		 const struct lab_design *designs, size_t n);
/* Open the benches, run the script, close them, sort the rows.
 * Return: 0 or the first -errno (the rows are incomplete). */
int lab_ct_run(struct lab_ct_lab *k);
void lab_ct_free(struct lab_ct_lab *k);

#endif /* SHRINKLAB_CONTAINER_EXPERIMENT_H */
