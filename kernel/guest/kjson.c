// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output of the guest lab (see kjson.h), schema shrinklab/2. The
 * document's head, strings (escaped per RFC 8259) and numbers (null when
 * not finite) are written as shrinklab writes them
 * (tools/shrinklab/scripts/jsonw.h); the rest of the schema is here, so a
 * schema change is a change here too (tests/kernel/test_guest_json.py
 * validates what it writes).
 *
 * The tool's version and git revision are those of the source tree the host
 * compiled the guest from (-DKLAB_VERSION, -DKLAB_GIT_REVISION).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "../../tools/shrinklab/scripts/jsonw.h"
#include "kjson.h"

#ifndef KLAB_VERSION
#define KLAB_VERSION "unknown"
#endif
#ifndef KLAB_GIT_REVISION
#define KLAB_GIT_REVISION ""
#endif

#define MAX_EXPS 16

static struct krow *rows;
static size_t nr_rows, cap_rows;

static struct {
	const char *exp;
	uint64_t ns;
} elapsed[MAX_EXPS];
static size_t nr_elapsed;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		perror("kjson");
		exit(1);
	}
	return p;
}

void kjson_row(const struct krow *r)
{
	double *raw = xmalloc(r->n * sizeof(*raw));

	if (nr_rows == cap_rows) {
		cap_rows = cap_rows ? 2 * cap_rows : 64;
		rows = realloc(rows, cap_rows * sizeof(*rows));
		if (!rows) {
			perror("kjson");
			exit(1);
		}
	}
	memcpy(raw, r->raw, r->n * sizeof(*raw));
	rows[nr_rows] = *r;
	rows[nr_rows++].raw = raw;
}

void kjson_elapsed(const char *exp, uint64_t ns)
{
	size_t i;

	for (i = 0; i < nr_elapsed; i++)
		if (!strcmp(elapsed[i].exp, exp))
			break;
	if (i == nr_elapsed) {
		if (nr_elapsed == MAX_EXPS)
			return;
		elapsed[nr_elapsed].exp = exp;
		elapsed[nr_elapsed++].ns = 0;
	}
	elapsed[i].ns += ns;
}

static uint64_t elapsed_of(const char *exp)
{
	for (size_t i = 0; i < nr_elapsed; i++)
		if (!strcmp(elapsed[i].exp, exp))
			return elapsed[i].ns;
	return 0;
}

static void geometry(FILE *f, const struct kscale *s)
{
	fprintf(f, "{\"mounts\":%lu,\"host_shrinkers\":%lu,\"cgroups\":%lu,\"nodes\":%d,"
		"\"cpus\":%u,\"kmem\":%s,\"shrinker_nr_max\":null,\"units\":", s->mounts,
		s->host_shrinkers, s->cgroups, s->nodes, s->cpus, s->nokmem ? "false" : "true");
	if (s->units < 0)
		fputs("null", f);
	else
		fprintf(f, "%ld", s->units);
	fputs(",\"note\":", f);
	jsonw_string(f, s->note);
	fputc('}', f);
}

static void row(FILE *f, const struct krow *r, const char *design)
{
	jsonw_field(f, "{\"design\":", design);
	jsonw_field(f, ",\"metric\":", r->metric);
	jsonw_field(f, ",\"unit\":", r->unit);
	fprintf(f, ",\"unavailable\":false,\"timed\":%s,\"value\":", r->timed ? "true" : "false");
	jsonw_number(f, r->value);
	fputs(",\"min\":", f);
	jsonw_number(f, r->min);
	fputs(",\"max\":", f);
	jsonw_number(f, r->max);
	fprintf(f, ",\"n\":%zu,\"samples\":[", r->n);
	for (size_t i = 0; i < r->n; i++) {
		if (i)
			fputc(',', f);
		jsonw_number(f, r->raw[i]);
	}
	fputs("],\"geometry\":", f);
	geometry(f, &r->scale);
	fputs(",\"seed\":null}", f);
}

static void machine(FILE *f, const struct kguest *g)
{
	struct utsname u;
	char kernel[sizeof(u.sysname) + sizeof(u.release) + sizeof(u.version) +
		    sizeof(u.machine) + 4] = "";

	if (!uname(&u))
		snprintf(kernel, sizeof(kernel), "%s %s %s %s", u.sysname, u.release, u.version,
			 u.machine);
	fprintf(f, "{\"cpus\":%u,\"memory_bytes\":%llu,\"mem_available_bytes\":%llu,"
		"\"nodes\":%d,\"kernel\":", g->cpus, (unsigned long long)g->mem_kb * 1024,
		(unsigned long long)g->mem_available_kb * 1024, g->nodes);
	jsonw_string(f, kernel);
	fputs(",\"guest\":true,\"accelerator\":", f);
	jsonw_string(f, g->accel);
	fprintf(f, ",\"boot_shrinkers\":%ld}", g->boot_shrinkers);
}

/* The header: tool, date, command, machine, run. */
static void header(FILE *f, const struct kguest *g)
{
	jsonw_head(f, "klab-guest", KLAB_VERSION, KLAB_GIT_REVISION, g->date, g->argc, g->argv);
	machine(f, g);
	fputs(",\"run\":{\"subcommand\":\"klab-guest\",\"scale\":", f);
	jsonw_string(f, g->scale);
	fprintf(f, ",\"factor\":null,\"samples\":%u,\"elapsed_ns\":%llu,\"design\":", g->samples,
		(unsigned long long)g->elapsed_ns);
	jsonw_string(f, g->design);
	fputs("},\"experiments\":[", f);
}

static void experiment(FILE *f, size_t first, const struct kguest *g)
{
	const char *exp = rows[first].exp;
	size_t last = first, n = 0;

	for (size_t k = first; k < nr_rows; k++)
		if (!strcmp(rows[k].exp, exp))
			last = k;
	fputs("\n{\"id\":", f);
	jsonw_string(f, exp);
	fputs(",\"seed_title\":\"\",\"seed_geometry\":", f);
	geometry(f, &rows[last].scale);
	fputs(",\"geometry\":", f);
	geometry(f, &rows[last].scale);
	fputs(",\"scale\":", f);
	jsonw_string(f, g->describe);
	fprintf(f, ",\"elapsed_ns\":%llu,\"hosts\":[{\"design\":",
		(unsigned long long)elapsed_of(exp));
	jsonw_string(f, g->design);
	fputs(",\"available\":true,\"why\":null,\"geometry\":", f);
	geometry(f, &rows[last].scale);
	fputs("}],\"results\":[", f);
	for (size_t k = first; k < nr_rows; k++) {
		if (strcmp(rows[k].exp, exp))
			continue;
		fputs(n++ ? ",\n " : "\n ", f);
		row(f, &rows[k], g->design);
	}
	fputs("],\"verdicts\":[]}", f);
}

int kjson_write(FILE *f, const struct kguest *g)
{
	size_t nexp = 0;

	header(f, g);
	/* One experiment per id, in the order of their first rows. */
	for (size_t i = 0; i < nr_rows; i++) {
		size_t first = 0;

		while (strcmp(rows[first].exp, rows[i].exp))
			first++;
		if (first != i)
			continue;
		if (nexp++)
			fputc(',', f);
		experiment(f, i, g);
	}
	fputs("]}\n", f);
	fflush(f);
	return ferror(f) ? -1 : 0;
}
