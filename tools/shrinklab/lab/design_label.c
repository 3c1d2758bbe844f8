/* SPDX-License-Identifier: MIT */
/*
 * Design labels (design_label.h): a design configuration printed as the
 * design's name and the options that differ from its defaults
 * ("prealloc+units=cache"), parsed back strictly (each key once, values in
 * range, root_bits=off only where the design keeps root bits), and turned
 * into the library's host parameters. The defaults come from the design's
 * row of the library's table (shr_design_info_of()), so nothing here tells
 * designs apart.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "design_label.h"
#include "units.h"

bool lab_design_units_option(const struct lab_design *d)
{
	const struct shr_design_info *info = shr_design_info_of(d->design);

	if (!info->units || d->units == SHR_UNITS_DEFAULT)
		return false;
	return d->units != info->default_units;
}

static bool lru_reparent_option(const struct lab_design *d)
{
	const struct shr_design_info *info = shr_design_info_of(d->design);

	return d->lru_reparent != SHR_LRU_REPARENT_DEFAULT &&
	       d->lru_reparent != info->default_lru_reparent;
}

void lab_design_label(const struct lab_design *d, char *buf, size_t len)
{
	const char *name = shr_design_name(d->design);
	int n = snprintf(buf, len, "%s", name ? name : "?");

	if (lab_design_units_option(d) && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "+units=%s",
			      d->units == SHR_UNITS_KMALLOC ? "kmalloc" : "cache");
	if (d->expand_batch && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "+expand_batch=%u", d->expand_batch);
	if (d->nonslab_ids && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "+nonslab_ids");
	if (lru_reparent_option(d) && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "+lru_reparent=%s",
			      d->lru_reparent == SHR_LRU_REPARENT_PER_CGROUP ? "index" : "all");
	if (d->no_root_bits && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "+root_bits=off");
}

/* The keys of a design label (parse_label_option()). */
#define LAB_LABEL_KEYS 5

/* One "key=value" (or "nonslab_ids") option of a design label. */
static int parse_label_option(const char *opt, struct lab_design *d, char *why, size_t len)
{
	const char *eq = strchr(opt, '=');
	const char *v = eq ? eq + 1 : "";
	size_t klen = eq ? (size_t)(eq - opt) : strlen(opt);
	unsigned long n;

	if (klen == 11 && !strncmp(opt, "nonslab_ids", klen) && !eq) {
		d->nonslab_ids = true;
		return 0;
	}
	if (klen == 5 && !strncmp(opt, "units", klen)) {
		if (!strcmp(v, "cache") || !strcmp(v, "kmalloc")) {
			d->units = v[0] == 'c' ? SHR_UNITS_CACHE : SHR_UNITS_KMALLOC;
			return 0;
		}
		snprintf(why, len, "units=%s: expected cache or kmalloc", v);
		return -EINVAL;
	}
	if (klen == 12 && !strncmp(opt, "expand_batch", klen)) {
		if (!lab_parse_ulong(v, 1, 65536, &n)) {
			d->expand_batch = (unsigned int)n;
			return 0;
		}
		snprintf(why, len, "expand_batch=%s: expected 1..65536", v);
		return -EINVAL;
	}
	if (klen == 12 && !strncmp(opt, "lru_reparent", klen)) {
		if (!strcmp(v, "all") || !strcmp(v, "index")) {
			d->lru_reparent = v[0] == 'a' ? SHR_LRU_REPARENT_ALL_LRUS
						      : SHR_LRU_REPARENT_PER_CGROUP;
			return 0;
		}
		snprintf(why, len, "lru_reparent=%s: expected all or index", v);
		return -EINVAL;
	}
	if (klen == 9 && !strncmp(opt, "root_bits", klen)) {
		if (!strcmp(v, "on") || !strcmp(v, "off")) {
			d->no_root_bits = !strcmp(v, "off");
			return 0;
		}
		snprintf(why, len, "root_bits=%s: expected on or off", v);
		return -EINVAL;
	}
	snprintf(why, len, "unknown option '%.*s' (units, expand_batch, nonslab_ids, "
		 "lru_reparent, root_bits)", (int)klen, opt);
	return -EINVAL;
}

void lab_design_names(char *buf, size_t len, const char *last_sep)
{
	int n = 0;

	buf[0] = '\0';
	for (int i = 0; i < SHR_NR_DESIGNS && n >= 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%s",
			      !i ? "" : i == SHR_NR_DESIGNS - 1 ? last_sep : ", ",
			      shr_design_name((enum shr_design)i));
}

/* "unknown design 'NAME' (xarray, prealloc, ...)": the names of the table. */
static void unknown_design(const char *name, char *why, size_t len)
{
	char names[LAB_DESIGN_NAMES_LEN];

	lab_design_names(names, sizeof(names), ", ");
	snprintf(why, len, "unknown design '%s' (%s)", name, names);
}

/* A key given twice ("units=cache+units=kmalloc") is refused: which one
 * wins would be a guess. */
static int label_key_once(const char *tok, char (*seen)[16], size_t *nr, char *why, size_t len)
{
	size_t klen = strcspn(tok, "=");

	for (size_t i = 0; i < *nr; i++) {
		if (strlen(seen[i]) == klen && !strncmp(seen[i], tok, klen)) {
			snprintf(why, len, "%.*s given twice", (int)klen, tok);
			return -EINVAL;
		}
	}
	if (*nr < LAB_LABEL_KEYS && klen < sizeof(seen[0]))
		snprintf(seen[(*nr)++], sizeof(seen[0]), "%.*s", (int)klen, tok);
	return 0;
}

int lab_design_parse_label(const char *s, struct lab_design *d, char *why, size_t len)
{
	char buf[LAB_LABEL_LEN * 2], *item[LAB_LABEL_KEYS + 1];
	char seen[LAB_LABEL_KEYS][16];
	size_t nr_seen = 0;
	const char *list_why = NULL;
	int n;

	memset(d, 0, sizeof(*d));
	n = lab_list_split(s, '+', false, buf, sizeof(buf), item, LAB_LABEL_KEYS + 1, &list_why);
	if (n < 0) {
		snprintf(why, len, "%s", list_why);
		return -EINVAL;
	}
	if (shr_design_parse(item[0], &d->design)) {
		unknown_design(item[0], why, len);
		return -EINVAL;
	}
	for (int i = 1; i < n; i++)
		if (parse_label_option(item[i], d, why, len) ||
		    label_key_once(item[i], seen, &nr_seen, why, len))
			return -EINVAL;
	if (d->no_root_bits && !shr_design_info_of(d->design)->root_bits) {
		snprintf(why, len, "root_bits=off: %s keeps no root bits",
			 shr_design_name(d->design));
		return -EINVAL;
	}
	return 0;
}

void lab_design_host_params(const struct lab_design *d, const struct lab_scale *s,
			    struct shr_host_params *p)
{
	shr_host_params_init(p);
	p->design = d->design;
	p->units = d->units;
	p->expand_batch = d->expand_batch;
	p->nonslab_ids = d->nonslab_ids;
	p->lru_reparent = d->lru_reparent;
	p->nr_nodes = s->nodes;
	p->geometry_cpus = s->cpus;
	p->kmem = s->kmem;
}
