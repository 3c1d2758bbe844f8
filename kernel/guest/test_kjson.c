// SPDX-License-Identifier: GPL-2.0
/*
 * test_kjson: writes one document through kjson.c with the kinds of rows
 * klab-guest writes (timed samples, a reading, a negative fit, notes with
 * characters JSON must escape, two experiments); tests/kernel/test_guest_json.py
 * compiles it on the host and validates the output against
 * data/shrinklab.schema.json.
 */
#include <stdio.h>
#include <string.h>

#include "kjson.h"

static void add(const char *exp, const char *metric, const char *unit, bool timed,
		const double *v, size_t n, const char *note)
{
	struct krow r = { .exp = exp, .unit = unit, .timed = timed, .raw = v, .n = n };
	double lo = v[0], hi = v[0];

	for (size_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	r.value = v[n / 2];
	r.min = lo;
	r.max = hi;
	snprintf(r.metric, sizeof(r.metric), "%s", metric);
	r.scale = (struct kscale){ .mounts = 746, .cgroups = 50, .host_shrinkers = 22, .units = 12,
				   .nodes = 4, .cpus = 2 };
	snprintf(r.scale.note, sizeof(r.scale.note), "%s", note);
	kjson_row(&r);
}

int main(int argc, char **argv)
{
	static const double drop[5] = { 3e6, 2.5e6, 2.9e6, 6.4e6, 2.8e6 };
	static const double slab[1] = { 62996.5 };
	static const double slope[1] = { -29504.25 };
	struct kguest g = { .design = "kernel:test", .accel = "tcg (no \"vmx\")", .scale = "short",
			    .describe = "test\tgeometry\n", .date = "2026-11-30T00:00:00Z",
			    .argc = argc, .argv = argv, .cpus = 2, .nodes = 4, .mem_kb = 1973756,
			    .mem_available_kb = 1900000, .boot_shrinkers = 18, .samples = 5,
			    .elapsed_ns = 19843028521ull };

	add("units", "slab_bytes_per_empty_cgroup_12u", "B", false, slab, 1,
	    "18 shrinkers \\ registered \"debugfs\"");
	add("drop_caches", "drop_caches_ns", "ns", true, drop, 5, "echo 2 > drop_caches\x01");
	add("drop_caches", "drop_caches_ns_per_empty_cgroup", "ns", false, slope, 1, "fit");
	kjson_elapsed("units", 1000);
	kjson_elapsed("drop_caches", 2000);
	kjson_elapsed("units", 500);
	return kjson_write(stdout, &g) ? 1 : 0;
}
