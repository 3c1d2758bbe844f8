/* SPDX-License-Identifier: MIT */
/*
 * shrinklab JSON output, schema "shrinklab/2" (data/shrinklab.schema.json
 * says what every field means), written by hand: strings are escaped per
 * RFC 8259 (quote, backslash, control characters as \u00XX), numbers are
 * finite (a non-finite value is written as null).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "design_label.h"
#include "experiments.h"
#include "json.h"
#include "jsonw.h"
#include "machine.h"
#include "memcg_body.h"
#include "scale.h"
#include "version.h"

/* @s, or null when it is NULL or empty. */
static void json_string_or_null(FILE *f, const char *s)
{
	if (s && s[0])
		jsonw_string(f, s);
	else
		fputs("null", f);
}

static void json_key(FILE *f, bool first, const char *key)
{
	if (!first)
		fputc(',', f);
	jsonw_string(f, key);
	fputc(':', f);
}

static void json_count_or_null(FILE *f, long v)
{
	if (v < 0)
		fputs("null", f);
	else
		fprintf(f, "%ld", v);
}

static void json_geometry(FILE *f, const struct lab_scale *s)
{
	fprintf(f, "{\"mounts\":%lu,\"host_shrinkers\":%u,\"cgroups\":%lu,\"nodes\":%d,"
		   "\"cpus\":%u,\"kmem\":%s,\"shrinker_nr_max\":", s->mounts, s->host_shrinkers,
		s->cgroups, s->nodes, s->cpus, s->kmem ? "true" : "false");
	json_count_or_null(f, s->shrinker_nr_max);
	fputs(",\"units\":", f);
	json_count_or_null(f, s->units);
	jsonw_field(f, ",\"note\":", s->note);
	fputc('}', f);
}

static void json_seed_geometry(FILE *f, const struct lab_seed_geometry *g)
{
	bool first = true;

	fputc('{', f);
	for (int k = 0; k < LAB_NR_GEO; k++) {
		if (g->state[k] == LAB_SEED_GEO_ABSENT)
			continue;
		json_key(f, first, lab_geo_name((enum lab_geo_key)k));
		first = false;
		if (g->state[k] == LAB_SEED_GEO_UNKNOWN)
			fputs("null", f);
		else if (g->lo[k] == g->hi[k])
			fprintf(f, "%lu", g->lo[k]);
		else
			fprintf(f, "[%lu,%lu]", g->lo[k], g->hi[k]);
	}
	fputc('}', f);
}

static void json_seed(FILE *f, const struct lab_result *r)
{
	const struct lab_seed_figure *s = r->seed;
	char rel[2] = { s->relation, 0 };

	fputs("{\"value\":", f);
	if (s->same_as_base)
		fputs("null", f);
	else
		jsonw_number(f, s->value);
	jsonw_field(f, ",\"relation\":", s->same_as_base ? "same" : rel);
	fputs(",\"geometry\":", f);
	json_seed_geometry(f, &s->geo);
	fprintf(f, ",\"comparable\":%s,\"why\":", r->seed_comparable ? "true" : "false");
	jsonw_string(f, r->seed_why);
	jsonw_field(f, ",\"thread\":", s->thread);
	jsonw_field(f, ",\"source\":", s->source);
	fputc('}', f);
}

static void json_value_or_null(FILE *f, bool null, double v)
{
	if (null)
		fputs("null", f);
	else
		jsonw_number(f, v);
}

static void json_result(FILE *f, const struct lab_result *r)
{
	jsonw_field(f, "{\"design\":", r->design);
	jsonw_field(f, ",\"metric\":", r->metric);
	jsonw_field(f, ",\"unit\":", r->unit);
	fprintf(f, ",\"unavailable\":%s,\"timed\":%s,\"value\":", r->unavailable ? "true" : "false",
		r->timed ? "true" : "false");
	json_value_or_null(f, r->unavailable, r->value);
	fputs(",\"min\":", f);
	json_value_or_null(f, r->unavailable, r->min);
	fputs(",\"max\":", f);
	json_value_or_null(f, r->unavailable, r->max);
	fprintf(f, ",\"n\":%zu,\"samples\":[", r->unavailable ? 0 : r->n);
	for (size_t i = 0; !r->unavailable && i < r->n; i++) {
		if (i)
			fputc(',', f);
		jsonw_number(f, r->raw[i]);
	}
	fputs("],\"resolution\":", f);
	json_value_or_null(f, r->unavailable || !r->timed, r->resolution);
	fputs(",\"geometry\":", f);
	json_geometry(f, &r->scale);
	fputs(",\"seed\":", f);
	if (r->seed)
		json_seed(f, r);
	else
		fputs("null", f);
	fputc('}', f);
}

static const char *verdict_id(enum lab_verdict_kind k)
{
	static const char *const ids[] = { "agrees", "disagrees", "inconclusive", "not_compared",
					   "not_measured" };

	return ids[k];
}

static const char *size_id(enum lab_size_kind k)
{
	static const char *const ids[] = { "not_judged", "agrees", "disagrees", "inconclusive" };

	return ids[k];
}

static void json_verdict(FILE *f, const struct lab_verdict *v)
{
	char rel[2] = { v->relation, 0 };

	jsonw_field(f, "{\"metric\":", v->metric);
	jsonw_field(f, ",\"design\":", v->design);
	fputs(",\"base\":", f);
	json_string_or_null(f, v->base);
	jsonw_field(f, ",\"claim\":", v->claim);
	fputs(",\"ours\":", f);
	json_value_or_null(f, !v->has_ours, v->ours);
	fputs(",\"ours_lo\":", f);
	json_value_or_null(f, !v->has_ours, v->lo);
	fputs(",\"ours_hi\":", f);
	json_value_or_null(f, !v->has_ours, v->hi);
	fprintf(f, ",\"rounds\":%zu,\"seed\":", v->has_ours ? v->rounds : 0);
	json_value_or_null(f, !v->has_seed, v->seed);
	jsonw_field(f, ",\"relation\":", rel);
	jsonw_field(f, ",\"verdict\":", verdict_id(v->kind));
	jsonw_field(f, ",\"size_verdict\":", size_id(v->size));
	fputs(",\"ours_over_seed_lo\":", f);
	json_value_or_null(f, v->size == LAB_SIZE_NOT_JUDGED, v->size_lo);
	fputs(",\"ours_over_seed_hi\":", f);
	json_value_or_null(f, v->size == LAB_SIZE_NOT_JUDGED, v->size_hi);
	jsonw_field(f, ",\"why\":", v->text);
	fputc('}', f);
}

/* The calibration the cgroups of @s were made with (memcg_body.h), or null. */
static void json_memcg_body(FILE *f, const struct lab_scale *s)
{
	const struct lab_memcg_calibration *c = lab_memcg_calibration_for(s->nodes, s->cpus);

	if (!c) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"bytes\":%lu,\"nodes\":%d,\"cpus\":%u,\"series\":", c->bytes, c->nodes,
		c->cpus);
	jsonw_string(f, c->series);
	jsonw_field(f, ",\"measured\":", c->what);
	jsonw_field(f, ",\"base\":", c->base);
	jsonw_field(f, ",\"machine\":", c->machine);
	jsonw_field(f, ",\"date\":", c->date);
	jsonw_field(f, ",\"file\":", c->file);
	fputc('}', f);
}

static void json_load(FILE *f, const struct lab_machine *m)
{
	if (m->have_load)
		fprintf(f, "[%.2f,%.2f,%.2f]", m->load[0], m->load[1], m->load[2]);
	else
		fputs("null", f);
}

static void json_machine(FILE *f)
{
	const struct lab_machine *start = lab_machine_at_start();
	struct lab_machine now;
	char host[256] = "";

	lab_machine_read(&now);
	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	fprintf(f, "{\"cpus\":%ld,\"memory_bytes\":%llu,\"mem_available_bytes\":%llu,\"kernel\":",
		now.cpus, lab_mem_total(), lab_mem_available());
	jsonw_string(f, now.kernel);
	jsonw_field(f, ",\"cpu_model\":", now.cpu_model);
	jsonw_field(f, ",\"kind\":", now.kind);
	fputs(",\"load_start\":", f);
	json_load(f, start);
	fputs(",\"load_end\":", f);
	json_load(f, &now);
	if (host[0]) {
		jsonw_field(f, ",\"hostname\":", host);
	}
	fputc('}', f);
}

int lab_json_write(FILE *f, const struct lab_run *runs, size_t n,
		   const struct lab_json_context *ctx)
{
	const struct lab_options *opt = ctx->opt;

	jsonw_head(f, "shrinklab", shrinklab_version(), shrinklab_git_revision(), NULL, ctx->argc,
		   ctx->argv);
	json_machine(f);
	jsonw_field(f, ",\"run\":{\"subcommand\":", ctx->subcommand);
	jsonw_field(f, ",\"scale\":", lab_options_custom(opt) ? "custom" : opt->scale_name);
	fputs(",\"factor\":", f);
	json_value_or_null(f, opt->scale_kind == LAB_SCALE_DEFAULT, opt->factor);
	fprintf(f, ",\"samples\":%u,\"mem_budget_bytes\":%llu,\"peak_rss_bytes\":%llu,"
		   "\"elapsed_ns\":%llu},\"experiments\":[", opt->samples, opt->mem_budget,
		lab_peak_rss(), (unsigned long long)ctx->elapsed_ns);
	for (size_t k = 0; k < n; k++) {
		const struct lab_run *run = &runs[k];

		fputs(k ? ",\n{\"id\":" : "\n{\"id\":", f);
		jsonw_string(f, run->exp->id);
		fputs(",\"thread\":", f);
		json_string_or_null(f, run->exp->thread);
		jsonw_field(f, ",\"seed_title\":", run->exp->title);
		fputs(",\"seed_geometry\":", f);
		json_geometry(f, &run->exp->seed_scale);
		fputs(",\"geometry\":", f);
		json_geometry(f, &run->scale);
		jsonw_field(f, ",\"scale\":", run->scale_desc);
		fputs(",\"memcg_body\":", f);
		json_memcg_body(f, &run->scale);
		fprintf(f, ",\"elapsed_ns\":%llu,\"hosts\":[", (unsigned long long)run->elapsed_ns);
		for (size_t i = 0, first = 1; i < run->nr_designs; i++) {
			const struct lab_host_info *h = &run->hosts[i];

			if (!h->label[0])
				continue;
			fputs(first ? "\n {\"design\":" : ",\n {\"design\":", f);
			first = 0;
			jsonw_string(f, h->label);
			fprintf(f, ",\"available\":%s,\"why\":", h->available ? "true" : "false");
			if (h->available)
				fputs("null", f);
			else
				jsonw_string(f, h->why ? h->why : "");
			fputs(",\"geometry\":", f);
			if (h->available)
				json_geometry(f, &h->geo);
			else
				fputs("null", f);
			fputc('}', f);
		}
		fputs("],\"results\":[", f);
		for (size_t i = 0; i < run->nr_rows; i++) {
			fputs(i ? ",\n " : "\n ", f);
			json_result(f, &run->rows[i]);
		}
		fputs("],\"verdicts\":[", f);
		for (size_t i = 0; i < run->nr_verdicts; i++) {
			fputs(i ? ",\n " : "\n ", f);
			json_verdict(f, &run->verdicts[i]);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	errno = 0;
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO); /* EFBIG, ENOSPC, EPIPE... */
	return 0;
}

/* One experiment of the registry: what it is and measures, not a run. */
/* The seeds' figures of experiment @e: design, metric, unit, value (null
 * for "the same as the base"), relation ('=', '<', '>', "same"), geometry. */
static void json_seed_figures(FILE *f, const struct lab_experiment *e,
			      const struct lab_seeds *seeds)
{
	bool first = true;

	for (size_t i = 0; i < seeds->n; i++) {
		const struct lab_seed_figure *s = &seeds->v[i];
		char rel[2] = { s->relation, 0 };

		if (strcmp(s->experiment, e->id))
			continue;
		jsonw_field(f, first ? "\n  {\"design\":" : ",\n  {\"design\":", s->design);
		first = false;
		jsonw_field(f, ",\"metric\":", s->metric);
		jsonw_field(f, ",\"unit\":", s->unit);
		fputs(",\"value\":", f);
		json_value_or_null(f, s->same_as_base, s->value);
		jsonw_field(f, ",\"relation\":", s->same_as_base ? "same" : rel);
		fputs(",\"geometry\":", f);
		json_seed_geometry(f, &s->geo);
		fputc('}', f);
	}
}

/* The registry's @n metrics @m: name, unit, geometry keys, what, better. */
static void json_registry_metrics(FILE *f, const struct lab_metric *m, size_t n)
{
	for (size_t i = 0; i < n; i++, m++) {
		bool first = true;

		fputs(i ? ",\n {\"name\":" : "\n {\"name\":", f);
		jsonw_string(f, m->name);
		jsonw_field(f, ",\"unit\":", m->unit);
		fputs(",\"geometry\":[", f);
		for (int k = 0; k < LAB_NR_GEO; k++) {
			if (!(m->geo & LAB_G(k)))
				continue;
			if (!first)
				fputc(',', f);
			jsonw_string(f, lab_geo_name((enum lab_geo_key)k));
			first = false;
		}
		jsonw_field(f, "],\"what\":", m->what);
		jsonw_field(f, ",\"better\":", lab_metric_higher_better(m->name) ? "higher" : "lower");
		fputc('}', f);
	}
}

static void json_registry_entry(FILE *f, const struct lab_experiment *e,
				const struct lab_seeds *seeds)
{
	char label[LAB_LABEL_LEN];

	jsonw_field(f, "{\"id\":", e->id);
	fputs(",\"old_id\":", f);
	json_string_or_null(f, lab_experiment_old_id(e));
	fputs(",\"thread\":", f);
	json_string_or_null(f, e->thread);
	jsonw_field(f, ",\"title\":", e->title);
	fputs(",\"seed_geometry\":", f);
	json_geometry(f, &e->seed_scale);
	fprintf(f, ",\"default_geometry\":{\"mounts\":%lu,\"cgroups\":%lu,"
		   "\"mounts_per_cgroup\":%u},\"designs\":[",
		e->default_mounts, e->default_cgroups, e->mounts_per_cgroup);
	for (size_t i = 0; i < e->nr_designs; i++) {
		lab_design_label(&e->designs[i], label, sizeof(label));
		if (i)
			fputc(',', f);
		jsonw_string(f, label);
	}
	fputs("],\"metrics\":[", f);
	json_registry_metrics(f, e->metrics, e->nr_metrics);
	fputs("],\"kernel_metrics\":[", f);
	json_registry_metrics(f, e->kernel_metrics, e->nr_kernel_metrics);
	fputs("],\"seed_figures\":[", f);
	json_seed_figures(f, e, seeds);
	fputs("]}", f);
}

int lab_json_write_registry(FILE *f, const struct lab_seeds *seeds)
{
	fputs("{\"schema\":\"shrinklab-experiments/1\",\"tool\":{\"name\":\"shrinklab\","
	      "\"version\":", f);
	jsonw_string(f, shrinklab_version());
	fputs("},\"experiments\":[", f);
	for (size_t i = 0; i < lab_nr_experiments; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_registry_entry(f, &lab_experiments[i], seeds);
	}
	fputs("]}\n", f);
	errno = 0;
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}

static const char *class_id(enum lab_ratio_class c)
{
	return c == LAB_RATIO_LOWER ? "lower" : c == LAB_RATIO_HIGHER ? "higher"
		: c == LAB_RATIO_SAME ? "same" : "straddles";
}

/* A claim's seed ratio as the seed states it, or null. */
static void json_seed_ratio(FILE *f, const struct lab_claim *c)
{
	char rel[2] = { c->seed_relation, 0 };

	if (!c->has_seed_ratio) {
		fputs(",\"seed_ratio\":null,\"seed_relation\":null", f);
		return;
	}
	fputs(",\"seed_ratio\":", f);
	jsonw_number(f, c->seed_ratio);
	jsonw_field(f, ",\"seed_relation\":", rel);
}

static void json_claim_ratio(FILE *f, const struct lab_claim_ratio *q)
{
	if (!q->has_ratio) {
		fputs("null", f);
		return;
	}
	fputs("{\"ours\":", f);
	jsonw_number(f, q->q.median);
	fputs(",\"lo\":", f);
	jsonw_number(f, q->q.lo);
	fputs(",\"hi\":", f);
	jsonw_number(f, q->q.hi);
	fprintf(f, ",\"rounds\":%zu,\"paired\":%s", q->q.rounds, q->q.paired ? "true" : "false");
	jsonw_field(f, ",\"class\":", class_id(q->cls));
	jsonw_field(f, ",\"words\":", lab_ratio_class_words(q->cls));
	fputc('}', f);
}

static void json_opt_number(FILE *f, bool has, double v)
{
	if (has)
		jsonw_number(f, v);
	else
		fputs("null", f);
}

void lab_json_write_fig_fields(FILE *f, const struct lab_bs_fig *g)
{
	fputs("\"value\":", f);
	json_opt_number(f, g->has_value, g->value);
	fputs(",\"min\":", f);
	json_opt_number(f, g->has_value, g->lo);
	fputs(",\"max\":", f);
	json_opt_number(f, g->has_value, g->hi);
	if (g->ratio) {
		fprintf(f, ",\"paired\":%s,\"spread_known\":%s", g->paired ? "true" : "false",
			g->spread ? "true" : "false");
		return;
	}
	fputs(",\"n\":", f);
	jsonw_number(f, g->n);
	fprintf(f, ",\"boots\":%zu,\"boot_spread\":", g->boots);
	json_opt_number(f, g->has_boot_spread, g->boot_spread);
	fputs(",\"verdict_min\":", f);
	json_opt_number(f, g->has_value, g->vlo);
	fputs(",\"verdict_max\":", f);
	json_opt_number(f, g->has_value, g->vhi);
}

/* One design's metric merged over boots (claims.h's lab_claim_boots). */
static void json_claim_boots(FILE *f, const struct lab_claim_boots *b)
{
	fputc('{', f);
	lab_json_write_fig_fields(f, &b->fig);
	fprintf(f, ",\"within_target\":%s}", b->within_target ? "true" : "false");
}

int lab_json_write_claims(FILE *f, const struct lab_claims *c)
{
	fputs("{\"schema\":\"shrinklab-claims/1\",\"tool\":{\"name\":\"shrinklab\","
	      "\"version\":", f);
	jsonw_string(f, shrinklab_version());
	fputs("},\"claims\":[", f);
	for (size_t i = 0; i < c->nr_claims; i++) {
		fputs(i ? ",\n {\"verdict\":" : "\n {\"verdict\":", f);
		json_verdict(f, &c->claims[i].verdict);
		fprintf(f, ",\"paired\":%s", c->claims[i].verdict.paired ? "true" : "false");
		json_seed_ratio(f, &c->claims[i]);
		fputc('}', f);
	}
	fputs("],\"ratios\":[", f);
	for (size_t i = 0; i < c->nr_ratios; i++) {
		fputs(i ? ",\n " : "\n ", f);
		json_claim_ratio(f, &c->ratios[i]);
	}
	fputs("],\"sizes\":[", f);
	for (size_t i = 0; i < c->nr_sizes; i++) {
		fputs(i ? "," : "", f);
		jsonw_string(f, lab_size_name(c->sizes[i]));
	}
	fputs("],\"classes\":[", f);
	for (size_t i = 0; i < c->nr_classes; i++) {
		fputs(i ? "," : "", f);
		jsonw_string(f, class_id(c->classes[i]));
	}
	fputs("],\"cells\":[", f);
	for (size_t i = 0; i < c->nr_cells; i++) {
		fputs(i ? "," : "", f);
		jsonw_string(f, c->cells[i].text);
	}
	fputs("],\"boot_spread_target\":", f);
	jsonw_number(f, LAB_BOOT_SPREAD_TARGET);
	fputs(",\"boots\":[", f);
	for (size_t i = 0; i < c->nr_boots; i++) {
		fputs(i ? ",\n " : "\n ", f);
		json_claim_boots(f, &c->boots[i]);
	}
	fputs("]}\n", f);
	errno = 0;
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
